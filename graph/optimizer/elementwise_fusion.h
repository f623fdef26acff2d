// Regions of element-wise nodes into one _FusedElementwise node (graph/ops/math_ops.cc), a
// remapper pass (graph/optimizer/remapper.h).
//
// TensorFlow's gradient of a batch norm in training (Keras 3 writes moments, then
// x * scale + shift) is about ten full-size nodes a layer: the input gradient is
//   AddN(dy * scale, BroadcastTo(a, Shape(x)), 2 * BroadcastTo(b, Shape(x)) * (x - mean)),
// and the statistics Mean(SquaredDifference(x, mean)) and Sum(x * dy). Each node reads and
// writes a whole activation; a ResNet50 training step spent ~150 ms of kernel time on them.
// A region here is a tree of Mul, Add, AddV2, Sub, RealDiv, SquaredDifference, Neg and AddN
// nodes (and BroadcastTo of a per-channel vector) whose values feed only the next node of
// the tree; its leaves are full tensors, per-channel vectors (one value per element of the
// last dimension) and scalar constants. It becomes one node that runs the tree a block of
// rows at a time in cache, and, where the tree ends in a Sum or Mean over every dimension but
// the last, sums it per channel on the same pass.
//
// Also here: the shape of an element-wise result is the shape of its operand when the other
// operand only broadcasts into it (a vector or scalar), so Shape(SquaredDifference(x, mean))
// reads Shape(x): the gradient's Shape nodes would otherwise keep the full-size value alive
// only for its shape, and it could not join a region.
//
// Done on one CPU device, float only, after the other remapper passes. Values are the
// unfused nodes' bit for bit, but for the per-channel sums (another order of additions).
#ifndef TENSORACT_GRAPH_OPTIMIZER_ELEMENTWISE_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_ELEMENTWISE_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// Rewires each Shape node that reads an element-wise result whose shape is provably one
// operand's to read that operand (see above). Returns how many it rewired.
int ShapesFromOperands(Graph* graph);

// Fuses the region that ends at `root` (an element-wise node, or a Sum or Mean over all
// dimensions but the last) into one _FusedElementwise node. Returns whether the graph
// changed: not when the region has one node, or when `root` feeds a node that would take
// it into a larger region.
bool TryFuseElementwiseRegion(Graph* graph, Node* root);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_ELEMENTWISE_FUSION_H_
