// The remapper's fusion of an inverted residual block's first two convolutions (MobileNetV2's,
// EfficientNet's): a pointwise _FusedConv2D that expands the channels (1x1, stride 1, its
// batch norm and activation fused) whose only consumer is a _FusedDepthwiseConv2dNative:
//
//   _FusedConv2D(x, [1, 1, in, expanded], ...) -> _FusedDepthwiseConv2dNative(., [k, k, expanded, 1], ...)
//   =>  _FusedConv2DWithDepthwise(x, pointwise filter and args, depthwise filter and args)
//
// whose kernel runs both a band of rows at a time, the expanded band staying in cache
// (at batch 32 the expanded tensors are most of the network's memory traffic). The values
// are the very same as the two nodes' on oneDNN (each convolution is run as it was, on a band).
// Matched where both are float nodes of one CPU device in NHWC without dilation, neither
// adds a residual (no Add in fused_ops), the pointwise filter's shape is known to be 1x1 and
// the depthwise filter's multiplier is 1. Runs after the product fusions, which make both nodes.
#ifndef TENSORACT_GRAPH_OPTIMIZER_POINTWISE_DEPTHWISE_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_POINTWISE_DEPTHWISE_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// The attrs of the fused node's two convolutions are theirs with these prefixes.
inline constexpr char kPointwiseAttrPrefix[] = "_pointwise_";
inline constexpr char kDepthwiseAttrPrefix[] = "_depthwise_";

// The fusion above, from `pointwise` (a _FusedConv2D): true when it fused.
bool TryFusePointwiseDepthwise(Graph* graph, Node* pointwise);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_POINTWISE_DEPTHWISE_FUSION_H_
