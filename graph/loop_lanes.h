// Lanes: loops of one device that do not depend on each other, run side by side.
//
// A partition runs on one executor actor, one node at a time: its bookkeeping (counting
// inputs, propagating outputs) is serial, and a loop body is dozens of small kernels per
// iteration, nearly all of it bookkeeping. The two directions of a bidirectional RNN are
// two such loops that nothing orders, yet they ran one after the other: bidirectional GRU
// at batch 1 took 1.7x TensorFlow's time, whose executor runs the two on two threads.
// IndependentLoopLanes gives such loops lanes of their own; graph/partition.h cuts the
// lanes apart with _Send/_Recv as it cuts devices apart, and the worker runs each lane on
// an executor of its own, on CAF's scheduler threads beside the first one.
//
// The unit is a top-level loop: a frame entered from the root frame, with every frame
// nested in it, so only root-frame values cross between lanes (the loop's inputs at its
// Enters, its results at its Exits) and nothing crosses per iteration. Loops are taken in
// node order; each one stays in lane 0 unless some loop already there is independent of it
// (no path from either to the other), and then opens a lane of its own. A stacked
// bidirectional RNN (forward A and backward B, then forward C and backward D reading both)
// gets A and C in lane 0, B in lane 1 and D in lane 2. A root-frame node read only by one
// lane's loop (on its device), and what only such nodes read, go to that lane too: a loop's
// weights and the values loop-invariant motion moved out of it
// (graph/optimizer/loop_invariant_motion.h) then cross no lanes.
//
// A loop stays in lane 0 if it is not wholly on one CPU device, if a reference edge enters
// or leaves it (a lane receives values, not references), and every loop does if the graph
// has stacks or TensorFlow 1 TensorArrays (StackV2's and TensorArrayV3's per-step resources
// belong to the one executor that cleans them up).
#ifndef TENSORACT_GRAPH_LOOP_LANES_H_
#define TENSORACT_GRAPH_LOOP_LANES_H_

#include <vector>

#include "base/status.h"
#include "graph/graph.h"

namespace tensoract {

// Fills `lanes` (by node id) with each node's lane on its device: 0 for all but the nodes of
// loops moved to lanes of their own. Errors only for malformed control flow (as
// graph/control_flow.h's BuildControlFlowInfo).
Status IndependentLoopLanes(const Graph& graph, std::vector<int>* lanes);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_LOOP_LANES_H_
