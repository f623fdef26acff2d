// Inside the gradients pass: the state one AddSymbolicGradients call shares between the
// backpropagation driver (gradients.cc) and the gradient of while loops (while_grad.cc),
// which call each other for loops nested in loops.
//
// The driver works one frame (loop) at a time: a loop nested in the frame it works on is
// a single unit whose inputs are the tensors its Enter nodes take and whose outputs are
// its Exit nodes'. WhileLoopGradient builds the backward loop for such a unit (section 4.4
// of the whitepaper): it adds to the forward loop a counter of its iterations and stacks
// for the values the backward loop needs, and builds a loop that runs as many iterations,
// backwards, each the driver's gradient of one iteration of the forward body.
#ifndef TENSORACT_GRAPH_GRADIENTS_WHILE_GRAD_H_
#define TENSORACT_GRAPH_GRADIENTS_WHILE_GRAD_H_

#include <map>
#include <vector>

#include "graph/builder/scope.h"
#include "graph/control_flow.h"

namespace tensoract {
namespace grad {

struct GradState {
  ControlFlowInfo cf;      // of the graph when the call started
  bool has_loops = false;
  // Nodes the pass added to the forward graph (counters, stacks, pushes), by id: the frame
  // their outputs are in.
  std::map<int, int> added_frames;

  // The frame `n`'s outputs are in, or -1 for a node the pass added to compute gradients.
  int OutputFrame(const Node& n) const;
};

// Fills grad_xs with d(sum ys . grad_ys)/d(xs), working at frame `level` (0: the root).
Status BuildGradientsAt(const Scope& scope, GradState* state, int level, const std::vector<Output>& ys,
                        const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                        std::vector<Output>* grad_xs);

// The gradient of the loop of frame `frame` (state->cf's numbering): `exit_grads` has the
// gradient of some of its Exit nodes' outputs; `enter_grads` gets the gradient of the
// tensors its Enter nodes take (loop variables' initial values and loop invariants), for
// those that have one.
Status WhileLoopGradient(const Scope& scope, GradState* state, int frame, const std::map<const Node*, Output>& exit_grads,
                         std::map<const Node*, Output>* enter_grads);

}  // namespace grad
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_GRADIENTS_WHILE_GRAD_H_
