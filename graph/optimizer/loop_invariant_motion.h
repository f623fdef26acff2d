// Loop-invariant code motion: what a loop's body computes the same way in every iteration
// is computed once, before the loop, and enters it as a loop invariant.
//
// A tf.function's loop body reads its weights inside the loop: a Keras GRU cell reads three
// variables, splits its bias and squeezes the halves, and every constant of the body
// (slice bounds, split axes, element shapes) is a node that runs once per iteration, gated by
// the loop's pivot. In a bidirectional GRU that is 20 of the body's 60 nodes, each a kernel
// call and its bookkeeping, 128 times a step. TensorFlow's grappler has this pass
// (LoopOptimizer's loop-invariant node motion) but leaves it off; here it is on, with the
// rules that keep it exact:
//   - a node moves when every data input is a loop invariant (a constant Enter of its
//     frame) or a node that moves, and every control input is one of those or the loop's
//     own gate (the pivot, an Identity of a loop Switch's true output, or a loop Merge):
//     nothing else orders it within an iteration;
//   - it is stateless, or a ReadVariableOp in a graph where no op writes any resource (so
//     every iteration would read the same value), without reference or variant values
//     (a TensorList is built anew each iteration, as the body wrote it);
//   - no control-flow node consumes it: a NextIteration fed by an always-live invariant
//     would start one iteration more;
//   - only top-level loops (a frame entered from the root frame), to the root frame.
// Each moved value enters the loop through one new constant Enter; a moved Const is
// colocated with its Enter (`_class`), so it stays on the Enter's device and lane
// (graph/loop_lanes.h) and shape functions that need its value find it through the Enter
// (graph/eval_const_tensor.cc sees through constant Enters).
// A consumer left in the loop with no input from it any more (its only inputs moved)
// gets a control edge from the gate its moved inputs had, so it stays dead when the loop
// ends, as before.
#ifndef TENSORACT_GRAPH_OPTIMIZER_LOOP_INVARIANT_MOTION_H_
#define TENSORACT_GRAPH_OPTIMIZER_LOOP_INVARIANT_MOTION_H_

#include "graph/graph.h"

namespace tensoract {

// Moves every loop-invariant node of `graph`'s top-level loops out of its loop (see
// above). Returns whether the graph changed; a graph whose control flow is malformed is
// left alone.
bool HoistLoopInvariants(Graph* graph);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_LOOP_INVARIANT_MOTION_H_
