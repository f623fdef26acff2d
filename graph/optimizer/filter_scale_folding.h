// A fused convolution's leading per-channel multiply folded into its constant filter.
//
// A Keras batch norm after a convolution becomes, once its variables are frozen
// (actors/frozen_variables.h), a multiply and an add per output channel, which the remapper
// fused into the convolution as its steps ChannelMul and BiasAdd. The kernel then composed
// the two every call and kept the filter times the scale (kernels/cpu/onednn_conv.h),
// comparing the scale's values each call: ~2.5% of a batch-1 MobileNetV2 step's executor
// thread. Where the filter and the scale are both constants, this pass gives the
// convolution the filter Cast<T>(Cast<float>(filter) * scale) instead and drops the step;
// constant folding then computes that product once. It is the value the kernel computed:
// the filter widened to float, times the float scale, rounded once to the filter's type.
#ifndef TENSORACT_GRAPH_OPTIMIZER_FILTER_SCALE_FOLDING_H_
#define TENSORACT_GRAPH_OPTIMIZER_FILTER_SCALE_FOLDING_H_

#include <cstdint>

#include "graph/graph.h"

namespace tensoract {

// For each NHWC _FusedConv2D or _MklNativeFusedConv2D (HWIO filter) whose first fused step
// is ChannelMul, whose filter and ChannelMul arg are Consts and whose filter in float takes
// at most `max_float_filter_bytes` (the constant folder's limit, so that the product does
// fold): the filter input becomes the scaled filter's Cast and Mul nodes, and the step
// goes. Returns how many convolutions changed; the caller constant-folds after.
int FoldChannelMulIntoFilters(Graph* graph, int64_t max_float_filter_bytes);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_FILTER_SCALE_FOLDING_H_
