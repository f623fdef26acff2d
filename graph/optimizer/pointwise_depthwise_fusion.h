// The remapper's fusion of an inverted residual block's convolutions (MobileNetV2's,
// EfficientNet's): a pointwise _FusedConv2D that expands the channels (1x1, stride 1, its
// batch norm and activation fused) whose only consumer is a _FusedDepthwiseConv2dNative, and
// the pointwise _FusedConv2D that projects them back where it alone reads the depthwise output:
//
//   _FusedConv2D(x, [1, 1, in, expanded], ...) -> _FusedDepthwiseConv2dNative(., [k, k, expanded, 1], ...)
//     [-> _FusedConv2D(., [1, 1, expanded, out], ..., residual)]
//   =>  _FusedConv2DWithDepthwise(x, pointwise filter and args, depthwise filter and args
//                                 [, projection filter and args])
//
// whose kernel runs them a band of rows at a time, the expanded and filtered bands staying in
// cache (at batch 32 those tensors are most of the network's memory traffic). The values are
// the very same as the nodes' on oneDNN (each convolution is run as it was, on a band).
// Matched where all are float nodes of one CPU device in NHWC without dilation, the first two
// add no residual (no Add in fused_ops), the pointwise filters' shapes are known to be 1x1 and
// the depthwise filter's multiplier is 1. Runs after the product fusions, which make the nodes.
#ifndef TENSORACT_GRAPH_OPTIMIZER_POINTWISE_DEPTHWISE_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_POINTWISE_DEPTHWISE_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// The attrs of the fused node's two convolutions are theirs with these prefixes.
inline constexpr char kPointwiseAttrPrefix[] = "_pointwise_";
inline constexpr char kDepthwiseAttrPrefix[] = "_depthwise_";
inline constexpr char kProjectAttrPrefix[] = "_project_";

// The fusion above, from `pointwise` (a _FusedConv2D): true when it fused.
bool TryFusePointwiseDepthwise(Graph* graph, Node* pointwise);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_POINTWISE_DEPTHWISE_FUSION_H_
