// The remapper's fusion of Keras 3's LayerNormalization (over the last axis, with its scale
// and offset) into one _MklLayerNorm node (kernels/cpu/layer_norm_op.cc), as TensorFlow's
// grappler remapper fuses the same pattern for its oneDNN kernel. Keras writes, x's moments
// over its last axis kept as [..., 1]:
//
//   mean = Mean(x, -1)                 variance = Mean(SquaredDifference(x, StopGradient(mean)), -1)
//   m = Rsqrt(variance + epsilon) * gamma
//   y = x * m + (-mean * m + beta)     (gamma and beta reshaped to [1, ..., C])
//
// twelve ops, five of them over the whole tensor, where the fused kernel reads each row once.
// Matched on float CPU nodes of one device, each intermediate value read only by the next
// node of the pattern (see remapper.h); either operand order of every Mul and Add.
#ifndef TENSORACT_GRAPH_OPTIMIZER_LAYER_NORM_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_LAYER_NORM_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// The fusion above, from `mean` (a Mean node): true when it fused.
bool TryFuseLayerNorm(Graph* graph, Node* mean);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_LAYER_NORM_FUSION_H_
