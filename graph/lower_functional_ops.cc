#include "graph/lower_functional_ops.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "base/types.h"

namespace tensoract {
namespace {

using tensorflow::AttrValue;
using tensorflow::NodeDef;

// Builds the nodes of one lowered op: each named "<op>/<suffix>", on the op's device.
class Lowering {
 public:
  Lowering(const NodeDef& node, std::vector<NodeDef>* out) : node_(node), out_(out) {
    for (const std::string& in : node.input()) (in.rfind("^", 0) == 0 ? control_ : data_).push_back(in);
  }

  const std::vector<std::string>& data() const { return data_; }
  const std::vector<std::string>& control() const { return control_; }
  std::string Name(const std::string& suffix) const { return StrCat(node_.name(), "/", suffix); }

  NodeDef* Add(const std::string& name, const std::string& op, std::vector<std::string> inputs) {
    out_->emplace_back();
    NodeDef* n = &out_->back();
    n->set_name(name);
    n->set_op(op);
    n->set_device(node_.device());
    for (std::string& in : inputs) n->add_input(std::move(in));
    return n;
  }
  // A node of one type attr T.
  NodeDef* AddTyped(const std::string& name, const std::string& op, DataType t, std::vector<std::string> inputs) {
    NodeDef* n = Add(name, op, std::move(inputs));
    (*n->mutable_attr())["T"].set_type(t);
    return n;
  }
  NodeDef* AddMerge(const std::string& name, DataType t, std::vector<std::string> inputs) {
    const int n_inputs = static_cast<int>(inputs.size());
    NodeDef* n = AddTyped(name, "Merge", t, std::move(inputs));
    (*n->mutable_attr())["N"].set_i(n_inputs);
    return n;
  }
  // A scalar int32 Const, waiting for `after` (so it runs in that node's frame).
  NodeDef* AddInt(const std::string& name, int32_t value, const std::string& after) {
    NodeDef* n = Add(name, "Const", {StrCat("^", after.substr(0, after.find(':')))});
    (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
    tensorflow::TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(tensorflow::DT_INT32);
    t->add_int_val(value);
    return n;
  }
  // A call of `f` (the func attr `f_attr` of the node) for the inliner to expand.
  NodeDef Call(const std::string& name, const std::string& f_attr, const AttrValue& tin, const AttrValue& tout,
               std::vector<std::string> inputs) const {
    return CallOf(name, node_.attr().at(f_attr), tin, tout, std::move(inputs));
  }
  // A call of the function `f` names.
  NodeDef CallOf(const std::string& name, const AttrValue& f, const AttrValue& tin, const AttrValue& tout,
                 std::vector<std::string> inputs) const {
    NodeDef call;
    call.set_name(name);
    call.set_op("PartitionedCall");
    call.set_device(node_.device());
    for (std::string& in : inputs) call.add_input(std::move(in));
    auto& attrs = *call.mutable_attr();
    attrs["f"] = f;
    attrs["Tin"] = tin;
    attrs["Tout"] = tout;
    return call;
  }
  // The op's own name: its results in order, after `control` (a NoOp without results).
  void AddResults(const AttrValue& types, const std::vector<std::string>& results, const std::string& control) {
    bool none = types.list().type_size() == 0;
    NodeDef* n = Add(node_.name(), none ? "NoOp" : "IdentityN", results);
    if (!control.empty()) n->add_input(StrCat("^", control));
    if (!none) (*n->mutable_attr())["T"] = types;
  }

 private:
  const NodeDef& node_;
  std::vector<NodeDef>* out_;
  std::vector<std::string> data_, control_;
};

Status NeedAttrs(const NodeDef& node, std::initializer_list<const char*> names) {
  for (const char* a : names) {
    if (!node.attr().count(a)) return errors::InvalidArgument("node '", node.name(), "' (", node.op(), ") has no attr ", a);
  }
  return Status::OK();
}

Status LowerIf(const NodeDef& node, const ExpandCall& expand, std::vector<NodeDef>* out) {
  TA_RETURN_IF_ERROR(NeedAttrs(node, {"Tcond", "Tin", "Tout", "then_branch", "else_branch"}));
  if (node.attr().at("Tcond").type() != tensorflow::DT_BOOL) {
    return errors::InvalidArgument("node '", node.name(), "' (", node.op(), ") has a cond of type ",
                                   DataTypeString(node.attr().at("Tcond").type()), "; only bool conds are supported");
  }
  Lowering l(node, out);
  const AttrValue& tin = node.attr().at("Tin");
  const AttrValue& tout = node.attr().at("Tout");
  if (l.data().size() != static_cast<size_t>(tin.list().type_size()) + 1) {
    return errors::InvalidArgument("node '", node.name(), "' (", node.op(), ") has ", l.data().size(),
                                   " inputs; its Tin names ", tin.list().type_size(), " besides the cond");
  }
  const std::string& cond = l.data()[0];
  std::vector<std::string> pred_inputs = {cond, cond};
  for (const std::string& c : l.control()) pred_inputs.push_back(c);
  l.AddTyped(l.Name("switch_pred"), "Switch", tensorflow::DT_BOOL, pred_inputs);
  l.AddTyped(l.Name("pivot_f"), "Identity", tensorflow::DT_BOOL, {l.Name("switch_pred:0")});
  l.AddTyped(l.Name("pivot_t"), "Identity", tensorflow::DT_BOOL, {l.Name("switch_pred:1")});
  std::vector<std::string> then_in, else_in;
  for (int i = 0; i < tin.list().type_size(); ++i) {
    std::string sw = l.Name(StrCat("input_", i));
    std::vector<std::string> inputs = {l.data()[i + 1], cond};
    for (const std::string& c : l.control()) inputs.push_back(c);
    l.AddTyped(sw, "Switch", tin.list().type(i), inputs);
    else_in.push_back(sw + ":0");
    then_in.push_back(sw + ":1");
  }
  then_in.push_back(StrCat("^", l.Name("pivot_t")));
  else_in.push_back(StrCat("^", l.Name("pivot_f")));
  TA_RETURN_IF_ERROR(expand(l.Call(l.Name("then"), "then_branch", tin, tout, then_in), out));
  TA_RETURN_IF_ERROR(expand(l.Call(l.Name("else"), "else_branch", tin, tout, else_in), out));
  std::vector<std::string> results;
  for (int j = 0; j < tout.list().type_size(); ++j) {
    std::string merge = l.Name(StrCat("output_", j));
    l.AddMerge(merge, tout.list().type(j), {StrCat(l.Name("then"), ":", j), StrCat(l.Name("else"), ":", j)});
    results.push_back(merge);
  }
  // Live once the taken branch has finished, side effects included, whichever it was.
  l.AddTyped(l.Name("then_done"), "Identity", tensorflow::DT_BOOL, {l.Name("pivot_t"), StrCat("^", l.Name("then"))});
  l.AddTyped(l.Name("else_done"), "Identity", tensorflow::DT_BOOL, {l.Name("pivot_f"), StrCat("^", l.Name("else"))});
  l.AddMerge(l.Name("branch_executed"), tensorflow::DT_BOOL, {l.Name("then_done"), l.Name("else_done")});
  l.AddResults(tout, results, l.Name("branch_executed"));
  return Status::OK();
}

// Case as If is lowered, one predicate a branch: branch k < N - 1 runs where index == k,
// the last where index is outside [0, N - 1) (TensorFlow's rule for an index out of range).
// Each branch's inputs come through Switches on its predicate: the branches not taken get
// dead inputs, and the Merges take the one live result.
Status LowerCase(const NodeDef& node, const ExpandCall& expand, std::vector<NodeDef>* out) {
  TA_RETURN_IF_ERROR(NeedAttrs(node, {"Tin", "Tout", "branches"}));
  Lowering l(node, out);
  const AttrValue& tin = node.attr().at("Tin");
  const AttrValue& tout = node.attr().at("Tout");
  const auto& branches = node.attr().at("branches").list().func();
  const int n = branches.size();
  if (n < 1) return errors::InvalidArgument("node '", node.name(), "' (", node.op(), ") has no branches");
  if (l.data().size() != static_cast<size_t>(tin.list().type_size()) + 1) {
    return errors::InvalidArgument("node '", node.name(), "' (", node.op(), ") has ", l.data().size(),
                                   " inputs; its Tin names ", tin.list().type_size(), " besides the branch index");
  }
  const std::string& index = l.data()[0];
  std::vector<std::string> preds;
  for (int k = 0; k + 1 < n; ++k) {
    l.AddInt(l.Name(StrCat("branch_", k, "_index")), k, index);
    l.AddTyped(l.Name(StrCat("branch_", k, "_pred")), "Equal", tensorflow::DT_INT32,
               {index, l.Name(StrCat("branch_", k, "_index"))});
    preds.push_back(l.Name(StrCat("branch_", k, "_pred")));
  }
  // The last: not 0 <= index < N - 1.
  l.AddInt(l.Name("zero"), 0, index);
  l.AddInt(l.Name("last_index"), n - 1, index);
  l.AddTyped(l.Name("at_least_zero"), "GreaterEqual", tensorflow::DT_INT32, {index, l.Name("zero")});
  l.AddTyped(l.Name("below_last"), "Less", tensorflow::DT_INT32, {index, l.Name("last_index")});
  l.Add(l.Name("not_last"), "LogicalAnd", {l.Name("at_least_zero"), l.Name("below_last")});
  l.Add(l.Name(StrCat("branch_", n - 1, "_pred")), "LogicalNot", {l.Name("not_last")});
  preds.push_back(l.Name(StrCat("branch_", n - 1, "_pred")));

  std::vector<std::vector<std::string>> outputs(tout.list().type_size());
  std::vector<std::string> done;
  for (int k = 0; k < n; ++k) {
    const std::string branch = l.Name(StrCat("branch_", k));
    std::vector<std::string> pred_inputs = {preds[k], preds[k]};
    for (const std::string& c : l.control()) pred_inputs.push_back(c);
    l.AddTyped(branch + "_switch", "Switch", tensorflow::DT_BOOL, pred_inputs);
    l.AddTyped(branch + "_pivot", "Identity", tensorflow::DT_BOOL, {branch + "_switch:1"});
    std::vector<std::string> inputs;
    for (int i = 0; i < tin.list().type_size(); ++i) {
      std::string sw = StrCat(branch, "_input_", i);
      std::vector<std::string> switch_inputs = {l.data()[i + 1], preds[k]};
      for (const std::string& c : l.control()) switch_inputs.push_back(c);
      l.AddTyped(sw, "Switch", tin.list().type(i), switch_inputs);
      inputs.push_back(sw + ":1");
    }
    inputs.push_back(StrCat("^", branch, "_pivot"));
    AttrValue f;
    *f.mutable_func() = branches.Get(k);
    TA_RETURN_IF_ERROR(expand(l.CallOf(branch, f, tin, tout, inputs), out));
    for (int j = 0; j < tout.list().type_size(); ++j) outputs[j].push_back(StrCat(branch, ":", j));
    // Live once this branch has finished, side effects included, if it was the one taken.
    l.AddTyped(branch + "_done", "Identity", tensorflow::DT_BOOL, {branch + "_pivot", StrCat("^", branch)});
    done.push_back(branch + "_done");
  }
  std::vector<std::string> results;
  for (int j = 0; j < tout.list().type_size(); ++j) {
    std::string merge = l.Name(StrCat("output_", j));
    l.AddMerge(merge, tout.list().type(j), outputs[j]);
    results.push_back(merge);
  }
  l.AddMerge(l.Name("branch_executed"), tensorflow::DT_BOOL, done);
  l.AddResults(tout, results, l.Name("branch_executed"));
  return Status::OK();
}

// Whether the body's tensor `ret` is its argument `arg` itself, or an Identity of it that
// only waits for other nodes (Keras returns its loop bound as Identity(max, ^NoOp)).
bool SameAsArgument(const tensorflow::FunctionDef& body, const std::string& ret, const std::string& arg) {
  if (ret == arg) return true;
  const std::string node = ret.substr(0, ret.find(':'));
  if (node == ret || ret != StrCat(node, ":output:0")) return false;
  for (const NodeDef& n : body.node_def()) {
    if (n.name() != node) continue;
    if (n.op() != "Identity" || n.input_size() == 0 || n.input(0) != arg) return false;
    for (int k = 1; k < n.input_size(); ++k) {
      if (n.input(k).rfind("^", 0) != 0) return false;
    }
    return true;
  }
  return false;
}

// Which loop variables the body returns as it got them (output i is input i itself: the
// tensors a tf.function's loop captures, such as weights, resources and the input list).
std::vector<bool> LoopInvariants(const tensorflow::FunctionDef* body, int n) {
  std::vector<bool> invariant(n, false);
  if (body == nullptr) return invariant;
  const auto& sig = body->signature();
  if (sig.input_arg_size() != n || sig.output_arg_size() != n) return invariant;
  for (int i = 0; i < n; ++i) {
    auto ret = body->ret().find(sig.output_arg(i).name());
    invariant[i] = ret != body->ret().end() && SameAsArgument(*body, ret->second, sig.input_arg(i).name());
  }
  return invariant;
}

Status LowerWhile(const NodeDef& node, const ExpandCall& expand, const FindFunction& find, std::vector<NodeDef>* out) {
  TA_RETURN_IF_ERROR(NeedAttrs(node, {"T", "cond", "body"}));
  Lowering l(node, out);
  const AttrValue& types = node.attr().at("T");
  const int n = types.list().type_size();
  if (n == 0) return errors::InvalidArgument("node '", node.name(), "' (", node.op(), ") has no loop variables");
  if (l.data().size() != static_cast<size_t>(n)) {
    return errors::InvalidArgument("node '", node.name(), "' (", node.op(), ") has ", l.data().size(),
                                   " inputs; its T names ", n);
  }
  int64_t parallel = 10;
  if (node.attr().count("parallel_iterations")) parallel = node.attr().at("parallel_iterations").i();
  std::vector<bool> invariant = LoopInvariants(find ? find(node.attr().at("body").func().name()) : nullptr, n);
  const int first_carried = static_cast<int>(std::find(invariant.begin(), invariant.end(), false) - invariant.begin());
  if (first_carried == n) invariant.assign(n, false);  // nothing changes: a loop as written (it ends at once or never)
  const int pivot = first_carried == n ? 0 : first_carried;
  // Per loop variable, what the cond and the body read (a Merge's or a Switch's Identity, or
  // an invariant's Enter) and what the While gives out (an Exit, or the invariant's input).
  std::vector<std::string> cond_in(n), body_in(n), results(n), merges(n);
  for (int i = 0; i < n; ++i) {
    DataType t = types.list().type(i);
    std::vector<std::string> inputs = {l.data()[i]};
    for (const std::string& c : l.control()) inputs.push_back(c);
    const std::string enter_name = l.Name(StrCat("enter_", i));
    NodeDef* enter = l.AddTyped(enter_name, "Enter", t, inputs);
    auto& attrs = *enter->mutable_attr();
    attrs["frame_name"].set_s(node.name());
    // An invariant enters once for every iteration, as TensorFlow 1's loop invariants do:
    // no Merge, Switch, Identity and NextIteration of its own each iteration (a Keras LSTM
    // carries four such of ten: 16 of its ~75 nodes an iteration).
    attrs["is_constant"].set_b(invariant[i]);
    attrs["parallel_iterations"].set_i(parallel);
    if (invariant[i]) {
      cond_in[i] = body_in[i] = enter_name;
      results[i] = l.data()[i];  // the While's result waits for the Exits all the same (IdentityN)
      continue;
    }
    merges[i] = l.Name(StrCat("merge_", i));
    cond_in[i] = merges[i];
    l.AddMerge(merges[i], t, {enter_name, l.Name(StrCat("next_iteration_", i))});
  }
  AttrValue bool_type;
  bool_type.mutable_list()->add_type(tensorflow::DT_BOOL);
  cond_in.push_back(StrCat("^", merges[pivot]));  // the cond's constants run in the loop's frame
  TA_RETURN_IF_ERROR(expand(l.Call(l.Name("cond"), "cond", types, bool_type, cond_in), out));
  l.Add(l.Name("loop_cond"), "LoopCond", {l.Name("cond:0")});
  for (int i = 0; i < n; ++i) {
    if (invariant[i]) continue;
    DataType t = types.list().type(i);
    std::string sw = l.Name(StrCat("switch_", i));
    l.AddTyped(sw, "Switch", t, {merges[i], l.Name("loop_cond")});
    results[i] = l.Name(StrCat("exit_", i));
    l.AddTyped(results[i], "Exit", t, {sw + ":0"});
    body_in[i] = l.Name(StrCat("identity_", i));
    l.AddTyped(body_in[i], "Identity", t, {sw + ":1"});
  }
  body_in.push_back(StrCat("^", body_in[pivot]));  // dead once the loop ends
  TA_RETURN_IF_ERROR(expand(l.Call(l.Name("body"), "body", types, types, body_in), out));
  for (int i = 0; i < n; ++i) {
    if (invariant[i]) continue;
    l.AddTyped(l.Name(StrCat("next_iteration_", i)), "NextIteration", types.list().type(i),
               {StrCat(l.Name("body"), ":", i)});
  }
  // An invariant's result is its input, given out with the Exits' (IdentityN waits for all).
  l.AddResults(types, results, "");
  return Status::OK();
}

}  // namespace

bool IsFunctionalControlFlow(const std::string& op) {
  return op == "If" || op == "StatelessIf" || op == "Case" || op == "StatelessCase" || op == "While" ||
         op == "StatelessWhile";
}

Status LowerFunctionalControlFlow(const NodeDef& node, const ExpandCall& expand, const FindFunction& find,
                                  std::vector<NodeDef>* out) {
  if (node.op() == "If" || node.op() == "StatelessIf") return LowerIf(node, expand, out);
  if (node.op() == "Case" || node.op() == "StatelessCase") return LowerCase(node, expand, out);
  return LowerWhile(node, expand, find, out);
}

}  // namespace tensoract
