// Sequential loops: a loop of one CPU device whose body is plain computation becomes one
// _SequentialLoop node (graph/ops/control_flow_ops.cc), whose kernel
// (kernels/cpu/sequential_loop_op.cc) runs the iterations one after another, each node of
// an iteration straight after the one before.
//
// Why: the executor runs a loop node by node through its frames, so each iteration also
// costs its Merge, Switch, Identity and NextIteration for every loop variable, and the
// bookkeeping of each node (pending counts, dead inputs, the iteration's slots). A Keras
// LSTM's iteration is ~35 nodes, of which three or four compute anything: at batch 1 the
// step was the executor's, not the kernels'. TensorFlow runs small functions the same way
// (its single-threaded executor, for tf.data).
//
// A loop (a frame, graph/control_flow.h) is taken when:
//   - it is entered from the root frame and holds no loop of its own;
//   - it has TensorFlow's while_loop shape: one LoopCond; per loop variable an Enter, a Merge
//     of it and a NextIteration, a Switch of the Merge on the LoopCond whose false output
//     goes only to Exits; loop invariants enter through constant Enters;
//   - every other node of it is on the same CPU device as its Enters, has a CPU kernel
//     (`has_cpu_kernel`), is stateless or one of the resource variable ops (a random op's
//     kernel keeps its state per node, which one kernel of the loop's own would not), and
//     takes no reference;
//   - nothing outside reads a node of it but through an Exit, and it has an Exit.
// Everything else (nested loops, a conditional inside the body, _Send/_Recv, queues) stays
// with the executor, which runs any loop.
//
// What the nodes do is unchanged: an iteration runs the nodes the body's Switch outputs
// do not reach (the condition, and what reads only the invariants) whether or not the loop
// goes on, as the executor does, and the body's nodes only when it does. What changes is
// what a trace or RunMetadata shows (one node for the whole loop) and parallel_iterations
// (iterations never overlap).
#ifndef TENSORACT_GRAPH_OPTIMIZER_SEQUENTIAL_LOOPS_H_
#define TENSORACT_GRAPH_OPTIMIZER_SEQUENTIAL_LOOPS_H_

#include <functional>

#include "graph/graph.h"

namespace tensoract {

// Replaces each loop described above by one _SequentialLoop node; returns how many.
int FuseSequentialLoops(Graph* graph, const std::function<bool(const Node&)>& has_cpu_kernel);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_SEQUENTIAL_LOOPS_H_
