// The gradient of a while loop, as section 4.4 of the whitepaper sketches it: the forward
// loop remembers what the backward loop needs, and the backward loop runs its iterations
// in reverse.
//
// Forward loop F (in frame L), as tf.while_loop builds it, per loop variable k:
//   Enter_k -> Merge_k -> Switch_k(Merge_k, LoopCond) -> :1 body ... -> NextIteration_k
//                                                     -> :0 Exit_k
// and loop invariants (constant Enters). What is added to it (in L and F, marked outside
// any conditional or loop being built, see Scope::MarkOutside):
//   - a counter, one more loop variable that counts the body's iterations: its Exit is N;
//   - per forward tensor v (of F) that the backward body reads: a stack made in L, and in
//     every iteration StackPushV2(stack, v), ordered after the previous iteration's push
//     (the counter's increment waits for the push, the next push for the counter). A push
//     of a dead v (inside a conditional's untaken branch) pushes a dead marker, so pops
//     stay in step and give a dead value back (the `_push_dead` attr; kernels/cpu/
//     stack_ops.cc).
// The backward loop (a new frame, built with ops::WhileLoop) has the loop variables
//   n (from N, down to 0), g_k (the gradient of each float loop variable, from its Exit's
//   gradient), a_j (the summed gradient of each float loop invariant, from zeros)
// and its body is the driver's gradient of one forward iteration (graph/gradients/
// gradients.cc at frame F: from the NextIteration inputs back to the Switch outputs and
// the invariants), with every forward tensor it reads replaced by a pop of that tensor's
// stack (pops ordered by n, as pushes are by the counter), loop invariants read through
// their value outside, and values from L entering as constants. A loop nested in the body
// is differentiated the same way, one level down; its stacks (made in F, once per forward
// iteration) are themselves saved on stacks of F.
//
// Limits: the loop must have tf.while_loop's structure (each non-constant Enter feeds a
// Merge whose other input is a NextIteration, and a Switch on the loop's LoopCond), and
// the body must read its variables through the Switch outputs.
#include "graph/gradients/while_grad.h"

#include <set>

#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace grad {
namespace {

// The loop values that carry gradients: floats, and variants (a TensorList written in the
// loop, whose gradient is a list of its elements' gradients: graph/gradients/list_grad.cc).
bool CarriesGradient(DataType t) {
  switch (BaseType(t)) {
    case tensorflow::DT_VARIANT:
    case tensorflow::DT_FLOAT:
    case tensorflow::DT_DOUBLE:
    case tensorflow::DT_HALF:
    case tensorflow::DT_BFLOAT16:
    case tensorflow::DT_COMPLEX64:
    case tensorflow::DT_COMPLEX128:
      return true;
    default:
      return false;
  }
}

struct LoopVar {
  Node* enter = nullptr;
  Node* merge = nullptr;
  Node* sw = nullptr;
  Node* next = nullptr;
  Node* exit = nullptr;  // may be missing
};

struct Loop {
  int frame = 0;
  std::string name;    // the frame's
  std::string prefix;  // the frame's name without "/while_context": where helper nodes go
  int64_t parallel_iterations = 10;
  Node* loop_cond = nullptr;
  std::vector<LoopVar> vars;
  std::vector<Node*> invariants;
  Output anchor;  // a tensor of L, for the control inputs that put L's new nodes in L
};

Node* DataConsumer(const Node* n, int port, bool (*kind)(const Node&), int input = -1) {
  for (const Edge* e : n->out_edges()) {
    if (e->IsControlEdge() || e->src_output != port || !kind(*e->dst)) continue;
    if (input >= 0 && e->dst_input != input) continue;
    return e->dst;
  }
  return nullptr;
}

Status Unsupported(const Loop& loop, const std::string& why) {
  return errors::Unimplemented("the gradient of while loop '", loop.name, "': ", why,
                               "; only loops with tf.while_loop's structure are differentiated");
}

Status Analyze(const Graph& graph, const GradState& state, int frame, Loop* loop) {
  const ControlFlowInfo::Frame& info = state.cf.frames[frame];
  loop->frame = frame;
  loop->name = info.name;
  loop->parallel_iterations = info.parallel_iterations;
  const std::string suffix = "/while_context";
  loop->prefix = info.name.size() > suffix.size() && info.name.compare(info.name.size() - suffix.size(), suffix.size(),
                                                                        suffix) == 0
                     ? info.name.substr(0, info.name.size() - suffix.size())
                     : info.name;
  for (int id : info.enters) {
    Node* enter = graph.FindNodeId(id);
    bool is_constant = false;
    TA_RETURN_IF_ERROR(GetNodeAttr(enter->def(), "is_constant", &is_constant));
    if (is_constant) {
      loop->invariants.push_back(enter);
      continue;
    }
    LoopVar v;
    v.enter = enter;
    v.merge = DataConsumer(enter, 0, IsMerge);
    if (v.merge == nullptr) return Unsupported(*loop, "Enter '" + enter->name() + "' feeds no Merge");
    for (const Edge* e : v.merge->in_edges()) {
      if (!e->IsControlEdge() && IsNextIteration(*e->src)) v.next = e->src;
    }
    v.sw = DataConsumer(v.merge, 0, IsSwitch, /*input=*/0);
    if (v.next == nullptr || v.sw == nullptr) {
      return Unsupported(*loop, "Merge '" + v.merge->name() + "' lacks its NextIteration or Switch");
    }
    const Edge* pred = v.sw->input_edge(1);
    if (pred == nullptr || !IsLoopCond(*pred->src)) {
      return Unsupported(*loop, "Switch '" + v.sw->name() + "' is not driven by a LoopCond");
    }
    if (loop->loop_cond != nullptr && loop->loop_cond != pred->src) {
      return Unsupported(*loop, "its Switch nodes have different LoopConds");
    }
    loop->loop_cond = pred->src;
    v.exit = DataConsumer(v.sw, 0, IsExit);
    loop->vars.push_back(v);
  }
  if (loop->vars.empty()) return Unsupported(*loop, "it has no loop variables");
  const Edge* in = loop->vars[0].enter->input_edge(0);
  loop->anchor = Output(in->src, in->src_output);
  return Status::OK();
}

bool IsAncestor(const ControlFlowInfo& cf, int ancestor, int frame) {
  for (int f = frame; f >= 0; f = cf.frames[f].parent) {
    if (f == ancestor) return true;
  }
  return false;
}

// Builds one WhileLoopGradient: the forward additions and the backward loop.
class WhileGradBuilder {
 public:
  WhileGradBuilder(const Scope& scope, GradState* state, Loop loop)
      : scope_(scope), state_(state), loop_(std::move(loop)), graph_(scope.graph()),
        // The forward additions, named under the loop's own name scope.
        fwd_(scope.AtRoot().NewSubScope(loop_.prefix + "/gradient_stacks")) {}

  Status Build(const std::map<const Node*, Output>& exit_grads, std::map<const Node*, Output>* enter_grads) {
    TA_RETURN_IF_ERROR(AddCounter());
    // Loop variables and invariants that carry gradients.
    std::vector<int> vars, invariants;
    for (size_t k = 0; k < loop_.vars.size(); ++k) {
      if (CarriesGradient(loop_.vars[k].merge->output_type(0))) vars.push_back(static_cast<int>(k));
    }
    for (size_t j = 0; j < loop_.invariants.size(); ++j) {
      if (CarriesGradient(loop_.invariants[j]->output_type(0))) invariants.push_back(static_cast<int>(j));
    }
    // Initial values: N, the Exits' gradients (zeros where none came), zeros.
    const Scope outer = scope_.WithNoControlDependencies();
    std::vector<Output> init{counter_exit_};
    std::vector<PartialTensorShape> shapes{PartialTensorShape(std::vector<int64_t>{})};
    for (int k : vars) {
      const LoopVar& v = loop_.vars[k];
      auto found = v.exit ? exit_grads.find(v.exit) : exit_grads.end();
      if (found != exit_grads.end()) {
        init.push_back(found->second);
      } else {
        init.push_back(ops::ZerosLike(outer, v.exit ? Output(v.exit, 0) : Output(v.enter, 0)));
      }
      shapes.push_back(v.merge->output_shape(0));
    }
    for (int j : invariants) {
      const Edge* in = loop_.invariants[j]->input_edge(0);
      init.push_back(ops::ZerosLike(outer, Output(in->src, in->src_output)));
      shapes.push_back(loop_.invariants[j]->output_shape(0));
    }
    TA_RETURN_IF_ERROR(scope_.status());

    ops::WhileLoopOptions options;
    options.parallel_iterations = loop_.parallel_iterations;
    options.shape_invariants = shapes;
    options.name = loop_.prefix;
    backward_start_ = graph_->num_node_ids();
    std::vector<Output> out;
    Status built = ops::WhileLoop(
        outer, init,
        [](const Scope& s, const std::vector<Output>& v, Output* pred) {
          *pred = ops::Greater(s, v[0], 0);
          return s.status();
        },
        [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
          return Body(s, v, vars, invariants, next);
        },
        &out, options);
    TA_RETURN_IF_ERROR(built);
    for (size_t i = 0; i < vars.size(); ++i) (*enter_grads)[loop_.vars[vars[i]].enter] = out[1 + i];
    for (size_t i = 0; i < invariants.size(); ++i) {
      (*enter_grads)[loop_.invariants[invariants[i]]] = out[1 + vars.size() + i];
    }
    return scope_.status();
  }

 private:
  // A node added to the forward graph, whose outputs are in `frame`.
  void Added(const Output& o, int frame) {
    if (o.node == nullptr) return;
    scope_.MarkOutside(o.node);
    state_->added_frames[o.node->id()] = frame;
  }
  int L() const { return state_->cf.frames[loop_.frame].parent; }
  // Where new nodes of L go: after the anchor, so that they are in L (not the root) when L
  // is a loop.
  Scope InL() const {
    const Scope s = fwd_.WithNoControlDependencies();
    return L() == 0 ? s : s.WithControlDependencies({loop_.anchor});
  }

  Status AddCounter() {
    const Scope f = fwd_.WithNoControlDependencies();
    Output zero = ops::Const(InL().WithOpName("counter/zero"), 0);
    Added(zero, L());
    Output enter = ops::Enter(f.WithOpName("counter/Enter"), zero, loop_.name, {false, loop_.parallel_iterations});
    Added(enter, loop_.frame);
    Output merge = ops::Merge(f.WithOpName("counter/Merge"), OutputList{enter, enter}).output;
    Added(merge, loop_.frame);
    ops::SwitchOutputs sw = ops::Switch(f.WithOpName("counter/Switch"), merge, Output(loop_.loop_cond, 0));
    Added(sw.output_true, loop_.frame);
    counter_index_ = ops::Identity(f.WithOpName("counter/index"), sw.output_true);
    Added(counter_index_, loop_.frame);
    Output one = ops::Const(f.WithOpName("counter/one").WithControlDependencies({counter_index_}), 1);
    Added(one, loop_.frame);
    counter_increment_ = ops::Add(f.WithOpName("counter/add"), counter_index_, one);
    Added(counter_increment_, loop_.frame);
    Output next = ops::NextIteration(f.WithOpName("counter/NextIteration"), counter_increment_);
    Added(next, loop_.frame);
    counter_exit_ = ops::Exit(f.WithOpName("counter/Exit"), sw.output_false);
    Added(counter_exit_, L());
    TA_RETURN_IF_ERROR(scope_.status());
    graph_->RemoveEdge(merge.node->input_edge(1));
    graph_->AddEdge(next.node, 0, merge.node, 1);
    return Status::OK();
  }

  // The stack a forward tensor of F is saved on, pushed once per forward iteration.
  StatusOr<Output> Stack(const Output& value) {
    const DataType type = BaseType(value.type());
    const Scope f = fwd_.WithNoControlDependencies();
    Output max_size = ops::Const(InL().WithOpName("max_size"), -1);
    Added(max_size, L());
    Output stack = ops::StackV2(InL().WithOpName("stack"), max_size, type, value.node->name());
    Added(stack, L());
    Output enter = ops::Enter(f.WithOpName("stack/Enter"), stack, loop_.name, {true, loop_.parallel_iterations});
    Added(enter, loop_.frame);
    // Live only in the iterations that run the body, not in the one that leaves the loop.
    Output handle = ops::Switch(f.WithOpName("stack/Switch"), enter, Output(loop_.loop_cond, 0)).output_true;
    Added(handle, loop_.frame);
    Output push = ops::StackPushV2(f.WithOpName("push").WithControlDependencies({counter_index_}), handle, value);
    Added(push, loop_.frame);
    TA_RETURN_IF_ERROR(scope_.status());
    (*push.node->mutable_def()->mutable_attr())["_push_dead"].set_b(true);
    graph_->AddControlEdge(push.node, counter_increment_.node);
    return stack;
  }

  Status Body(const Scope& s, const std::vector<Output>& v, const std::vector<int>& vars,
              const std::vector<int>& invariants, std::vector<Output>* next) {
    const Output n = v[0];
    std::vector<Output> ys, xs, grad_ys;
    for (size_t i = 0; i < vars.size(); ++i) {
      const Edge* in = loop_.vars[vars[i]].next->input_edge(0);
      ys.push_back(Output(in->src, in->src_output));
      grad_ys.push_back(v[1 + i]);
      xs.push_back(Output(loop_.vars[vars[i]].sw, 1));
    }
    for (int j : invariants) xs.push_back(Output(loop_.invariants[j], 0));
    const int first = graph_->num_node_ids();
    std::vector<Output> gx;
    TA_RETURN_IF_ERROR(BuildGradientsAt(s, state_, loop_.frame, ys, xs, grad_ys, &gx));
    std::vector<Output> pops;
    TA_RETURN_IF_ERROR(ReadForwardValues(s, n, first, graph_->num_node_ids(), &pops));
    // A gradient that is a forward tensor itself (no node in between) is saved too.
    for (Output& g : gx) {
      if (g.node != nullptr && !IsBackward(g.node) && state_->OutputFrame(*g.node) == loop_.frame) {
        TA_ASSIGN_OR_RETURN(g, Popped(s, n, g, &pops));
      }
    }
    std::vector<Output> control(pops.begin(), pops.end());
    next->push_back(ops::Sub(s.WithControlDependencies(control), n, 1));
    for (size_t i = 0; i < vars.size(); ++i) {
      next->push_back(gx[i].node != nullptr ? gx[i] : ops::ZerosLike(s, v[1 + i]));
    }
    for (size_t i = 0; i < invariants.size(); ++i) {
      const Output& g = gx[vars.size() + i];
      const Output& acc = v[1 + vars.size() + i];
      // AddN: it also adds lists (a TensorList read in every iteration).
      next->push_back(g.node != nullptr ? ops::AddN(s, {acc, g}) : acc);
    }
    return s.status();
  }

  // A node of the backward loop (made by it, not one of the forward graph's).
  bool IsBackward(const Node* n) const { return n->id() >= backward_start_ && !scope_.IsMarkedOutside(n); }

  // Forward tensor `value` (of F) as the backward body reads it: popped from its stack.
  StatusOr<Output> Popped(const Scope& s, const Output& n, const Output& value, std::vector<Output>* pops) {
    auto key = std::make_pair(value.node->id(), value.index);
    auto found = popped_.find(key);
    if (found != popped_.end()) return found->second;
    TA_ASSIGN_OR_RETURN(Output stack, Stack(value));
    Output pop = ops::StackPopV2(s.WithOpName(value.node->name() + "/pop").WithControlDependencies({n}), stack,
                                 BaseType(value.type()));
    TA_RETURN_IF_ERROR(s.status());
    pops->push_back(pop);
    popped_[key] = pop;
    return pop;
  }

  // Rewires the inputs of the backward body's nodes [first, last) that are forward tensors.
  Status ReadForwardValues(const Scope& s, const Output& n, int first, int last, std::vector<Output>* pops) {
    const ControlFlowInfo& cf = state_->cf;
    for (int id = first; id < last; ++id) {
      Node* node = graph_->FindNodeId(id);
      if (node == nullptr || scope_.IsMarkedOutside(node)) continue;
      std::vector<const Edge*> in(node->in_edges().begin(), node->in_edges().end());
      for (const Edge* e : in) {
        Node* src = e->src;
        if (!src->IsOp() || IsBackward(src)) continue;
        const int frame = state_->OutputFrame(*src);
        // Values of L and the frames around it enter the backward loop as they are.
        if (frame < 0 || IsAncestor(cf, frame, L())) continue;
        if (frame != loop_.frame) {
          return errors::Internal("the gradient of while loop '", loop_.name, "' reads '", src->name(),
                                  "', which is inside a loop nested in it");
        }
        if (e->IsControlEdge()) {
          graph_->RemoveEdge(e);  // the order of forward nodes means nothing backwards
          continue;
        }
        const int dst_input = e->dst_input;
        Output replacement;
        bool is_constant = false;
        if (IsEnter(*src) && GetNodeAttr(src->def(), "is_constant", &is_constant).ok() && is_constant) {
          // A loop invariant: its value outside, which enters the backward loop as one.
          const Edge* outside = src->input_edge(0);
          replacement = Output(outside->src, outside->src_output);
        } else {
          TA_ASSIGN_OR_RETURN(replacement, Popped(s, n, Output(src, e->src_output), pops));
        }
        graph_->RemoveEdge(e);
        graph_->AddEdge(replacement.node, replacement.index, node, dst_input);
      }
    }
    return s.status();
  }

  Scope scope_;
  GradState* state_;
  Loop loop_;
  Graph* graph_;
  Scope fwd_;
  Output counter_index_, counter_increment_, counter_exit_;
  int backward_start_ = 0;
  std::map<std::pair<int, int>, Output> popped_;
};

}  // namespace

Status WhileLoopGradient(const Scope& scope, GradState* state, int frame, const std::map<const Node*, Output>& exit_grads,
                         std::map<const Node*, Output>* enter_grads) {
  Loop loop;
  TA_RETURN_IF_ERROR(Analyze(*scope.graph(), *state, frame, &loop));
  return WhileGradBuilder(scope, state, std::move(loop)).Build(exit_grads, enter_grads);
}

}  // namespace grad
}  // namespace tensoract
