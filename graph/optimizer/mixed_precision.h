// Products in bfloat16, opted into per session (GraphOptimizerOptions::bfloat16_products):
// marks every float Conv2D, _FusedConv2D, MatMul and _FusedMatMul placed on a CPU (but an
// LSTM cell's, read by its _FusedLstmGates) with the attr "_bfloat16_products" = true (and _FusedConv2DWithDepthwise and
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

#include <functional>

#include "graph/graph.h"

namespace tensoract {

// The attrs the kernels read.
inline constexpr char kBfloat16ProductsAttr[] = "_bfloat16_products";
inline constexpr char kInt8ProductsAttr[] = "_int8_products";
// On a Cast of a weight into a bfloat16 region: its output is kept while its input is
// unchanged (kernels/cpu/cast_cache.h).
inline constexpr char kReuseUnchangedInputAttr[] = "_reuse_while_input_unchanged";

// Marks the nodes above; returns how many.
int MarkBfloat16Products(Graph* graph);

// Products in 8-bit integers, opted into per session (GraphOptimizerOptions::int8_products):
// marks every float Conv2D and _FusedConv2D placed on a CPU with "_int8_products" = true
// (and _FusedChannelStepsConv2D, whose 1x1 convolution then takes it). Their kernels then
// quantize the filter per output channel and the input per call and convolve on oneDNN's
// integer kernels where the CPU has them (AVX2 or later), the rest of the node in float
// (kernels/cpu/int8_products.h). Grouped and depthwise convolutions stay float, and so does
// _FusedConv2DWithDepthwise: its kernel takes the attr (each band quantized on its own), but
// MobileNetV2 ran no faster with it (Zen 3: 12.2 against 11.1 ms at batch 1, 204 against
// 202 at batch 32), its 1x1 convolutions being small next to the quantization of each band.
// Returns how many nodes were marked.
int MarkInt8Products(Graph* graph);

// Activations in bfloat16 too (GraphOptimizerOptions::bfloat16_activations), after
// MarkBfloat16Products: TensorFlow's auto_mixed_precision_onednn_bfloat16 rewrite, and
// what OpenVINO's bfloat16 precision hint does. A marked _FusedConv2D becomes a bfloat16
// node (T = bfloat16: oneDNN reads and writes bfloat16, sums and post-ops in float,
// kernels/cpu/conv_bfloat16_op.cc), a marked _FusedChannelStepsConv2D too (DenseNet's
// pre-activation in float on each band, kernels/cpu/steps_conv_op.cc), and so does each node of the ops that only move or
// combine activations between convolutions (Pad, MaxPool, AvgPool, Relu, Relu6, AddV2, Add,
// Identity, ConcatV2, and a squeeze-and-excitation's Mean, Reshape and Mul) whose data
// input comes from a bfloat16 node. A
// _FusedDepthwiseConv2dNative joins too, as the grouped convolution it is (its filter
// reshaped, one group per channel), so that MobileNet's and EfficientNet's blocks stay in
// bfloat16 from one pointwise convolution to the next (the remapper then leaves them unfused:
// RemapOptions::fuse_pointwise_depthwise). Casts join the bfloat16
// region to the float graph on every edge that crosses (a node with no bfloat16 neighbour
// stays float: two Casts would cost more than it gains); a Cast of a weight (a variable's
// value or a constant) is marked kReuseUnchangedInputAttr, so the weights are cast once.
// Where ResNet-class networks are memory-bound (a 1x1 convolution of 64 channels on AMX
// waits on its input and output), halving the bytes of every activation is the gain; each
// layer's output is rounded to bfloat16 (8 significant bits), as OpenVINO's are.
// `has_kernel` says whether a NodeDef (its T changed to bfloat16) has a CPU kernel. Returns
// how many nodes became bfloat16.
int KeepActivationsInBfloat16(Graph* graph, const std::function<bool(const NodeDef&)>& has_kernel);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_MIXED_PRECISION_H_
