#include "graph/builder/control_flow.h"

#include <map>

#include "graph/builder/attr_util.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace ops {
namespace {

// What a conditional branch or a loop body does with the tensors its nodes read from
// outside: it routes each through one new node (a Switch, an Enter), made once per tensor
// and named after its first consumer.
class Context {
 public:
  using RouteFn = std::function<Output(const Scope& at, const Output& outside, const std::string& consumer)>;
  // Nodes with ids below `boundary` are outside; `pivot` is what nodes without data
  // inputs depend on; with `move_controls`, control inputs from outside move to
  // `control_targets` (a loop's Enter nodes) instead.
  Context(const Scope& scope, int boundary, Output pivot, RouteFn route, bool move_controls,
          std::vector<Node*> control_targets)
      : scope_(scope), boundary_(boundary), pivot_(pivot), route_(std::move(route)),
        move_controls_(move_controls), control_targets_(std::move(control_targets)) {}

  bool IsOutside(const Node* n) const { return n->IsOp() && (n->id() < boundary_ || scope_.IsMarkedOutside(n)); }

  // `t` as seen inside: routed when it is from outside.
  Output Inside(const Output& t, const std::string& consumer) {
    if (t.node == nullptr || !IsOutside(t.node)) return t;
    auto key = std::make_pair(t.node->id(), t.index);
    auto found = routed_.find(key);
    if (found != routed_.end()) return found->second;
    // As tf.colocate_with: the route goes where the tensor is, whatever the scope's device.
    Output r = route_(scope_.AtRoot().WithDevice(""), t, consumer);
    routed_[key] = r;
    return r;
  }

  // Rewires the nodes with ids in [first, last), made by a branch or body function.
  Status Capture(int first, int last) {
    Graph* g = scope_.graph();
    for (int id = first; id < last; ++id) {
      Node* n = g->FindNodeId(id);
      if (n == nullptr || scope_.IsMarkedOutside(n)) continue;
      std::vector<const Edge*> in(n->in_edges().begin(), n->in_edges().end());
      // A node with an input from inside (data, or control from a nested pivot) is placed
      // by it; the others hang off the pivot.
      bool has_inside_input = false;
      for (const Edge* e : in) {
        if (!IsOutside(e->src)) {
          has_inside_input |= e->src->IsOp();
          continue;
        }
        Node* src = e->src;
        if (e->IsControlEdge()) {
          if (!move_controls_) continue;
          g->RemoveEdge(e);
          for (Node* target : control_targets_) g->AddControlEdge(src, target);
          continue;
        }
        const int src_output = e->src_output, dst_input = e->dst_input;
        Output r = Inside(Output(src, src_output), n->name());
        TA_RETURN_IF_ERROR(scope_.status());
        g->RemoveEdge(e);
        g->AddEdge(r.node, r.index, n, dst_input);
        has_inside_input = true;
      }
      if (!has_inside_input && pivot_.node != nullptr) g->AddControlEdge(pivot_.node, n);
    }
    return scope_.status();
  }

 private:
  Scope scope_;
  int boundary_;
  Output pivot_;
  RouteFn route_;
  bool move_controls_;
  std::vector<Node*> control_targets_;
  std::map<std::pair<int, int>, Output> routed_;
};

std::string Types(const std::vector<Output>& v) {
  std::string out;
  for (const Output& o : v) out += StrCat(out.empty() ? "" : ", ", DataTypeString(BaseType(o.type())));
  return "[" + out + "]";
}

Status Fail(const Scope& scope, Status s) {
  scope.UpdateStatus(s);
  return s;
}

}  // namespace

Status Cond(const Scope& scope, const Output& pred, const BranchFn& then_fn, const BranchFn& else_fn,
            std::vector<Output>* outputs) {
  outputs->clear();
  TA_RETURN_IF_ERROR(scope.status());
  if (pred.node == nullptr) return Fail(scope, errors::InvalidArgument("Cond: the predicate is an empty output"));
  Graph* g = scope.graph();
  const Scope s = scope.NewSubScope("cond");
  const Scope inner = s.WithNoControlDependencies();
  const int boundary = g->num_node_ids();
  // The structure of tf.cond: Switch(pred, pred) gives each branch a pivot that is live
  // only when the branch is taken; pred_id is what the branches' Switches test.
  SwitchOutputs sw = Switch(s, pred, pred);
  Output switch_t = Identity(inner.WithOpName("switch_t"), sw.output_true);
  Output switch_f = Identity(inner.WithOpName("switch_f"), sw.output_false);
  Output pred_id = Identity(inner.WithOpName("pred_id"), pred);
  TA_RETURN_IF_ERROR(scope.status());

  std::vector<Output> branch_out[2];
  const BranchFn* fns[2] = {&else_fn, &then_fn};
  const Output pivots[2] = {switch_f, switch_t};
  for (int taken : {1, 0}) {
    Context ctx(s, boundary, pivots[taken],
                [&, taken](const Scope& at, const Output& outside, const std::string& consumer) {
                  SwitchOutputs r = Switch(at.ColocateWith(outside).WithOpName(consumer + "/Switch"), outside, pred_id);
                  return taken ? r.output_true : r.output_false;
                },
                /*move_controls=*/false, {});
    const int first = g->num_node_ids();
    Status built = (*fns[taken])(inner, &branch_out[taken]);
    if (!built.ok()) return Fail(scope, built);
    TA_RETURN_IF_ERROR(scope.status());
    const int last = g->num_node_ids();
    TA_RETURN_IF_ERROR(ctx.Capture(first, last));
    for (Output& o : branch_out[taken]) {
      if (o.node == nullptr) {
        return Fail(scope, errors::InvalidArgument("Cond '", s.name_prefix(), "': the ", taken ? "then" : "else",
                                                   " branch returned an empty output"));
      }
      o = ctx.Inside(o, StrCat(s.name_prefix(), "/output"));
    }
    TA_RETURN_IF_ERROR(scope.status());
  }
  if (branch_out[0].size() != branch_out[1].size() || Types(branch_out[0]) != Types(branch_out[1])) {
    return Fail(scope, errors::InvalidArgument("Cond '", s.name_prefix(), "': the then branch returns ",
                                               Types(branch_out[1]), " but the else branch returns ",
                                               Types(branch_out[0]), "; both must return the same dtypes"));
  }
  // Merge([else, then]), as tf.cond orders them.
  for (size_t k = 0; k < branch_out[0].size(); ++k) {
    outputs->push_back(Merge(inner, OutputList{branch_out[0][k], branch_out[1][k]}).output);
  }
  return scope.status();
}

Status WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars, const CondFn& cond, const BodyFn& body,
                 std::vector<Output>* outputs, const WhileLoopOptions& options) {
  outputs->clear();
  TA_RETURN_IF_ERROR(scope.status());
  if (loop_vars.empty()) return Fail(scope, errors::InvalidArgument("WhileLoop needs at least one loop variable"));
  for (const Output& v : loop_vars) {
    if (v.node == nullptr) return Fail(scope, errors::InvalidArgument("WhileLoop: a loop variable is an empty output"));
  }
  if (!options.shape_invariants.empty() && options.shape_invariants.size() != loop_vars.size()) {
    return Fail(scope, errors::InvalidArgument("WhileLoop: ", loop_vars.size(), " loop variables but ",
                                               options.shape_invariants.size(), " shape invariants"));
  }
  Graph* g = scope.graph();
  const Scope s = scope.NewSubScope(options.name.empty() ? "while" : options.name);
  const Scope inner = s.WithNoControlDependencies();
  const std::string frame = s.name_prefix() + "/while_context";
  const int boundary = g->num_node_ids();
  const size_t n = loop_vars.size();

  std::vector<Output> enters, merges;
  for (size_t k = 0; k < n; ++k) {
    // A variable (a reference) is read once as it enters, as tf.while_loop converts it.
    Output v = IsRefType(loop_vars[k].type()) ? Identity(s, loop_vars[k]) : loop_vars[k];
    enters.push_back(Enter(s, v, frame, {/*is_constant=*/false, options.parallel_iterations}));
  }
  TA_RETURN_IF_ERROR(scope.status());
  std::vector<Node*> enter_nodes;
  for (const Output& e : enters) enter_nodes.push_back(e.node);
  for (size_t k = 0; k < n; ++k) {
    // Input 1 becomes the NextIteration once the body exists.
    merges.push_back(Merge(inner, OutputList{enters[k], enters[k]}).output);
    TA_RETURN_IF_ERROR(scope.status());
    if (!options.shape_invariants.empty()) {
      const PartialTensorShape& inv = options.shape_invariants[k];
      if (!shape_inference::InferenceContext::Compatible(inv, enters[k].shape())) {
        return Fail(scope, errors::InvalidArgument("WhileLoop '", s.name_prefix(), "': loop variable ", k,
                                                   " has shape ", enters[k].shape().DebugString(),
                                                   ", which does not fit its shape invariant ", inv.DebugString()));
      }
      merges[k].node->set_output_shape(0, inv);
    }
  }
  auto invariant = [&](const Scope& at, const Output& outside, const std::string& consumer) {
    return Enter(at.ColocateWith(outside).WithOpName(consumer + "/Enter"), outside, frame,
                 {/*is_constant=*/true, options.parallel_iterations});
  };

  // The condition, in the loop: its pivot is the first Merge.
  Context cond_ctx(s, boundary, merges[0], invariant, /*move_controls=*/true, enter_nodes);
  Output pred;
  int first = g->num_node_ids();
  Status built = cond(inner, merges, &pred);
  if (!built.ok()) return Fail(scope, built);
  TA_RETURN_IF_ERROR(scope.status());
  TA_RETURN_IF_ERROR(cond_ctx.Capture(first, g->num_node_ids()));
  if (pred.node == nullptr) {
    return Fail(scope, errors::InvalidArgument("WhileLoop '", s.name_prefix(), "': the condition returned no output"));
  }
  pred = cond_ctx.Inside(pred, s.name_prefix() + "/LoopCond");
  if (BaseType(pred.type()) != tensorflow::DT_BOOL) {
    return Fail(scope, errors::InvalidArgument("WhileLoop '", s.name_prefix(), "': the condition returned a ",
                                               DataTypeString(BaseType(pred.type())), " tensor; it must be bool"));
  }
  Output loop_cond = LoopCond(inner, pred);
  std::vector<SwitchOutputs> switches;
  std::vector<Output> identities;
  for (size_t k = 0; k < n; ++k) switches.push_back(Switch(inner.ColocateWith(merges[k]), merges[k], loop_cond));
  for (size_t k = 0; k < n; ++k) identities.push_back(Identity(inner, switches[k].output_true));
  TA_RETURN_IF_ERROR(scope.status());

  // The body: its pivot is the first loop variable's Identity.
  Context body_ctx(s, boundary, identities[0], invariant, /*move_controls=*/true, enter_nodes);
  std::vector<Output> next;
  first = g->num_node_ids();
  built = body(inner, identities, &next);
  if (!built.ok()) return Fail(scope, built);
  TA_RETURN_IF_ERROR(scope.status());
  TA_RETURN_IF_ERROR(body_ctx.Capture(first, g->num_node_ids()));
  if (next.size() != n) {
    return Fail(scope, errors::InvalidArgument("WhileLoop '", s.name_prefix(), "': the body got ", n,
                                               " loop variables but returned ", next.size()));
  }
  for (size_t k = 0; k < n; ++k) {
    if (next[k].node == nullptr) {
      return Fail(scope, errors::InvalidArgument("WhileLoop '", s.name_prefix(), "': the body returned an empty ",
                                                 "output for loop variable ", k));
    }
    next[k] = body_ctx.Inside(next[k], s.name_prefix() + "/NextIteration");
    if (BaseType(next[k].type()) != BaseType(merges[k].type())) {
      return Fail(scope, errors::InvalidArgument("WhileLoop '", s.name_prefix(), "': loop variable ", k, " is ",
                                                 DataTypeString(BaseType(merges[k].type())),
                                                 " but the body returned ", DataTypeString(BaseType(next[k].type()))));
    }
    if (!shape_inference::InferenceContext::Compatible(next[k].shape(), merges[k].shape())) {
      return Fail(scope, errors::InvalidArgument(
                             "WhileLoop '", s.name_prefix(), "': loop variable ", k, " enters the loop with shape ",
                             merges[k].shape().DebugString(), " but has shape ", next[k].shape().DebugString(),
                             " after one iteration; to let its shape change between iterations, give it a "
                             "shape invariant (WhileLoopOptions::shape_invariants)"));
    }
  }
  TA_RETURN_IF_ERROR(scope.status());
  for (size_t k = 0; k < n; ++k) {
    Output next_iteration = NextIteration(inner, next[k]);
    TA_RETURN_IF_ERROR(scope.status());
    const Edge* back = merges[k].node->input_edge(1);
    g->RemoveEdge(back);
    g->AddEdge(next_iteration.node, 0, merges[k].node, 1);
  }
  for (size_t k = 0; k < n; ++k) outputs->push_back(Exit(inner, switches[k].output_false));
  return scope.status();
}

}  // namespace ops
}  // namespace tensoract
