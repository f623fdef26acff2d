// The remapper's fusion of a pre-activation into the 1x1 convolution it feeds (DenseNet's:
// each layer's batch norm and Relu on the whole concatenated block so far, then a 1x1
// convolution; its transitions' too):
//
//   _FusedChannelSteps(x, ...) -> Conv2D or _FusedConv2D(., [1, 1, depth, out], ...)
//   =>  _FusedChannelStepsConv2D(x, step args, filter, args)
//
// whose kernel applies the steps to a band of rows in cache and convolves it there: the
// activated tensor, as large as the block, is never written and read back. The values are
// the very same as the two nodes' (the steps' arithmetic is theirs; the convolution runs on
// oneDNN as it would alone). Matched where both are float nodes of one CPU device, the
// steps add no tensor (no Add), and the convolution is NHWC, 1x1 (its filter's shape known)
// of stride 1 without dilation or a residual Add, into 16 channels or more (what oneDNN runs
// unfused too). Runs after the channel-steps fusion, which makes the first node.
#ifndef TENSORACT_GRAPH_OPTIMIZER_STEPS_CONV_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_STEPS_CONV_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// The attrs of the fused node's two parts are theirs with these prefixes.
inline constexpr char kStepsAttrPrefix[] = "_steps_";
inline constexpr char kConvAttrPrefix[] = "_conv_";

// The fusion above, from `steps` (a _FusedChannelSteps): true when it fused.
bool TryFuseStepsIntoConvolution(Graph* graph, Node* steps);

// Then the concatenation the fused node reads, along the channels, when nothing else reads
// it (DenseNet's block so far, once graph/optimizer/concat_flattening.h has made each
// block's concatenations read the pieces):
//
//   _FusedChannelStepsConv2D(ConcatV2(p1, ..., pn, 3 or -1), ...)
//   =>  _FusedChannelStepsConv2D(p1, ..., pn, ...)   (num_pieces = n)
//
// whose kernel copies each band's pixels from the pieces: the concatenation is never written.
bool TryFuseConcatIntoStepsConvolution(Graph* graph, Node* steps_conv);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_STEPS_CONV_FUSION_H_
