// The remapper's folding of a zero Pad into the convolution it feeds: Keras writes
// ZeroPadding2D before a strided convolution with "valid" padding (EfficientNet's and
// MobileNetV2's strided depthwise layers, ResNet's 7x7 stem), a pass that copies the whole
// activation into a larger buffer (EfficientNetB0 at batch 32: 33 ms of 343 a step). The
// convolution pads as it reads instead:
//
//   Pad(x, [[0, 0], [t, b], [l, r], [0, 0]]) -> Conv2D / DepthwiseConv2dNative (VALID, NHWC)
//   =>  the convolution of x with padding EXPLICIT, explicit_paddings [0, 0, t, b, l, r, 0, 0]
//
// The values are the very same: the padded taps were zeros either way. Matched where the
// Pad (or PadV2 with a constant 0) has constant, non-negative paddings of the rows and
// columns only, its output goes to the convolution alone, and both are float nodes of one
// CPU device. It runs before the product fusions, which carry the explicit padding over
// (_FusedDepthwiseConv2dNative takes it here: graph/ops/nn_depthwise_ops.cc).
#ifndef TENSORACT_GRAPH_OPTIMIZER_PAD_FOLDING_H_
#define TENSORACT_GRAPH_OPTIMIZER_PAD_FOLDING_H_

#include "graph/graph.h"

namespace tensoract {

// The folding above, from `convolution` (a Conv2D or DepthwiseConv2dNative): true when the
// Pad went into it.
bool TryFoldPadIntoConvolution(Graph* graph, Node* convolution);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_PAD_FOLDING_H_
