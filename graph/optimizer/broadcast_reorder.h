// A scalar step before a broadcast, not after it: RealDiv(BroadcastTo(a, shape), c) becomes
// BroadcastTo(RealDiv(a, c), shape), and Mul likewise, for a scalar c.
//
// TensorFlow's gradient of Mean is exactly that chain: the small gradient broadcast to the
// input's shape, then divided by the count. A Keras batch norm in training takes two means a
// layer, so a ResNet50 step wrote 107 full-size tensors only to divide them (15 ms of its
// ~600 on two cores). Each element is the same division of the same two values either way,
// so the results are bit for bit the same.
//
// Done where the broadcast's only consumer is the step, both on one CPU device (after
// placement, as a remapper pass: graph/optimizer/remapper.h), and c's shape is known to be a
// scalar. The step keeps its name's consumers: they now read the broadcast.
#ifndef TENSORACT_GRAPH_OPTIMIZER_BROADCAST_REORDER_H_
#define TENSORACT_GRAPH_OPTIMIZER_BROADCAST_REORDER_H_

#include "graph/graph.h"

namespace tensoract {

// Reorders `step` (a RealDiv or Mul) with the BroadcastTo at its input 0 (see above).
// Returns whether the graph changed.
bool TryScaleBeforeBroadcast(Graph* graph, Node* step);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_BROADCAST_REORDER_H_
