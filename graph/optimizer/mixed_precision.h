// Products in bfloat16, opted into per session (GraphOptimizerOptions::bfloat16_products):
// marks every float Conv2D, _FusedConv2D, MatMul and _FusedMatMul placed on a CPU with the
// attr "_bfloat16_products" = true (and _FusedConv2DWithDepthwise and
// _FusedChannelStepsConv2D, whose 1x1 convolutions then take it). Their kernels then round
// both operands to bfloat16 and multiply on the CPU's bfloat16 units (AVX512-BF16, AMX) where
// it has them, keeping the sums, the fused epilogue and every tensor in float
// (kernels/cpu/bfloat16_products.h).
//
// This is TensorFlow's auto_mixed_precision_onednn_bfloat16 rewrite (RewriterConfig) done
// inside the kernels: TensorFlow changes the nodes' T to bfloat16 and inserts Casts around
// them, so activations between layers are stored in bfloat16 too; here no Cast nodes, no
// bfloat16 kernels for the other ops, and only the products' operands lose precision. As
// OpenVINO's INFERENCE_PRECISION_HINT, an inference option: a training graph's forward
// products would be rounded while its gradients are not.
//
// Runs after the remapper (so that fused nodes are marked), on the placed graph.
#ifndef TENSORACT_GRAPH_OPTIMIZER_MIXED_PRECISION_H_
#define TENSORACT_GRAPH_OPTIMIZER_MIXED_PRECISION_H_

#include "graph/graph.h"

namespace tensoract {

// The attr the kernels read.
inline constexpr char kBfloat16ProductsAttr[] = "_bfloat16_products";

// Marks the nodes above; returns how many.
int MarkBfloat16Products(Graph* graph);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_MIXED_PRECISION_H_
