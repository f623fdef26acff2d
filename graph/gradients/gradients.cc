#include "graph/gradients/gradients.h"

#include <deque>
#include <map>

#include "graph/builder/attr_util.h"
#include "graph/builder/math_ops.h"
#include "graph/gradients/gradient_registry.h"
#include "graph/gradients/while_grad.h"

namespace tensoract {
namespace grad {
namespace {

using Key = std::pair<int, int>;  // (node id, output index)

// The sum of the gradients that reached one tensor: itself, or their AddN.
Output SumGradients(const Scope& scope, const std::vector<Output>& grads) {
  if (grads.size() == 1) return grads[0];
  return ops::AddN(scope, grads);
}

// Gradients flow along floating-point (and resource: a variable's handle) tensors only, as
// in TensorFlow: never along a bool predicate or an integer index.
bool Differentiable(DataType t) {
  switch (BaseType(t)) {
    case tensorflow::DT_BOOL:
    case tensorflow::DT_INT8:
    case tensorflow::DT_INT16:
    case tensorflow::DT_INT32:
    case tensorflow::DT_INT64:
    case tensorflow::DT_UINT8:
    case tensorflow::DT_UINT16:
    case tensorflow::DT_UINT32:
    case tensorflow::DT_UINT64:
    case tensorflow::DT_STRING:
      return false;
    default:
      return true;
  }
}

// The graph as the driver sees it at one frame: nodes of that frame are units of their
// own, each loop nested in it is one unit (its Enter nodes, its frames, its Exit nodes),
// and everything else is left out. Edges are the data edges between units that carry a
// differentiable tensor; a loop's back edges (out of NextIteration) are left out.
class Units {
 public:
  struct UEdge {
    int src, dst;
    const Edge* edge;
  };

  Units(const Graph& graph, const GradState& state, int level) : state_(state), level_(level) {
    num_ids_ = graph.num_node_ids();
    const int num_units = num_ids_ + static_cast<int>(state.cf.frames.size());
    in_.resize(num_units);
    out_.resize(num_units);
    exits_.resize(state.cf.frames.size());
    for (Node* n : graph.op_nodes()) {
      const int u = Of(*n);
      if (u < 0) continue;
      if (IsLoop(u) && IsExit(*n) && state.cf.frame_of[n->id()] == LoopFrame(u)) exits_[LoopFrame(u)].push_back(n);
      if (u < num_ids_ && IsNextIteration(*n)) continue;
      for (const Edge* e : n->out_edges()) {
        if (e->IsControlEdge() || !Differentiable(n->output_type(e->src_output))) continue;
        const int v = Of(*e->dst);
        if (v < 0 || v == u) continue;
        in_[v].push_back(edges_.size());
        out_[u].push_back(edges_.size());
        edges_.push_back({u, v, e});
      }
    }
  }

  int size() const { return static_cast<int>(in_.size()); }
  bool IsLoop(int u) const { return u >= num_ids_; }
  int LoopFrame(int u) const { return u - num_ids_; }

  // The unit of a node, or -1 when it is outside the frame (or was added by the pass).
  int Of(const Node& n) const {
    if (!n.IsOp() || n.id() >= static_cast<int>(state_.cf.frame_of.size())) return -1;
    if (!state_.has_loops) return n.id();
    // An Enter belongs to the loop it enters.
    int f = IsEnter(n) ? state_.cf.enters[n.id()] : state_.cf.frame_of[n.id()];
    if (f == level_) return n.id();
    while (f >= 0 && state_.cf.frames[f].parent != level_) f = state_.cf.frames[f].parent;
    return f < 0 ? -1 : num_ids_ + f;
  }

  // The Exit nodes of the loop unit u.
  const std::vector<Node*>& Exits(int u) const { return exits_[LoopFrame(u)]; }
  const std::vector<size_t>& In(int u) const { return in_[u]; }
  const std::vector<size_t>& Out(int u) const { return out_[u]; }
  const UEdge& edge(size_t i) const { return edges_[i]; }

 private:
  const GradState& state_;
  int level_;
  int num_ids_ = 0;
  std::vector<UEdge> edges_;
  std::vector<std::vector<size_t>> in_, out_;
  std::vector<std::vector<Node*>> exits_;  // by frame
};

std::vector<bool> Reachable(const Units& units, const std::vector<int>& start, bool backwards) {
  std::vector<bool> seen(units.size(), false);
  std::deque<int> queue;
  for (int u : start) {
    if (!seen[u]) queue.push_back(u);
    seen[u] = true;
  }
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (size_t i : backwards ? units.In(u) : units.Out(u)) {
      const int next = backwards ? units.edge(i).src : units.edge(i).dst;
      if (seen[next]) continue;
      seen[next] = true;
      queue.push_back(next);
    }
  }
  return seen;
}

// As tf.gradients: each input's gradient must have a shape compatible with the input's
// (as far as both are known), else the graph is refused. A gradient function can only get
// that wrong for an op whose inputs its kernel would refuse (SigmoidGrad of [3,1] and [3]:
// the gradient broadcasts to [3,3]).
bool Compatible(const PartialTensorShape& a, const PartialTensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return true;
  if (a.dims() != b.dims()) return false;
  for (int d = 0; d < a.dims(); ++d) {
    if (a.dim_size(d) >= 0 && b.dim_size(d) >= 0 && a.dim_size(d) != b.dim_size(d)) return false;
  }
  return true;
}

Status CheckGradientShapes(const Node& n, const std::vector<Output>& dx) {
  for (int i = 0; i < n.num_inputs(); ++i) {
    const Edge* e = n.input_edge(i);
    if (dx[i].node == nullptr || dx[i].is_eager() || e == nullptr) continue;
    if (e->src->output_type(e->src_output) == tensorflow::DT_RESOURCE) continue;
    const PartialTensorShape& in = e->src->output_shape(e->src_output);
    const PartialTensorShape& grad = dx[i].shape();
    if (!Compatible(in, grad)) {
      return errors::InvalidArgument("Incompatible shapes between op input and calculated input gradient. Forward "
                                     "operation: ", n.name(), ". Input index: ", i, ". Original input shape: ",
                                     in.DebugString(), ". Calculated input gradient shape: ", grad.DebugString());
    }
  }
  return Status::OK();
}

}  // namespace

int GradState::OutputFrame(const Node& n) const {
  if (n.id() < static_cast<int>(cf.frame_of.size())) return has_loops ? cf.OutputFrame(n) : 0;
  auto it = added_frames.find(n.id());
  return it == added_frames.end() ? -1 : it->second;
}

Status BuildGradientsAt(const Scope& grad_scope, GradState* state, int level, const std::vector<Output>& ys,
                        const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                        std::vector<Output>* grad_xs) {
  const Scope& scope = grad_scope;
  if (ys.size() != grad_ys.size()) {
    return errors::InvalidArgument("AddSymbolicGradients: ", ys.size(), " ys but ", grad_ys.size(), " grad_ys");
  }
  for (const auto* list : {&ys, &xs, &grad_ys}) {
    for (const Output& o : *list) {
      if (o.node == nullptr) return errors::InvalidArgument("AddSymbolicGradients: a y, x or grad_y has no node");
    }
  }
  TA_RETURN_IF_ERROR(scope.status());
  Graph* graph = scope.graph();
  // Computed before any gradient node is added, so the new nodes never count.
  const Units units(*graph, *state, level);
  auto unit_of = [&](const Output& o, const char* what) -> StatusOr<int> {
    const int u = units.Of(*o.node);
    if (u < 0 || units.IsLoop(u)) {
      return errors::Unimplemented("AddSymbolicGradients: ", what, " '", o.name(),
                                   "' is inside a while loop; differentiate with respect to the loop's inputs "
                                   "and outputs instead");
    }
    return u;
  };
  std::vector<int> y_units, x_units;
  for (const Output& y : ys) {
    // A y may be a loop's Exit: its unit is the loop.
    const int u = units.Of(*y.node);
    if (u < 0) TA_RETURN_IF_ERROR(unit_of(y, "y").status());
    y_units.push_back(u);
  }
  for (const Output& x : xs) {
    TA_ASSIGN_OR_RETURN(int u, unit_of(x, "x"));
    x_units.push_back(u);
  }
  // The units on some path from an x to a y: only their gradients are needed.
  const std::vector<bool> reaches_y = Reachable(units, y_units, /*backwards=*/true);
  const std::vector<bool> from_x = Reachable(units, x_units, /*backwards=*/false);
  auto relevant = [&](int u) { return reaches_y[u] && from_x[u]; };

  // A unit is ready to pass gradients back once every relevant consumer has.
  std::vector<int> pending(units.size(), 0);
  for (int u = 0; u < units.size(); ++u) {
    if (!relevant(u)) continue;
    for (size_t i : units.Out(u)) pending[u] += relevant(units.edge(i).dst) ? 1 : 0;
  }
  std::map<Key, std::vector<Output>> grads;
  for (size_t i = 0; i < ys.size(); ++i) grads[{ys[i].node->id(), ys[i].index}].push_back(grad_ys[i]);
  std::deque<int> ready;
  std::vector<bool> queued(units.size(), false);
  for (int u : y_units) {
    if (relevant(u) && pending[u] == 0 && !queued[u]) {
      queued[u] = true;
      ready.push_back(u);
    }
  }
  auto summed = [&](const Node* n, int o) -> Output {
    auto it = grads.find({n->id(), o});
    return it == grads.end() || it->second.empty() ? Output() : SumGradients(grad_scope, it->second);
  };

  while (!ready.empty()) {
    const int u = ready.front();
    ready.pop_front();
    // Only a unit with an input on some path from an x passes gradients on (an x itself,
    // a placeholder say, is where they stop).
    bool inputs_need_gradients = false;
    for (size_t i : units.In(u)) inputs_need_gradients |= relevant(units.edge(i).src);
    // The gradient for each in-edge's tensor, by edge.
    std::map<size_t, Output> dx_of_edge;
    if (units.IsLoop(u)) {
      std::map<const Node*, Output> exit_grads, enter_grads;
      for (const Node* exit : units.Exits(u)) {
        Output g = summed(exit, 0);
        if (g.node != nullptr) exit_grads[exit] = g;
      }
      if (!exit_grads.empty() && inputs_need_gradients) {
        TA_RETURN_IF_ERROR(WhileLoopGradient(grad_scope, state, units.LoopFrame(u), exit_grads, &enter_grads));
        for (size_t i : units.In(u)) {
          auto found = enter_grads.find(units.edge(i).edge->dst);
          if (found != enter_grads.end()) dx_of_edge[i] = found->second;
        }
      }
    } else {
      Node* n = graph->FindNodeId(u);
      // The gradient of each output: the sum of what reached it, zeros where nothing did.
      std::vector<Output> dy(n->num_outputs());
      bool any = false;
      for (int o = 0; o < n->num_outputs(); ++o) {
        dy[o] = summed(n, o);
        any |= dy[o].node != nullptr;
      }
      if (any && inputs_need_gradients) {
        GradFunc fn;
        Status found = GradientRegistry::Global()->Lookup(n->type_string(), &fn);
        if (!found.ok()) return found.WithContext(StrCat("node '", n->name(), "' lies between ys and xs"));
        if (fn) {
          const Scope op_scope = grad_scope.NewSubScope(n->name() + "_grad");
          for (int o = 0; o < n->num_outputs(); ++o) {
            if (dy[o].node == nullptr) dy[o] = ops::TypedOp(op_scope, "ZerosLike", {Output(n, o)});
          }
          std::vector<Output> dx(n->num_inputs());
          TA_RETURN_IF_ERROR(fn(op_scope, *n, dy, &dx));
          TA_RETURN_IF_ERROR(op_scope.status());
          if (static_cast<int>(dx.size()) != n->num_inputs()) {
            return errors::Internal("the gradient of op ", n->type_string(), " gave ", dx.size(),
                                    " input gradients for node '", n->name(), "' with ", n->num_inputs(), " inputs");
          }
          TA_RETURN_IF_ERROR(CheckGradientShapes(*n, dx));
          for (size_t i : units.In(u)) dx_of_edge[i] = dx[units.edge(i).edge->dst_input];
        }
      }
    }
    for (size_t i : units.In(u)) {
      const Units::UEdge& ue = units.edge(i);
      if (!relevant(ue.src)) continue;
      auto dx = dx_of_edge.find(i);
      if (dx != dx_of_edge.end() && dx->second.node != nullptr) {
        grads[{ue.edge->src->id(), ue.edge->src_output}].push_back(dx->second);
      }
      if (--pending[ue.src] == 0 && !queued[ue.src]) {
        queued[ue.src] = true;
        ready.push_back(ue.src);
      }
    }
  }

  grad_xs->clear();
  for (const Output& x : xs) grad_xs->push_back(summed(x.node, x.index));
  return scope.status();
}

Status BuildGradients(const Scope& grad_scope, const std::vector<Output>& ys, const std::vector<Output>& xs,
                      const std::vector<Output>& grad_ys, std::vector<Output>* grad_xs) {
  GradState state;
  Graph* graph = grad_scope.graph();
  bool has_control_flow = false;
  for (Node* n : graph->op_nodes()) has_control_flow |= IsControlFlow(*n);
  if (has_control_flow) {
    TA_RETURN_IF_ERROR(BuildControlFlowInfo(*graph, &state.cf));
    state.has_loops = state.cf.HasLoops();
  } else {
    state.cf.frame_of.assign(graph->num_node_ids(), 0);
  }
  return BuildGradientsAt(grad_scope, &state, /*level=*/0, ys, xs, grad_ys, grad_xs);
}

}  // namespace grad

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys, const std::vector<Output>& xs,
                            const std::vector<Output>& grad_ys, std::vector<Output>* grad_xs) {
  return grad::BuildGradients(scope.NewSubScope("gradients"), ys, xs, grad_ys, grad_xs);
}

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys, const std::vector<Output>& xs,
                            std::vector<Output>* grad_xs) {
  const Scope grad_scope = scope.NewSubScope("gradients");
  std::vector<Output> ones;
  for (const Output& y : ys) {
    if (y.node == nullptr) return errors::InvalidArgument("AddSymbolicGradients: a y has no node");
    ones.push_back(ops::TypedOp(grad_scope, "OnesLike", {y}));
  }
  TA_RETURN_IF_ERROR(scope.status());
  return grad::BuildGradients(grad_scope, ys, xs, ones, grad_xs);
}

}  // namespace tensoract
