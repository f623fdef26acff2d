#include "graph/function_library.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/lower_functional_ops.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "messages/function.pb.h"

namespace tensoract {
namespace {

using tensorflow::AttrValue;
using tensorflow::FunctionDef;
using tensorflow::NodeDef;
using AttrMap = google::protobuf::Map<std::string, AttrValue>;

// Calls nest this deep at most: deeper is taken for a function calling itself.
constexpr int kMaxDepth = 64;

bool IsCallOp(const std::string& op) { return op == "PartitionedCall" || op == "StatefulPartitionedCall"; }

// The library function `node` calls, or nullptr; `attrs` gets the values of the function's
// own attrs (a direct call's attrs, or those `f` carries).
const FunctionDef* CalledFunction(const NodeDef& node, const std::map<std::string, const FunctionDef*>& library,
                                  AttrMap* attrs) {
  if (IsCallOp(node.op())) {
    auto f = node.attr().find("f");
    if (f == node.attr().end() || !f->second.has_func()) return nullptr;
    auto found = library.find(f->second.func().name());
    if (found == library.end()) return nullptr;
    *attrs = f->second.func().attr();
    return found->second;
  }
  auto found = library.find(node.op());
  if (found == library.end()) return nullptr;
  *attrs = node.attr();
  return found->second;
}

// An attr value with its placeholders ("$T", in lists too) replaced by the call's values.
Status Substitute(const AttrMap& call_attrs, AttrValue* value) {
  if (!value->placeholder().empty()) {
    auto found = call_attrs.find(value->placeholder());
    if (found == call_attrs.end()) {
      return errors::InvalidArgument("the function body uses attr $", value->placeholder(),
                                     ", which the call does not set");
    }
    *value = found->second;
  }
  return Status::OK();
}

// How many tensors output arg `arg` of a node with attrs `attrs` is.
int64_t ArgCount(const tensorflow::OpDef::ArgDef& arg, const AttrMap& attrs) {
  if (!arg.number_attr().empty()) {
    auto n = attrs.find(arg.number_attr());
    return n == attrs.end() ? 1 : n->second.i();
  }
  if (!arg.type_list_attr().empty()) {
    auto list = attrs.find(arg.type_list_attr());
    return list == attrs.end() ? 0 : list->second.list().type_size();
  }
  return 1;
}

class Inliner {
 public:
  explicit Inliner(const tensorflow::GraphDef& graph) {
    for (const FunctionDef& f : graph.library().function()) library_[f.signature().name()] = &f;
  }

  bool empty() const { return library_.empty(); }

  // Appends to `out` what replaces `call`: the body of its function, recursively inlined.
  Status Expand(const NodeDef& call, int depth, std::vector<NodeDef>* out) {
    if (IsFunctionalControlFlow(call.op())) {
      // Its branches, cond and body are calls, inlined as any other.
      if (depth >= kMaxDepth) {
        return errors::InvalidArgument("node '", call.name(), "' (", call.op(), ") nests calls more than ", kMaxDepth,
                                       " deep: does a function call itself?");
      }
      return LowerFunctionalControlFlow(
          call, [this, depth](const NodeDef& c, std::vector<NodeDef>* o) { return Expand(c, depth + 1, o); },
          [this](const std::string& name) -> const FunctionDef* {
            auto found = library_.find(name);
            return found == library_.end() ? nullptr : found->second;
          },
          out);
    }
    AttrMap call_attrs;
    const FunctionDef* f = CalledFunction(call, library_, &call_attrs);
    if (f == nullptr) {
      out->push_back(call);
      return Status::OK();
    }
    const auto& sig = f->signature();
    if (depth >= kMaxDepth) {
      return errors::InvalidArgument("function '", sig.name(), "' (called by node '", call.name(),
                                     "') nests calls more than ", kMaxDepth, " deep: does it call itself?");
    }
    const std::string& prefix = call.name();
    std::vector<std::string> data, control;
    for (const std::string& in : call.input()) (in.rfind("^", 0) == 0 ? control : data).push_back(in);
    if (static_cast<int>(data.size()) != sig.input_arg_size()) {
      return errors::InvalidArgument("node '", call.name(), "' calls function '", sig.name(), "' with ", data.size(),
                                     " inputs; it takes ", sig.input_arg_size());
    }
    std::map<std::string, std::string> args;  // argument name -> the tensor feeding it
    for (int i = 0; i < sig.input_arg_size(); ++i) args[sig.input_arg(i).name()] = data[i];
    std::set<std::string> body;
    for (const NodeDef& n : f->node_def()) body.insert(n.name());

    // A body tensor "node:out_arg:k" (or an argument's name) as a tensor of the inlined graph.
    auto rewrite = [&](const std::string& in) -> StatusOr<std::string> {
      if (in.rfind("^", 0) == 0) {
        std::string node = in.substr(1);
        if (!body.count(node)) return errors::InvalidArgument("control input '", in, "' names no node of the body");
        return StrCat("^", prefix, "/", node);
      }
      size_t colon = in.find(':');
      if (colon == std::string::npos) {
        auto arg = args.find(in);
        if (arg == args.end()) return errors::InvalidArgument("'", in, "' is no argument of the function");
        return arg->second;
      }
      std::string node = in.substr(0, colon), rest = in.substr(colon + 1);
      size_t second = rest.find(':');
      std::string out_arg = second == std::string::npos ? rest : rest.substr(0, second);
      int64_t k = second == std::string::npos ? 0 : std::atoll(rest.c_str() + second + 1);
      const NodeDef* producer = nullptr;
      for (const NodeDef& n : f->node_def()) {
        if (n.name() == node) producer = &n;
      }
      if (producer == nullptr) return errors::InvalidArgument("'", in, "' names no node of the body");
      TA_ASSIGN_OR_RETURN(int64_t base, OutputBase(*producer, out_arg, call_attrs));
      return StrCat(prefix, "/", node, ":", base + k);
    };

    for (const NodeDef& n : f->node_def()) {
      NodeDef m = n;
      m.set_name(StrCat(prefix, "/", n.name()));
      if (m.device().empty()) m.set_device(call.device());
      m.clear_input();
      for (const std::string& in : n.input()) {
        auto r = rewrite(in);
        if (!r.ok()) return r.status().WithContext(StrCat("function '", sig.name(), "', node '", n.name(), "'"));
        m.add_input(r.value());
      }
      for (const std::string& c : control) m.add_input(c);  // the body waits for the call's control inputs
      for (auto& [name, value] : *m.mutable_attr()) TA_RETURN_IF_ERROR(Substitute(call_attrs, &value));
      // Calls in the body are inlined in turn, under this call's name.
      TA_RETURN_IF_ERROR(Expand(m, depth + 1, out));
    }

    // The results, under the call's own name.
    NodeDef results;
    results.set_name(prefix);
    results.set_device(call.device());
    AttrValue types;
    types.mutable_list();
    for (int i = 0; i < sig.output_arg_size(); ++i) {
      const auto& arg = sig.output_arg(i);
      auto ret = f->ret().find(arg.name());
      if (ret == f->ret().end()) {
        return errors::InvalidArgument("function '", sig.name(), "' has no ret for its output '", arg.name(), "'");
      }
      auto r = rewrite(ret->second);
      if (!r.ok()) return r.status().WithContext(StrCat("function '", sig.name(), "', output '", arg.name(), "'"));
      results.add_input(r.value());
      DataType t = arg.type();
      if (t == tensorflow::DT_INVALID && !arg.type_attr().empty()) {
        auto a = call_attrs.find(arg.type_attr());
        if (a != call_attrs.end()) t = a->second.type();
      }
      if (t == tensorflow::DT_INVALID) {  // a PartitionedCall says its result types in Tout
        auto tout = call.attr().find("Tout");
        if (tout != call.attr().end() && i < tout->second.list().type_size()) t = tout->second.list().type(i);
      }
      types.mutable_list()->add_type(t);
    }
    for (const auto& [name, node] : f->control_ret()) {
      if (!body.count(node)) return errors::InvalidArgument("function '", sig.name(), "': control_ret '", name, "' names no node");
      results.add_input(StrCat("^", prefix, "/", node));
    }
    for (const std::string& c : control) results.add_input(c);
    if (sig.output_arg_size() == 0) {
      results.set_op("NoOp");
    } else {
      results.set_op("IdentityN");
      (*results.mutable_attr())["T"] = types;
    }
    out->push_back(std::move(results));
    return Status::OK();
  }

 private:
  // The index of the first tensor of output arg `out_arg` among all outputs of `node`.
  StatusOr<int64_t> OutputBase(const NodeDef& node, const std::string& out_arg, const AttrMap& call_attrs) {
    AttrMap attrs = node.attr();
    for (auto& [name, value] : attrs) TA_RETURN_IF_ERROR(Substitute(call_attrs, &value));
    AttrMap inner;
    const FunctionDef* callee = CalledFunction(node, library_, &inner);
    if (callee != nullptr && !IsCallOp(node.op())) {  // a direct call: one tensor per output arg
      for (int i = 0; i < callee->signature().output_arg_size(); ++i) {
        if (callee->signature().output_arg(i).name() == out_arg) return i;
      }
      return errors::InvalidArgument("function '", node.op(), "' has no output '", out_arg, "'");
    }
    TA_ASSIGN_OR_RETURN(const tensorflow::OpDef* op_def, OpRegistry::Global()->LookUp(node.op()));
    int64_t base = 0;
    for (const auto& arg : op_def->output_arg()) {
      if (arg.name() == out_arg) return base;
      base += ArgCount(arg, attrs);
    }
    return errors::InvalidArgument("op ", node.op(), " (node '", node.name(), "') has no output '", out_arg, "'");
  }

  std::map<std::string, const FunctionDef*> library_;
};

// "node:out_arg:j" for output `k` of `node` (the FunctionDef form of "node:k").
StatusOr<std::string> FunctionTensorName(const NodeDef& node, int64_t k) {
  TA_ASSIGN_OR_RETURN(const tensorflow::OpDef* op_def, OpRegistry::Global()->LookUp(node.op()));
  int64_t base = 0;
  for (const auto& arg : op_def->output_arg()) {
    int64_t n = ArgCount(arg, node.attr());
    if (k < base + n) return StrCat(node.name(), ":", arg.name(), ":", k - base);
    base += n;
  }
  return errors::InvalidArgument("node '", node.name(), "' (op ", node.op(), ") has no output ", k);
}

}  // namespace

StatusOr<tensorflow::FunctionDef> MakeFunctionDef(const tensorflow::GraphDef& graph_def, const std::string& name,
                                                  const std::vector<std::pair<std::string, DataType>>& args,
                                                  const std::vector<std::string>& outputs,
                                                  const DataTypeVector& output_types,
                                                  const std::vector<std::string>& control_outputs) {
  tensorflow::FunctionDef f;
  auto* sig = f.mutable_signature();
  sig->set_name(name);
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : graph_def.node()) by_name[n.name()] = &n;
  std::set<std::string> arg_set;
  for (const auto& [a, type] : args) {
    if (!by_name.count(a)) return errors::InvalidArgument("function '", name, "': argument '", a, "' names no node");
    arg_set.insert(a);
    auto* in = sig->add_input_arg();
    in->set_name(a);
    in->set_type(type);
  }
  // A graph tensor ("node" or "node:k") in the FunctionDef's form.
  auto rewrite = [&](const std::string& tensor) -> StatusOr<std::string> {
    size_t colon = tensor.rfind(':');
    std::string node = colon == std::string::npos ? tensor : tensor.substr(0, colon);
    int64_t k = colon == std::string::npos ? 0 : std::atoll(tensor.c_str() + colon + 1);
    if (arg_set.count(node)) return node;
    auto found = by_name.find(node);
    if (found == by_name.end()) return errors::InvalidArgument("function '", name, "': '", tensor, "' names no node");
    return FunctionTensorName(*found->second, k);
  };
  for (const NodeDef& n : graph_def.node()) {
    if (arg_set.count(n.name())) continue;
    NodeDef* m = f.add_node_def();
    *m = n;
    m->clear_input();
    for (const std::string& in : n.input()) {
      if (in.rfind("^", 0) == 0) {
        if (!arg_set.count(in.substr(1))) m->add_input(in);  // waiting for an argument is implied
        continue;
      }
      TA_ASSIGN_OR_RETURN(std::string t, rewrite(in));
      m->add_input(t);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto* out = sig->add_output_arg();
    out->set_name(StrCat("output_", i));
    out->set_type(i < output_types.size() ? output_types[i] : tensorflow::DT_INVALID);
    TA_ASSIGN_OR_RETURN(std::string t, rewrite(outputs[i]));
    (*f.mutable_ret())[out->name()] = t;
  }
  for (const std::string& c : control_outputs) {
    if (!by_name.count(c)) return errors::InvalidArgument("function '", name, "': control output '", c, "' names no node");
    sig->add_control_output(c);
    (*f.mutable_control_ret())[c] = c;
  }
  return f;
}

Status InlineFunctionCalls(tensorflow::GraphDef* graph_def) {
  Inliner inliner(*graph_def);
  if (inliner.empty()) return Status::OK();
  std::vector<NodeDef> nodes;
  for (const NodeDef& n : graph_def->node()) TA_RETURN_IF_ERROR(inliner.Expand(n, 0, &nodes));
  graph_def->clear_node();
  for (NodeDef& n : nodes) *graph_def->add_node() = std::move(n);
  graph_def->clear_library();
  return Status::OK();
}

}  // namespace tensoract
