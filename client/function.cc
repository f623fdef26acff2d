#include "client/function.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "graph/builder/array_ops.h"
#include "graph/builder/ops.h"
#include "graph/control_flow.h"
#include "graph/function_library.h"
#include "graph/gradients/gradients.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

thread_local TraceState* current_trace = nullptr;

// Sets the thread's trace for a scope of C++ code, restoring the enclosing one after.
class TraceGuard {
 public:
  explicit TraceGuard(TraceState* trace) : saved_(current_trace) { current_trace = trace; }
  ~TraceGuard() { current_trace = saved_; }

 private:
  TraceState* saved_;
};

const tensorflow::OpDef* CallOpDef() {
  static const tensorflow::OpDef* def = OpRegistry::Global()->LookUp("StatefulPartitionedCall").value();
  return def;
}

// An eager value's shape, which is always fully known.
TensorShape FullShape(const PartialTensorShape& shape) {
  std::vector<int64_t> dims;
  for (int d = 0; d < shape.dims(); ++d) dims.push_back(shape.dim_size(d));
  return TensorShape(dims);
}

// The tensors among `args`, in order, a list argument's elements in its place.
std::vector<const Output*> TensorsOf(const std::vector<FunctionArg>& args) {
  std::vector<const Output*> tensors;
  for (const FunctionArg& arg : args) {
    if (const Output* o = std::get_if<Output>(&arg)) tensors.push_back(o);
    if (const auto* list = std::get_if<std::vector<Output>>(&arg)) {
      for (const Output& o : *list) tensors.push_back(&o);
    }
  }
  return tensors;
}

// `args` with the k-th tensor (in TensorsOf's order) replaced by make(tensor, k).
std::vector<FunctionArg> MapTensors(const std::vector<FunctionArg>& args,
                                    const std::function<Output(const Output&, size_t)>& make) {
  std::vector<FunctionArg> mapped;
  size_t k = 0;
  for (const FunctionArg& arg : args) {
    if (const Output* o = std::get_if<Output>(&arg)) {
      mapped.push_back(make(*o, k++));
    } else if (const auto* list = std::get_if<std::vector<Output>>(&arg)) {
      std::vector<Output> elements;
      for (const Output& e : *list) elements.push_back(make(e, k++));
      mapped.push_back(std::move(elements));
    } else {
      mapped.push_back(arg);
    }
  }
  return mapped;
}

// A tensor argument's part of a signature key: its dtype and dimensions as raw bytes (a
// call computes its key every time; formatting them as text cost a microsecond).
void AppendTensorKey(DataType dtype, const PartialTensorShape& shape, std::string* key) {
  key->push_back('T');
  const int32_t d = static_cast<int32_t>(dtype), rank = shape.dims();
  key->append(reinterpret_cast<const char*>(&d), sizeof d);
  key->append(reinterpret_cast<const char*>(&rank), sizeof rank);
  for (int i = 0; i < rank; ++i) {
    const int64_t n = shape.dim_size(i);
    key->append(reinterpret_cast<const char*>(&n), sizeof n);
  }
}

std::string ShapeString(DataType dtype, const PartialTensorShape& shape) {
  return StrCat(DataTypeString(dtype), shape.DebugString());
}

// Automatic control dependencies: the edges that make the stateful nodes of a trace run in
// the order the trace made them, as TensorFlow 2 does. Nodes using one resource (a
// variable's handle) run in program order; stateful nodes using none (random numbers,
// summaries) run in program order among themselves; nodes on different resources may run
// at once. Only nodes that run once per call count: those in the function's top level, not
// inside a loop's frame or a conditional's branch (an edge out of a branch would carry its
// deadness). `last` gets the last node of each chain, which the outputs then depend on.
struct AutomaticControlDeps {
  std::vector<std::pair<const Node*, const Node*>> edges;  // (before, after)
  std::vector<const Node*> last;
};

AutomaticControlDeps OrderStatefulNodes(const Graph& graph) {
  AutomaticControlDeps deps;
  ControlFlowInfo cf;
  if (!BuildControlFlowInfo(graph, &cf).ok()) return deps;
  std::vector<bool> in_branch(graph.num_node_ids(), false);
  std::map<int, const Node*> last_on;  // by the resource's producer node id; -1: no resource
  for (const Node* n : graph.op_nodes()) {  // id order: inputs before their consumers
    bool branch = false;
    if (!IsMerge(*n)) {
      for (const Edge* e : n->in_edges()) {
        if (e->src->IsOp() && (IsSwitch(*e->src) || in_branch[e->src->id()])) branch = true;
      }
    }
    in_branch[n->id()] = branch;
    if (branch || cf.frame_of[n->id()] != 0 || IsControlFlow(*n) || !n->IsStateful()) continue;
    const std::string& op = n->type_string();
    if (op == "Placeholder" || op == "VarHandleOp" || op == "_Arg" || op == "_Retval") continue;
    std::set<int> resources;
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && n->input_type(e->dst_input) == tensorflow::DT_RESOURCE) resources.insert(e->src->id());
    }
    if (resources.empty()) resources.insert(-1);
    for (int r : resources) {
      auto& prev = last_on[r];
      if (prev != nullptr) deps.edges.push_back({prev, n});
      prev = n;
    }
  }
  std::set<const Node*> last;
  for (const auto& entry : last_on) last.insert(entry.second);
  deps.last.assign(last.begin(), last.end());
  return deps;
}

// Writes `graph`'s automatic control dependencies into `def` (its GraphDef), the outputs
// (nodes of the graph) waiting for every chain's last node; returns those last nodes'
// names, which a caller runs as targets or a FunctionDef lists as control outputs.
std::vector<std::string> ApplyAutomaticControlDeps(const Graph& graph, const std::vector<Output>& outputs,
                                                   tensorflow::GraphDef* def) {
  AutomaticControlDeps deps = OrderStatefulNodes(graph);
  std::unordered_map<std::string, NodeDef*> by_name;
  for (NodeDef& n : *def->mutable_node()) by_name[n.name()] = &n;
  for (const auto& [before, after] : deps.edges) by_name[after->name()]->add_input(StrCat("^", before->name()));
  std::vector<std::string> last;
  for (const Node* n : deps.last) {
    for (const Output& out : outputs) by_name[out.node->name()]->add_input(StrCat("^", n->name()));
    last.push_back(n->name());
  }
  return last;
}

// A name no other traced function of this process has.
std::string FunctionDefName(const std::string& function) {
  static std::atomic<int64_t> traced{0};
  return StrCat("__inference_", function, "_", traced++);
}

}  // namespace

TraceState* CurrentTrace() { return current_trace; }

// One trace: its graph, the session that runs it, and its gradient graph once asked for.
struct Function::Concrete {
  Scope graph = Scope::NewRootScope();  // as traced (the gradient nodes join it later)
  std::vector<Output> args;             // the placeholders "args_<i>"
  std::vector<Output> outputs;          // the Identity nodes "output_<i>"
  std::vector<std::pair<Output, Output>> captures;  // (graph node, eager value)
  tensorflow::GraphDef graph_def;  // with the automatic control dependencies
  std::unique_ptr<Session> session;
  std::vector<std::string> feeds, fetches, targets;
  // The gradient: fed the arguments and "dy_<i>", fetching one gradient per argument and
  // capture ("" where none flows).
  std::unique_ptr<Session> backward;
  std::vector<std::string> backward_feeds, backward_fetches;
  NodeDef call_def;  // what a tape's record of a call says it is
};

Function::Function(EagerContext& ctx, std::string name, Body body, FunctionOptions options)
    : ctx_(ctx), name_(std::move(name)), body_(std::move(body)), options_(std::move(options)) {}

Function::~Function() = default;

StatusOr<std::string> Function::SignatureKey(const Scope& scope, const std::vector<FunctionArg>& args) const {
  std::string key = scope.device();
  key.push_back(';');
  size_t tensors = 0;
  const auto& signature = options_.input_signature;
  auto tensor_key = [&](const Output* o, size_t i) -> Status {
    if (o->node == nullptr) return errors::InvalidArgument("Function '", name_, "': argument ", i, " is empty");
    if (!o->is_eager()) {
      return errors::InvalidArgument("Function '", name_, "': argument ", i, " ('", o->name(),
                                     "') is a tensor of a graph; call with eager values");
    }
    DataType dtype = o->type();
    const PartialTensorShape& shape = o->shape();
    if (!signature.empty()) {
      if (tensors >= signature.size()) {
        return errors::InvalidArgument("Function '", name_, "' got more tensor arguments than its input signature's ",
                                       signature.size());
      }
      const TensorSpec& spec = signature[tensors];
      if (spec.dtype != dtype || !spec.shape.IsCompatibleWith(FullShape(shape))) {
        return errors::InvalidArgument("Function '", name_, "': argument ", i, " (", ShapeString(dtype, shape),
                                       ") does not match the input signature's ", ShapeString(spec.dtype, spec.shape));
      }
      AppendTensorKey(spec.dtype, spec.shape, &key);
    } else {
      AppendTensorKey(dtype, shape, &key);
    }
    ++tensors;
    return Status::OK();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const FunctionArg& arg = args[i];
    if (const Output* o = std::get_if<Output>(&arg)) {
      TA_RETURN_IF_ERROR(tensor_key(o, i));
    } else if (const auto* list = std::get_if<std::vector<Output>>(&arg)) {
      key += StrCat("L", list->size(), ":");
      for (const Output& e : *list) TA_RETURN_IF_ERROR(tensor_key(&e, i));
    } else if (const bool* b = std::get_if<bool>(&arg)) {
      key += *b ? "b1;" : "b0;";
    } else if (const int64_t* n = std::get_if<int64_t>(&arg)) {
      key += StrCat("i", *n, ";");
    } else if (const double* d = std::get_if<double>(&arg)) {
      key += StrCat("d", *d, ";");
    } else {
      const std::string& s = std::get<std::string>(arg);
      key += StrCat("s", s.size(), ":", s, ";");
    }
  }
  if (!signature.empty() && tensors != signature.size()) {
    return errors::InvalidArgument("Function '", name_, "' got ", tensors, " tensor arguments; its input signature has ",
                                   signature.size());
  }
  return key;
}

Status Function::TraceError(const Status& s) const {
  return Status(s.code(), StrCat("tracing Function '", name_, "': ", s.message()));
}

Status Function::TraceBody(const Scope& graph, const std::string& device, const std::vector<FunctionArg>& traced_args,
                           TraceState* state, std::vector<Output>* outputs) {
  TraceGuard guard(state);
  std::vector<Output> results = body_(graph.WithDevice(device), traced_args);
  for (size_t i = 0; i < results.size() && graph.ok(); ++i) {
    if (results[i].node == nullptr) return TraceError(errors::InvalidArgument("output ", i, " is empty"));
    // An output may be an eager value the body returned as it was: it is captured.
    outputs->push_back(ops::Identity(graph.WithOpName(StrCat("output_", i)), results[i]));
  }
  return graph.ok() ? Status::OK() : TraceError(graph.status());
}

StatusOr<std::unique_ptr<Function::Concrete>> Function::Trace(const Scope& scope,
                                                               const std::vector<FunctionArg>& args) {
  auto c = std::make_unique<Concrete>();
  TraceState state;
  state.context = &ctx_;
  state.function_name = name_;
  state.may_create_variables = trace_count_ == 0;
  ++trace_count_;
  std::vector<FunctionArg> traced_args = MapTensors(args, [&](const Output& o, size_t k) {
    PartialTensorShape shape = options_.input_signature.empty() ? o.shape() : options_.input_signature[k].shape;
    Output p = ops::Placeholder(c->graph.WithOpName(StrCat("args_", k)), o.type(), shape);
    c->feeds.push_back(p.node->name());
    c->args.push_back(p);
    return p;
  });
  TA_RETURN_IF_ERROR(TraceBody(c->graph, scope.device(), traced_args, &state, &c->outputs));
  for (const Output& out : c->outputs) c->fetches.push_back(out.node->name());
  c->captures = state.captures;

  // Automatic control dependencies, on the GraphDef (the traced graph stays as it was, for
  // the gradient, which must not run the body's side effects again).
  TA_RETURN_IF_ERROR(c->graph.ToGraphDef(&c->graph_def));
  c->targets = ApplyAutomaticControlDeps(*c->graph.graph(), c->outputs, &c->graph_def);
  TA_ASSIGN_OR_RETURN(c->session, Session::New(ctx_.server()));
  Status created = c->session->Create(c->graph_def);
  if (!created.ok()) return TraceError(created);
  return c;
}

StatusOr<Function::Concrete*> Function::ConcreteFor(const Scope& scope, const std::vector<FunctionArg>& args) {
  TA_ASSIGN_OR_RETURN(std::string key, SignatureKey(scope, args));
  auto found = concrete_.find(key);
  if (found != concrete_.end()) return found->second.get();
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Concrete> c, Trace(scope, args));
  if (!warned_retracing_ && trace_count_ >= 5 && 2 * trace_count_ >= call_count_) {
    warned_retracing_ = true;
    std::fprintf(stderr,
                 "Function '%s' has been traced %d times in %lld calls: its signature keeps changing (new "
                 "shapes, dtypes or non-tensor values). An input signature with unknown dimensions, or tensors "
                 "in place of changing C++ values, avoids retracing.\n",
                 name_.c_str(), trace_count_, static_cast<long long>(call_count_));
  }
  Concrete* raw = c.get();
  concrete_.emplace(std::move(key), std::move(c));
  return raw;
}

StatusOr<tensorflow::GraphDef> Function::GraphFor(const Scope& scope, const std::vector<FunctionArg>& args) {
  TA_ASSIGN_OR_RETURN(Concrete* c, ConcreteFor(scope, args));
  return c->graph_def;
}

StatusOr<std::vector<Output>> Function::Captures(const Scope& scope, const std::vector<FunctionArg>& args) {
  TA_ASSIGN_OR_RETURN(Concrete* c, ConcreteFor(scope, args));
  std::vector<Output> eager;
  for (const auto& capture : c->captures) eager.push_back(capture.second);
  return eager;
}

Status Function::BuildBackward(Concrete* c) {
  if (c->backward) return Status::OK();
  // The trace as it was made (no automatic control dependencies: the gradient must not run
  // the body's side effects again), its calls inlined, in a scope of its own.
  tensorflow::GraphDef plain;
  TA_RETURN_IF_ERROR(c->graph.ToGraphDef(&plain));
  TA_ASSIGN_OR_RETURN(Scope g, Scope::FromGraphDef(plain));
  auto find = [&](const Output& traced) -> StatusOr<Output> {
    Node* n = g.graph()->FindNode(traced.node->name());
    if (n == nullptr) return errors::Internal("node '", traced.node->name(), "' is not in the inlined trace");
    return Output(n, traced.index);
  };
  std::vector<Output> ys, xs, dys;
  for (size_t i = 0; i < c->outputs.size(); ++i) {
    TA_ASSIGN_OR_RETURN(Output y, find(c->outputs[i]));
    ys.push_back(y);
    dys.push_back(ops::Placeholder(g.WithOpName(StrCat("dy_", i)), y.type(), y.shape()));
  }
  for (const Output& arg : c->args) {
    TA_ASSIGN_OR_RETURN(Output x, find(arg));
    xs.push_back(x);
  }
  for (const auto& capture : c->captures) {
    TA_ASSIGN_OR_RETURN(Output x, find(capture.first));
    xs.push_back(x);
  }
  std::vector<Output> grads;
  TA_RETURN_IF_ERROR(AddSymbolicGradients(g, ys, xs, dys, &grads));
  c->backward_feeds = c->feeds;
  for (const Output& dy : dys) c->backward_feeds.push_back(dy.node->name());
  for (const Output& grad : grads) c->backward_fetches.push_back(grad.node == nullptr ? "" : grad.name());
  tensorflow::GraphDef def;
  TA_RETURN_IF_ERROR(g.ToGraphDef(&def));
  TA_ASSIGN_OR_RETURN(c->backward, Session::New(ctx_.server()));
  return c->backward->Create(def);
}

StatusOr<std::vector<Output>> Function::CallInGraph(const Scope& scope, const std::vector<FunctionArg>& args) {
  // TensorFlow 2's form: the callee traced into a FunctionDef of the caller's library and
  // a StatefulPartitionedCall of it (ImportGraphDef inlines it again to run it).
  Scope body = Scope::NewRootScope();
  TraceState state;
  state.context = &ctx_;
  state.function_name = name_;
  const TraceState* caller = CurrentTrace();
  state.may_create_variables = caller != nullptr ? caller->may_create_variables : trace_count_ == 0;
  ++trace_count_;
  std::vector<FunctionArg> traced_args;
  std::vector<Input> call_inputs;
  std::vector<std::pair<std::string, DataType>> arg_names;
  tensorflow::AttrValue tin, tout;
  tin.mutable_list();
  tout.mutable_list();
  traced_args = MapTensors(args, [&](const Output& o, size_t k) {
    std::string arg_name = StrCat("args_", k);
    arg_names.emplace_back(arg_name, o.type());
    call_inputs.push_back(o);
    tin.mutable_list()->add_type(o.type());
    return ops::Placeholder(body.WithOpName(arg_name), o.type(), o.shape());
  });
  std::vector<Output> outputs;
  TA_RETURN_IF_ERROR(TraceBody(body, scope.device(), traced_args, &state, &outputs));
  tensorflow::GraphDef def;
  TA_RETURN_IF_ERROR(body.ToGraphDef(&def));
  std::vector<std::string> side_effects = ApplyAutomaticControlDeps(*body.graph(), outputs, &def);
  std::vector<std::string> output_names;
  DataTypeVector output_types;
  for (const Output& out : outputs) {
    output_names.push_back(out.name());
    output_types.push_back(out.type());
    tout.mutable_list()->add_type(out.type());
  }
  // What the body captured becomes arguments too, which the call passes (captured in turn
  // by the caller's trace), as TensorFlow 2 does: so a variable read deep inside is one
  // the caller's gradient reaches.
  for (const auto& [in_body, eager] : state.captures) {
    if (in_body.index != 0) return TraceError(errors::Internal("a capture with more than one output"));
    arg_names.emplace_back(in_body.node->name(), in_body.type());
    call_inputs.push_back(eager);
    tin.mutable_list()->add_type(in_body.type());
  }
  const std::string function_name = FunctionDefName(name_);
  auto f = MakeFunctionDef(def, function_name, arg_names, output_names, output_types, side_effects);
  if (!f.ok()) return TraceError(f.status());
  auto* library = scope.graph()->mutable_library();
  for (const auto& inner : def.library().function()) *library->add_function() = inner;  // its own callees
  *library->add_function() = std::move(f).value();
  tensorflow::AttrValue callee;
  callee.mutable_func()->set_name(function_name);
  Node* call = scope.AddOp("StatefulPartitionedCall", name_, call_inputs, {{"Tin", tin}, {"Tout", tout}, {"f", callee}});
  TA_RETURN_IF_ERROR(scope.status());
  // Its outputs' shapes are the body's (a call's own shape function cannot tell).
  for (size_t i = 0; i < outputs.size(); ++i) call->set_output_shape(static_cast<int>(i), outputs[i].shape());
  return AllOutputs(call);
}

StatusOr<std::vector<Output>> Function::operator()(const Scope& scope, const std::vector<FunctionArg>& args) {
  return (*this)(scope, args, RunOptions(), nullptr);
}

StatusOr<std::vector<Output>> Function::operator()(const Scope& scope, const std::vector<FunctionArg>& args,
                                                   const RunOptions& options, RunMetadata* metadata) {
  if (!scope.is_eager()) return CallInGraph(scope, args);
  ++call_count_;
  TA_ASSIGN_OR_RETURN(Concrete* c, ConcreteFor(scope, args));
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<Output> inputs;  // for a tape: the tensor arguments, then the captures
  for (const Output* o : TensorsOf(args)) {
    TA_ASSIGN_OR_RETURN(Tensor value, ValueOf(*o));
    feeds.emplace_back(c->feeds[feeds.size()], std::move(value));
    inputs.push_back(*o);
  }
  std::vector<Tensor> outs;
  Status ran = c->session->Run(options, feeds, c->fetches, c->targets, &outs, metadata);
  if (!ran.ok()) return Status(ran.code(), StrCat("Function '", name_, "': ", ran.message()));
  DataTypeVector input_types;
  for (const Output& in : inputs) input_types.push_back(in.type());
  std::shared_ptr<EagerNode> call =
      ctx_.MakeOp(CallOpDef(), input_types, std::move(outs), ctx_.host_device());
  std::vector<Output> results = AllOutputs(&call->node());
  if (ctx_.recording()) {
    for (const auto& capture : c->captures) inputs.push_back(capture.second);
    call->gradient = [this, c](const Scope& s, const Node& node, const std::vector<Output>& dy,
                               std::vector<Output>* dx) -> Status {
      TA_RETURN_IF_ERROR(BuildBackward(c));
      const std::vector<Output>& in = node.eager()->inputs;
      std::vector<std::pair<std::string, Tensor>> feeds;
      for (size_t i = 0; i < c->args.size(); ++i) {
        TA_ASSIGN_OR_RETURN(Tensor v, ValueOf(in[i]));
        feeds.emplace_back(c->backward_feeds[i], std::move(v));
      }
      for (size_t i = 0; i < dy.size(); ++i) {
        TA_ASSIGN_OR_RETURN(Tensor v, ValueOf(dy[i]));
        feeds.emplace_back(c->backward_feeds[c->args.size() + i], std::move(v));
      }
      std::vector<std::string> fetches;
      for (const std::string& f : c->backward_fetches) {
        if (!f.empty()) fetches.push_back(f);
      }
      std::vector<Tensor> grads;
      TA_RETURN_IF_ERROR(c->backward->Run(feeds, fetches, {}, &grads));
      size_t next = 0;
      for (size_t j = 0; j < c->backward_fetches.size() && j < dx->size(); ++j) {
        if (c->backward_fetches[j].empty()) continue;
        (*dx)[j] = FromTensor(s.WithDevice(ctx_.host_device()->name()), grads[next++]);
      }
      return s.status();
    };
    c->call_def.set_name(name_);
    c->call_def.set_op("StatefulPartitionedCall");
    ctx_.Record(call, std::move(inputs), &c->call_def);
  }
  return results;
}

StatusOr<std::unique_ptr<GraphFunction>> GraphFunction::New(EagerContext& ctx, const tensorflow::GraphDef& graph,
                                                            std::vector<std::string> inputs,
                                                            std::vector<std::string> outputs) {
  std::unique_ptr<GraphFunction> f(new GraphFunction);
  f->ctx_ = &ctx;
  f->inputs_ = std::move(inputs);
  f->outputs_ = std::move(outputs);
  TA_ASSIGN_OR_RETURN(f->session_, Session::New(ctx.server()));
  TA_RETURN_IF_ERROR(f->session_->Create(graph));
  return f;
}

StatusOr<std::vector<Output>> GraphFunction::operator()(const Scope& scope, const std::vector<Output>& args) {
  if (args.size() != inputs_.size()) {
    return errors::InvalidArgument("a graph function of ", inputs_.size(), " inputs called with ", args.size());
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < args.size(); ++i) {
    TA_ASSIGN_OR_RETURN(Tensor value, ValueOf(args[i]));
    feeds.emplace_back(inputs_[i], std::move(value));
  }
  std::vector<Tensor> outs;
  TA_RETURN_IF_ERROR(session_->Run(feeds, outputs_, {}, &outs));
  std::shared_ptr<EagerNode> call =
      ctx_->MakeOp(CallOpDef(), DataTypeVector(), std::move(outs), ctx_->host_device());
  return AllOutputs(&call->node());
}

}  // namespace tensoract
