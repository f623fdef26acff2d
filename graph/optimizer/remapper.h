// The remapper: on a placed graph, replaces chains of nodes that run on one CPU device by
// one kernel that does their work in fewer passes over memory:
//   - Identity and IdentityN nodes that only pass values on are removed first (their
//     consumers read the values at the source), so the chains below are seen through them;
//   - a zero Pad of rows and columns goes into the VALID convolution it feeds, as explicit
//     padding (graph/optimizer/pad_folding.h);
//   - Conv2D, DepthwiseConv2dNative or MatMul followed by per-channel steps (BiasAdd, a Mul
//     or Add of a channel vector: Keras 3's batch normalization, an inference
//     FusedBatchNorm) and an activation (Relu, Relu6, Elu, LeakyRelu, Tanh, Sigmoid, or x *
//     sigmoid(x): swish) into _FusedConv2D, _FusedDepthwiseConv2dNative or _FusedMatMul,
//     as TensorFlow's grappler remapper does for its CPU kernels: the steps compose into one
//     multiply-add per channel applied with the activation to each block of output right
//     after it is computed (kernels/cpu/fused_epilogue.h, or oneDNN's post-ops), which saves
//     a pass over the activations per step; a Reshape after a MatMul (Keras' Dense on tokens)
//     or a Squeeze after a convolution (its Conv1D) that keeps the channels is seen through
//     and moves after the fused node;
//   - a pointwise _FusedConv2D that expands the channels and the _FusedDepthwiseConv2dNative
//     it feeds into _FusedConv2DWithDepthwise, tensoract's op, which runs both a band of
//     rows at a time (graph/optimizer/pointwise_depthwise_fusion.h);
//   - MaxPoolGrad -> ReluGrad, where the pool's input is the Relu's output that ReluGrad
//     takes as features (a Relu -> MaxPool layer's gradient), into _MaxPoolGradWithReluGrad,
//     a tensoract op TensorFlow lacks: a window's gradient goes to its maximum only when
//     that maximum is positive, which saves the ReluGrad's pass over the input gradient;
//   - Conv2DBackpropFilter and BiasAddGrad of one output gradient (a conv layer with a
//     bias) into _Conv2DBackpropFilterWithBias, tensoract's op: the bias gradient is summed
//     on the filter gradient's pass over that tensor instead of a pass of its own.
//   - Keras' LayerNormalization (Mean, SquaredDifference, Mean, Rsqrt and the products and
//     sums of its scale and offset) into _MklLayerNorm (graph/optimizer/layer_norm_fusion.h).
//   - Keras' MultiHeadAttention core (Einsum, Mul by the scale, Softmax, Einsum) into
//     _FusedAttention, tensoract's op (graph/optimizer/attention_fusion.h): the scores stay
//     in cache instead of four passes over them in memory.
//   - a recurrent layer's input projection (MatMul of a step read from a TensorList, and
//     its BiasAdd) becomes one BatchMatMulV2 over all steps before the loop, each step
//     reading its row (graph/optimizer/loop_input_products.h);
//   - a Keras LSTM cell's gates (Split into four, three Sigmoid and two Tanh, the products
//     and the sum of the new cell state) into _FusedLstmGates, and a GRU cell's (fifteen
//     nodes) into _FusedGruGates, tensoract's ops (graph/optimizer/recurrent_gates_fusion.h):
//     one kernel in each step of the loop.
//   - a Tile that only broadcasts a SelectV2's condition (a masked recurrent layer's) is
//     dropped: SelectV2 broadcasts it (graph/optimizer/select_broadcast.h);
//   - an embedding bag (Mean over axis 1 of a GatherV2 of a table) into _FusedGatherMean,
//     tensoract's op (graph/optimizer/gather_mean_fusion.h): the gathered rows are summed,
//     never written.
//   - per-channel steps and an activation on a value no product feeds (a pre-activation
//     batch norm and Relu) into _FusedChannelSteps, the same epilogue on its own; and that,
//     where a 1x1 convolution alone reads it (DenseNet's), with the convolution into
//     _FusedChannelStepsConv2D, tensoract's op (graph/optimizer/steps_conv_fusion.h);
//   - a RealDiv or Mul by a scalar after a BroadcastTo (the gradient of Mean) goes before
//     it, on the small tensor (graph/optimizer/broadcast_reorder.h);
//   - what remains of trees of element-wise nodes over one shape, with per-channel vectors
//     and scalars broadcast into it, and a Sum or Mean per channel that may end them (a
//     batch norm's statistics and gradient in training), into _FusedElementwise: one pass
//     a block of rows at a time in cache (graph/optimizer/elementwise_fusion.h).
// The values are the very same as the unfused nodes' for a product with a BiasAdd and a Relu
// on our own kernels; composed per-channel steps, oneDNN's kernels and the fused bias
// gradient round differently (equal up to float rounding).
//
// A node of a chain is fused only when its output goes to the next node of the pattern
// alone (no other consumer, no control edge out, not fetched): the intermediate values must
// not be needed. The fused node takes the last node's name, its consumers and everyone's
// control inputs. Gradients are built before this runs, so the fused ops need none.
#ifndef TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_
#define TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_

#include "graph/graph.h"

namespace tensoract {

struct RemapOptions {
  // Whether an inverted residual block's pointwise and depthwise convolutions (and its
  // projection, where the depthwise output goes to it alone) become one
  // _FusedConv2DWithDepthwise. Off where the activations stay in bfloat16
  // (graph/optimizer/mixed_precision.h): there each convolution runs on oneDNN's bfloat16
  // kernels, reading and writing bfloat16, where the fused node's bands would be float
  // (EfficientNetB0 at batch 1 on a Zen 4: 8.7 against 9.6 ms with its blocks fused).
  bool fuse_pointwise_depthwise = true;
};

// Every fusion above; returns the number of patterns fused.
int Remap(Graph* graph, const RemapOptions& options = {});

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_
