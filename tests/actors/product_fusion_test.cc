// The remapper's fusion of a product with what real models put after it (graph/optimizer/
// remapper.h, kernels/cpu/fused_epilogue.h): Keras 3's batch normalization (Mul and AddV2
// of channel vectors), TensorFlow 1's FusedBatchNormV3 in inference, BiasAdd, a residual's
// Add, and the activations (Relu6, swish, LeakyRelu, GELU), on Conv2D (oneDNN's kernel where
// it is built in), DepthwiseConv2dNative and MatMul, across a Dense layer's Reshape and a
// Conv1D's Squeeze. Each graph runs with the remapper on and off: the fused ops replace the
// chains, and the values agree up to float rounding (the per-channel steps compose into one
// multiply-add, oneDNN sums in its own order); Identity and IdentityN in the way are seen
// through; a batch norm and Relu on their own into _FusedChannelSteps (with the 1x1
// convolution after them into _FusedChannelStepsConv2D), an inverted residual block's
// convolutions into _FusedConv2DWithDepthwise, DenseNet's concatenations read in pieces, a
// scalar division after a BroadcastTo (the gradient of Mean) before it, a batch norm's
// training statistics into _FusedElementwise. What must not fuse (a Mul by a whole tensor, a
// batch norm in training, a value read elsewhere) is left alone. The fusions of transformer,
// recurrent and text layers are in sequence_fusion_test.cc.
//
// Then the cache of oneDNN's reordered filters: a filter that changes between runs, in a
// resource variable (copy-on-write) or in a ref variable (written in place), is used as it
// is now.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_batch_norm_ops.h"
#include "graph/builder/nn_depthwise_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/fusion_test_util.h"

namespace tensoract {
namespace {

using testing::CheckClose;
using testing::Filled;
using testing::Has;
using testing::InputTensor;
using testing::Ran;
using testing::RunGraph;
using testing::Values;

TEST_CASE("the remapper fuses batch norms, biases and activations into Conv2D, depthwise and MatMul, with the "
          "unfused values") {
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({2, 9, 9, 16}));
    // Keras 3: Conv2D, BiasAdd, then BatchNormalization as x * a + b, Relu6.
    auto conv = ops::Conv2D(s.WithOpName("conv"), x, Filled(s, {3, 3, 16, 32}, 0.7f), {1, 1, 1, 1}, "SAME");
    auto biased = ops::BiasAdd(s.WithOpName("biased"), conv, Filled(s, {32}, 0.3f));
    auto scaled = ops::Mul(s.WithOpName("scaled"), biased, Filled(s, {1, 1, 1, 32}, 0.9f, 1.f));
    auto shifted = ops::AddV2(s.WithOpName("shifted"), Filled(s, {1, 1, 1, 32}, 1.1f), scaled);
    ops::Relu6(s.WithOpName("relu6"), shifted);
    // TensorFlow 1: a strided Conv2D without bias, FusedBatchNormV3 in inference, Relu.
    ops::FusedBatchNormAttrs inference;
    inference.is_training = false;
    inference.epsilon = 0.001f;
    auto conv2 = ops::Conv2D(s.WithOpName("conv2"), x, Filled(s, {3, 3, 16, 24}, 0.5f), {1, 2, 2, 1}, "VALID");
    auto bn = ops::FusedBatchNormV3(s.WithOpName("bn"), conv2, Filled(s, {24}, 0.2f, 1.f), Filled(s, {24}, 0.4f),
                                    Filled(s, {24}, 0.6f), Filled(s, {24}, 0.8f, 1.f), inference);
    ops::Relu(s.WithOpName("bn_relu"), bn.y);
    // EfficientNet: a depthwise convolution, batch norm, swish (x * sigmoid(x)).
    auto dw = ops::DepthwiseConv2dNative(s.WithOpName("dw"), x, Filled(s, {3, 3, 16, 1}, 0.45f), {1, 1, 1, 1},
                                         "SAME");
    auto dw_scaled = ops::Mul(s.WithOpName("dw_scaled"), dw, Filled(s, {1, 1, 1, 16}, 0.25f, 1.f));
    auto dw_shifted = ops::AddV2(s.WithOpName("dw_shifted"), dw_scaled, Filled(s, {1, 1, 1, 16}, 0.15f));
    ops::Mul(s.WithOpName("swish"), dw_shifted, ops::Sigmoid(s.WithOpName("gate"), dw_shifted));
    // Keras' swish: x * sigmoid(1 * x), after a Conv2D and its BiasAdd.
    auto conv5 = ops::Conv2D(s.WithOpName("conv5"), x, Filled(s, {3, 3, 16, 16}, 0.65f), {1, 1, 1, 1}, "SAME");
    auto conv5_biased = ops::BiasAdd(s.WithOpName("conv5_biased"), conv5, Filled(s, {16}, 0.55f));
    auto beta_x = ops::Mul(s.WithOpName("beta_x"), ops::Const(s, 1.f), conv5_biased);
    ops::Mul(s.WithOpName("keras_swish"), conv5_biased, ops::Sigmoid(s.WithOpName("keras_gate"), beta_x));
    // ResNet's residual: Conv2D, BiasAdd, Keras' batch norm, + a shortcut branch, Relu.
    auto shortcut = ops::Conv2D(s.WithOpName("shortcut"), x, Filled(s, {1, 1, 16, 16}, 0.85f), {1, 1, 1, 1}, "SAME");
    auto conv6 = ops::Conv2D(s.WithOpName("conv6"), x, Filled(s, {1, 1, 16, 16}, 0.75f), {1, 1, 1, 1}, "SAME");
    auto conv6_bn = ops::Mul(s.WithOpName("conv6_bn"), ops::BiasAdd(s, conv6, Filled(s, {16}, 0.25f)),
                             Filled(s, {1, 1, 1, 16}, 0.35f, 1.f));
    ops::Relu(s.WithOpName("residual_relu"), ops::AddV2(s.WithOpName("residual"), conv6_bn, shortcut));
    // A dense layer: MatMul, BiasAdd, LeakyRelu.
    tensorflow::TensorProto flat_shape;
    Tensor::FromVector<int32_t>({2, 9 * 9 * 16}).AsProtoTensorContent(&flat_shape);
    auto flat = ops::Reshape(s, x, ops::Const(s, flat_shape));
    auto mm = ops::MatMul(s.WithOpName("mm"), flat, Filled(s, {9 * 9 * 16, 10}, 0.05f));
    ops::LeakyRelu(s.WithOpName("leaky"), ops::BiasAdd(s.WithOpName("mm_biased"), mm, Filled(s, {10}, 0.9f)), 0.3f);
    // Not fusable: a Mul by a whole tensor, a batch norm in training.
    auto conv3 = ops::Conv2D(s.WithOpName("conv3"), x, Filled(s, {1, 1, 16, 16}, 0.35f), {1, 1, 1, 1}, "SAME");
    ops::Mul(s.WithOpName("times_x"), conv3, x);
    auto conv4 = ops::Conv2D(s.WithOpName("conv4"), x, Filled(s, {1, 1, 16, 16}, 0.15f), {1, 1, 1, 1}, "SAME");
    ops::FusedBatchNormV3(s.WithOpName("bn_training"), conv4, Filled(s, {16}, 0.2f, 1.f), Filled(s, {16}, 0.4f),
                          Filled(s, {0}, 0.f), Filled(s, {0}, 0.f));
  });
  const std::vector<std::string> fetches = {"relu6", "bn_relu", "swish", "leaky", "times_x", "bn_training",
                                            "keras_swish", "residual_relu"};
  const Ran fused = RunGraph(graph, true, {{"x", InputTensor({2, 9, 9, 16})}}, fetches);
  const Ran apart = RunGraph(graph, false, {{"x", InputTensor({2, 9, 9, 16})}}, fetches);
  for (size_t i = 0; i < fetches.size(); ++i) {
    INFO(fetches[i]);
    CheckClose(fused.values[i], apart.values[i]);
  }
  CHECK(Has(fused.ops, "_FusedConv2D:relu6"));
  CHECK_FALSE(Has(fused.ops, "Mul:scaled"));
  CHECK(Has(fused.ops, "_FusedConv2D:bn_relu"));
  CHECK_FALSE(Has(fused.ops, "FusedBatchNormV3:bn"));
  CHECK(Has(fused.ops, "_FusedDepthwiseConv2dNative:swish"));
  CHECK_FALSE(Has(fused.ops, "Sigmoid:gate"));
  CHECK(Has(fused.ops, "_FusedMatMul:leaky"));
  CHECK(Has(fused.ops, "_FusedConv2D:keras_swish"));
  CHECK(Has(fused.ops, "_FusedConv2D:residual_relu"));
  CHECK_FALSE(Has(fused.ops, "AddV2:residual"));
  CHECK_FALSE(Has(fused.ops, "Sigmoid:keras_gate"));
  CHECK(Has(fused.ops, "Conv2D:conv3"));
  CHECK(Has(fused.ops, "Mul:times_x"));
  CHECK(Has(fused.ops, "Conv2D:conv4"));
  CHECK(Has(fused.ops, "FusedBatchNormV3:bn_training"));
  CHECK(Has(apart.ops, "Conv2D:conv"));
  int clipped = 0;
  for (float v : fused.values[0]) clipped += v == 0.f || v == 6.f;
  CHECK(clipped > 0);  // the Relu6 did clip
}

TEST_CASE("the gradient of Mean divides before it broadcasts, to the bit; a divisor of many values is left alone") {
  // TensorFlow's Mean gradient: BroadcastTo(Reshape(g), shape(x)) / count.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto g = ops::Placeholder(s.WithOpName("g"), tensorflow::DT_FLOAT, PartialTensorShape({1, 1, 1, 8}));
    auto shape = ops::Const(s, {4, 3, 5, 8});
    ops::RealDiv(s.WithOpName("mean_grad"), ops::BroadcastTo(s.WithOpName("spread"), g, shape), ops::Const(s, 60.f));
    ops::RealDiv(s.WithOpName("by_many"),
                 ops::BroadcastTo(s.WithOpName("spread_too"), ops::Reshape(s, g, ops::Const(s, {1, 1, 1, 8})),
                                  ops::Const(s, {2, 3, 5, 8})),
                 Filled(s, {2, 3, 5, 8}, 0.11f, 2.f));
  });
  const Ran reordered = RunGraph(graph, true, {{"g", InputTensor({1, 1, 1, 8})}}, {"mean_grad", "by_many"});
  const Ran apart = RunGraph(graph, false, {{"g", InputTensor({1, 1, 1, 8})}}, {"mean_grad", "by_many"});
  REQUIRE(reordered.values[0].size() == 4 * 3 * 5 * 8);
  CHECK(reordered.values[0] == apart.values[0]);
  CHECK(reordered.values[1] == apart.values[1]);
  // The division now reads the small tensor, and the broadcast reads the division; the
  // division by a whole tensor still reads the broadcast.
  REQUIRE(Has(reordered.ops, "RealDiv:mean_grad"));
  CHECK(reordered.inputs.at("mean_grad").at(0) == "_arg_g");  // the feed
  CHECK(reordered.inputs.at("spread").at(0) == "mean_grad");
  CHECK(apart.inputs.at("mean_grad").at(0) == "spread");
  // The division by a whole tensor is a region with its broadcast (elementwise_fusion.h).
  CHECK(Has(reordered.ops, "_FusedElementwise:by_many"));
  CHECK_FALSE(Has(reordered.ops, "BroadcastTo:spread_too"));
}

// What TensorFlow's gradient tape writes for a Keras 3 batch norm in training, over an input
// of unknown batch: the moments, and the gradients of the input and of the scale.
void BatchNormTrainingGraph(const Scope& s) {
  // (A feed's shape is unknown in the step's graph; a Reshape gives it a rank, as a layer would.)
  auto x = ops::Reshape(s, ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT), ops::Const(s, {-1, 4, 5, 8}));
  auto dy = ops::Reshape(s, ops::Placeholder(s.WithOpName("dy"), tensorflow::DT_FLOAT), ops::Const(s, {-1, 4, 5, 8}));
  auto axes = ops::Const(s, {0, 1, 2});
  auto mean = ops::Mean(s.WithOpName("mean"), x, axes, {true});
  auto held = ops::StopGradient(s.WithOpName("held"), mean);
  auto squared = ops::SquaredDifference(s.WithOpName("squared"), x, held);
  ops::Mean(s.WithOpName("variance"), squared, axes, {true});
  auto scale = Filled(s, {8}, 0.7f, 1.f);
  auto a = Filled(s, {1, 1, 1, 8}, 0.3f);
  auto b = Filled(s, {1, 1, 1, 8}, 0.9f);
  auto spread_a = ops::BroadcastTo(s.WithOpName("spread_a"), a, ops::Shape(s.WithOpName("shape_x"), x));
  auto spread_b = ops::BroadcastTo(s.WithOpName("spread_b"), b, ops::Shape(s.WithOpName("shape_sq"), squared));
  // The gradient of SquaredDifference: 2 (under a control edge from its input) times ...
  auto two = ops::Const(s.WithOpName("two").WithControlDependencies({spread_b}), 2.f);
  auto centred = ops::Sub(s.WithOpName("centred").WithControlDependencies({spread_b}), x, held);
  auto var_term = ops::Mul(s.WithOpName("var_term"), ops::Mul(s.WithOpName("doubled"), two, spread_b), centred);
  ops::AddN(s.WithOpName("dx"), {ops::Mul(s.WithOpName("scaled"), dy, scale), spread_a, var_term});
  ops::Sum(s.WithOpName("dscale"), ops::Mul(s.WithOpName("x_dy"), x, dy), axes);
}

TEST_CASE("a batch norm's statistics and gradients in training fuse into _FusedElementwise regions") {
  const tensorflow::GraphDef graph = testing::BuildGraph(BatchNormTrainingGraph);
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", InputTensor({3, 4, 5, 8})}, {"dy", InputTensor({3, 4, 5, 8})}};
  const std::vector<std::string> fetches = {"variance", "dx", "dscale"};
  const Ran fused = RunGraph(graph, true, feeds, fetches);
  const Ran apart = RunGraph(graph, false, feeds, fetches);
  for (const char* node : {"_FusedElementwise:variance", "_FusedElementwise:dx", "_FusedElementwise:dscale"}) {
    INFO(node);
    CHECK(Has(fused.ops, node));
  }
  for (const char* gone : {"SquaredDifference:squared", "BroadcastTo:spread_a", "BroadcastTo:spread_b",
                           "Sub:centred", "Mul:x_dy", "Const:two"}) {
    INFO(gone);
    CHECK_FALSE(Has(fused.ops, gone));
  }
  // The input gradient is computed element by element as before: to the bit. The sums
  // add in another order.
  CHECK(fused.values[1] == apart.values[1]);
  CheckClose(fused.values[0], apart.values[0]);
  CheckClose(fused.values[2], apart.values[2]);
  // A batch of 1 broadcasts into the same graph (the kernel checks the shapes it is given).
  const Ran one = RunGraph(graph, true, {{"x", InputTensor({1, 4, 5, 8})}, {"dy", InputTensor({1, 4, 5, 8})}}, fetches);
  const Ran one_apart = RunGraph(graph, false, {{"x", InputTensor({1, 4, 5, 8})}, {"dy", InputTensor({1, 4, 5, 8})}}, fetches);
  CHECK(one.values[1] == one_apart.values[1]);
  CheckClose(one.values[2], one_apart.values[2]);
}

TEST_CASE("an element-wise chain whose middle value is read elsewhere fuses only up to it") {
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({6, 8}));
    auto shared = ops::Mul(s.WithOpName("shared"), x, Filled(s, {8}, 0.2f, 1.f));
    ops::Sub(s.WithOpName("out"), ops::Neg(s.WithOpName("negated"), shared), ops::Const(s, 0.5f));
    ops::Exp(s.WithOpName("other"), shared);
  });
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", InputTensor({6, 8})}};
  const Ran fused = RunGraph(graph, true, feeds, {"out", "other"});
  const Ran apart = RunGraph(graph, false, feeds, {"out", "other"});
  CHECK(Has(fused.ops, "Mul:shared"));
  CHECK(Has(fused.ops, "_FusedElementwise:out"));
  CHECK_FALSE(Has(fused.ops, "Neg:negated"));
  CHECK(fused.values == apart.values);
}

TEST_CASE("a zero Pad before a VALID convolution becomes its explicit padding, fused epilogue and all") {
  tensorflow::TensorProto rows_and_cols, channels_too;
  Tensor::FromVector<int32_t>({0, 0, 0, 1, 0, 1, 0, 0}, TensorShape({4, 2})).AsProtoTensorContent(&rows_and_cols);
  Tensor::FromVector<int32_t>({0, 0, 1, 1, 1, 1, 0, 2}, TensorShape({4, 2})).AsProtoTensorContent(&channels_too);
  const tensorflow::GraphDef graph = testing::BuildGraph([&](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({2, 9, 9, 16}));
    // EfficientNet's strided depthwise layer: ZeroPadding2D(((0, 1), (0, 1))), a VALID
    // depthwise convolution of stride 2, batch norm, swish.
    auto padded = ops::Pad(s.WithOpName("padded"), x, ops::Const(s, rows_and_cols));
    auto dw = ops::DepthwiseConv2dNative(s.WithOpName("dw"), padded, Filled(s, {3, 3, 16, 1}, 0.45f), {1, 2, 2, 1},
                                         "VALID");
    auto dw_bn = ops::AddV2(s, ops::Mul(s, dw, Filled(s, {1, 1, 1, 16}, 0.25f, 1.f)), Filled(s, {1, 1, 1, 16}, 0.15f));
    ops::Mul(s.WithOpName("dw_swish"), dw_bn, ops::Sigmoid(s, dw_bn));
    // ResNet's stem: ZeroPadding2D, a VALID Conv2D of stride 2 (PadV2 with a zero constant).
    auto stem_in = ops::PadV2(s.WithOpName("stem_in"), x, ops::Const(s, rows_and_cols), ops::Const(s, 0.f));
    ops::Conv2D(s.WithOpName("stem"), stem_in, Filled(s, {3, 3, 16, 8}, 0.3f), {1, 2, 2, 1}, "VALID");
    // Not folded: channels padded too, a constant other than zero.
    auto wide = ops::Pad(s.WithOpName("wide"), x, ops::Const(s, channels_too));
    ops::DepthwiseConv2dNative(s.WithOpName("dw_wide"), wide, Filled(s, {3, 3, 18, 1}, 0.55f), {1, 1, 1, 1}, "VALID");
    auto ones = ops::PadV2(s.WithOpName("ones"), x, ops::Const(s, rows_and_cols), ops::Const(s, 1.f));
    ops::Conv2D(s.WithOpName("on_ones"), ones, Filled(s, {3, 3, 16, 8}, 0.35f), {1, 1, 1, 1}, "VALID");
  });
  const std::vector<std::string> fetches = {"dw_swish", "stem", "dw_wide", "on_ones"};
  const Ran fused = RunGraph(graph, true, {{"x", InputTensor({2, 9, 9, 16})}}, fetches);
  const Ran apart = RunGraph(graph, false, {{"x", InputTensor({2, 9, 9, 16})}}, fetches);
  for (size_t i = 0; i < fetches.size(); ++i) {
    INFO(fetches[i]);
    CheckClose(fused.values[i], apart.values[i]);
  }
  CHECK(Has(fused.ops, "_FusedDepthwiseConv2dNative:dw_swish"));
  CHECK_FALSE(Has(fused.ops, "Pad:padded"));
  CHECK(Has(fused.ops, "Conv2D:stem"));
  CHECK_FALSE(Has(fused.ops, "PadV2:stem_in"));
  CHECK(Has(fused.ops, "Pad:wide"));
  CHECK(Has(fused.ops, "PadV2:ones"));
}

TEST_CASE("an inverted residual block's convolutions fuse into _FusedConv2DWithDepthwise, projection and all") {
  const tensorflow::GraphDef graph = testing::BuildGraph([&](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 19, 17, 16}));
    // A Keras batch norm (Mul and AddV2 of channel vectors) or a bias, then Relu6.
    auto bn_relu6 = [&](const std::string& name, Output in, int64_t channels, float a) {
      auto scaled = ops::Mul(s, in, Filled(s, {1, 1, 1, channels}, a, 1.f));
      return ops::Relu6(s.WithOpName(name), ops::AddV2(s, scaled, Filled(s, {1, 1, 1, channels}, a + 0.1f)));
    };
    auto bias_relu6 = [&](const std::string& name, Output in, int64_t channels, float a) {
      return ops::Relu6(s.WithOpName(name), ops::BiasAdd(s, in, Filled(s, {channels}, a)));
    };
    // MobileNetV2: a 1x1 expansion to 96 channels, then a depthwise 3x3 of stride 2.
    auto expand = ops::Conv2D(s.WithOpName("expand"), x, Filled(s, {1, 1, 16, 96}, 0.7f), {1, 1, 1, 1}, "SAME");
    auto expanded = bn_relu6("expanded", expand, 96, 0.3f);
    bn_relu6("dw_relu6",
             ops::DepthwiseConv2dNative(s, expanded, Filled(s, {3, 3, 96, 1}, 0.45f), {1, 2, 2, 1}, "SAME"), 96, 0.25f);
    // A whole block of stride 1: expansion, depthwise, the projection back to 16 channels
    // (batch norm, no activation) and the residual.
    auto block_expanded = bn_relu6(
        "block_expanded", ops::Conv2D(s, x, Filled(s, {1, 1, 16, 64}, 0.65f), {1, 1, 1, 1}, "SAME"), 64, 0.35f);
    auto filtered = bn_relu6(
        "filtered", ops::DepthwiseConv2dNative(s, block_expanded, Filled(s, {3, 3, 64, 1}, 0.4f), {1, 1, 1, 1}, "SAME"),
        64, 0.2f);
    auto projected = ops::Conv2D(s, filtered, Filled(s, {1, 1, 64, 16}, 0.55f), {1, 1, 1, 1}, "SAME");
    auto projected_bn = ops::AddV2(s, ops::Mul(s, projected, Filled(s, {1, 1, 1, 16}, 0.15f, 1.f)),
                                   Filled(s, {1, 1, 1, 16}, 0.05f));
    ops::AddV2(s.WithOpName("block"), projected_bn, x);
    // Not fused: an expansion that something else reads too, a 3x3 "expansion".
    auto shared = bias_relu6("shared", ops::Conv2D(s, x, Filled(s, {1, 1, 16, 32}, 0.6f), {1, 1, 1, 1}, "SAME"), 32,
                             0.1f);
    bias_relu6("shared_dw", ops::DepthwiseConv2dNative(s, shared, Filled(s, {3, 3, 32, 1}, 0.5f), {1, 1, 1, 1}, "SAME"),
               32, 0.3f);
    ops::Mul(s.WithOpName("shared_too"), shared, shared);
    auto wide = bias_relu6("wide", ops::Conv2D(s, x, Filled(s, {3, 3, 16, 32}, 0.4f), {1, 1, 1, 1}, "SAME"), 32, 0.2f);
    bias_relu6("wide_dw", ops::DepthwiseConv2dNative(s, wide, Filled(s, {3, 3, 32, 1}, 0.35f), {1, 1, 1, 1}, "SAME"),
               32, 0.4f);
  });
  const std::vector<std::string> fetches = {"dw_relu6", "block", "shared_dw", "shared_too", "wide_dw"};
  for (int64_t batch : {1, 3}) {
    const Ran fused = RunGraph(graph, true, {{"x", InputTensor({batch, 19, 17, 16})}}, fetches);
    const Ran apart = RunGraph(graph, false, {{"x", InputTensor({batch, 19, 17, 16})}}, fetches);
    for (size_t i = 0; i < fetches.size(); ++i) {
      INFO(fetches[i] << " batch " << batch);
      CheckClose(fused.values[i], apart.values[i]);
    }
    CHECK(Has(fused.ops, "_FusedConv2DWithDepthwise:dw_relu6"));
    CHECK(Has(fused.ops, "_FusedConv2D:shared"));
    CHECK(Has(fused.ops, "_FusedConv2D:wide"));
    // The block's three convolutions are one node (its residual AddV2 stays apart here: the
    // batch is unknown, so the projection's Add cannot be checked to be of its shape).
    auto count = [&](const std::string& prefix) {
      return std::count_if(fused.ops.begin(), fused.ops.end(),
                           [&](const std::string& op) { return op.rfind(prefix, 0) == 0; });
    };
    CHECK(count("_FusedConv2DWithDepthwise:") == 2);
    CHECK(count("_FusedConv2D:") == 2);  // shared and wide
    CHECK(count("_FusedDepthwiseConv2dNative:") == 2);
  }
}

// What Keras 3 writes for Dense(24) on x [batch, tokens, 16] before its activation:
// Reshape(MatMul(Reshape(x, [-1, 16]), w), ConcatV2(GatherV2(Shape(x), [0, 1]), [24])) and
// BiasAdd ("biased"). The batch and token counts are unknown when the graph is built, as in a
// served model.
Output DenseOnTokens(const Scope& s) {
  auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, -1, 16}));
  auto rows = ops::Reshape(s, x, ops::Const(s, {-1, 16}));
  auto mm = ops::MatMul(s.WithOpName("mm"), rows, Filled(s, {16, 24}, 0.35f));
  auto leading = ops::GatherV2(s, ops::Shape(s, x), ops::Const(s, {0, 1}), ops::Const(s, 0));
  auto tokens = ops::Reshape(s.WithOpName("tokens"), mm, ops::Concat(s, {leading, ops::Const(s, {24})}, 0));
  return ops::BiasAdd(s.WithOpName("biased"), tokens, Filled(s, {24}, 0.6f));
}

TEST_CASE("Keras' Dense on tokens fuses its bias and exact GELU into the MatMul across the Reshape, to the bit") {
  // Dense(units, activation="gelu"): then tf.nn.gelu's 0.5 x erfc(-x / sqrt 2).
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto y = DenseOnTokens(s);
    auto erfc = ops::Erfc(s.WithOpName("erfc"), ops::Mul(s, ops::Neg(s, y), ops::Const(s, 0.7071067811865476f)));
    ops::Mul(s.WithOpName("gelu"), ops::Mul(s, ops::Const(s, 0.5f), y), erfc);
  });
  const Ran fused = RunGraph(graph, true, {{"x", InputTensor({3, 5, 16})}}, {"gelu"});
  const Ran apart = RunGraph(graph, false, {{"x", InputTensor({3, 5, 16})}}, {"gelu"});
  REQUIRE(fused.values[0].size() == 3 * 5 * 24);
  CHECK(fused.values[0] == apart.values[0]);
  CHECK(Has(fused.ops, "_FusedMatMul:gelu"));
  CHECK_FALSE(Has(fused.ops, "Erfc:erfc"));
  CHECK_FALSE(Has(fused.ops, "BiasAdd:biased"));
  CHECK(Has(apart.ops, "Erfc:erfc"));
}

TEST_CASE("Keras' Conv1D fuses its bias and Relu into the Conv2D across the Squeeze, within float rounding") {
  // Conv1D(16, 3, activation="relu") on x [batch, 9, 8]: tf.nn.conv1d's
  // Squeeze(Conv2D(ExpandDims(x, -3), ExpandDims(w, 0)), [-3]), then BiasAdd and Relu.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Reshape(s, ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT), ops::Const(s, {-1, 9, 8}));
    auto conv = ops::Conv2D(s.WithOpName("conv"), ops::ExpandDims(s, x, ops::Const(s, -3)), Filled(s, {1, 3, 8, 16}, 0.45f),
                            {1, 1, 1, 1}, "VALID");
    auto squeezed = ops::Squeeze(s.WithOpName("squeezed"), conv, {-3});
    ops::Relu(s.WithOpName("relu"), ops::BiasAdd(s.WithOpName("biased"), squeezed, Filled(s, {16}, 0.3f)));
  });
  const Ran fused = RunGraph(graph, true, {{"x", InputTensor({2, 9, 8})}}, {"relu"});
  const Ran apart = RunGraph(graph, false, {{"x", InputTensor({2, 9, 8})}}, {"relu"});
  REQUIRE(fused.values[0].size() == 2 * 7 * 16);
  CheckClose(fused.values[0], apart.values[0]);
  CHECK(Has(fused.ops, "_FusedConv2D:relu"));
  CHECK_FALSE(Has(fused.ops, "BiasAdd:biased"));
  CHECK(Has(fused.ops, "Squeeze:relu/_Squeeze"));
  CHECK(Has(apart.ops, "BiasAdd:biased"));
}

TEST_CASE("Keras' Dense on tokens fuses its bias and tanh GELU into the MatMul, within float rounding") {
  // tf.nn.gelu(y, approximate=True): 0.5 y (1 + tanh(0.7978846 (y + 0.044715 y^3))); the
  // fused epilogue writes it as y sigmoid(2u), without 1 + tanh(u)'s cancellation.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto y = DenseOnTokens(s);
    auto cube = ops::Pow(s.WithOpName("cube"), y, ops::Const(s, 3.f));
    auto inner = ops::AddV2(s, y, ops::Mul(s, ops::Const(s, 0.044715f), cube));
    auto t = ops::Tanh(s.WithOpName("tanh"), ops::Mul(s, ops::Const(s, 0.7978845608028654f), inner));
    ops::Mul(s.WithOpName("gelu"), ops::Mul(s, ops::Const(s, 0.5f), y), ops::AddV2(s, ops::Const(s, 1.f), t));
  });
  const Ran fused = RunGraph(graph, true, {{"x", InputTensor({3, 5, 16})}}, {"gelu"});
  const Ran apart = RunGraph(graph, false, {{"x", InputTensor({3, 5, 16})}}, {"gelu"});
  REQUIRE(fused.values[0].size() == 3 * 5 * 24);
  CheckClose(fused.values[0], apart.values[0]);
  CHECK(Has(fused.ops, "_FusedMatMul:gelu"));
  CHECK_FALSE(Has(fused.ops, "Tanh:tanh"));
  CHECK_FALSE(Has(fused.ops, "Pow:cube"));
  CHECK_FALSE(Has(fused.ops, "BiasAdd:biased"));
  CHECK(Has(apart.ops, "Tanh:tanh"));
}

TEST_CASE("a batch norm and Relu before any product (DenseNet's pre-activation) fuse into _FusedChannelSteps") {
  // Keras 3's inference batch norm on a value no product feeds: Mul and AddV2 of channel
  // vectors, then Relu.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    // (Through a Reshape: a fed value's shape is not known to the remapper.)
    auto fed = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 4, 4, 8}));
    auto x = ops::Reshape(s, fed, ops::Const(s, {2, 4, 4, 8}));
    auto scaled = ops::Mul(s.WithOpName("scaled"), x, Filled(s, {8}, 0.7f, 1.f));
    auto shifted = ops::AddV2(s.WithOpName("shifted"), scaled, Filled(s, {8}, 0.3f));
    ops::Relu(s.WithOpName("y"), shifted);
  });
  const Ran fused = RunGraph(graph, true, {{"x", InputTensor({2, 4, 4, 8})}}, {"y"});
  const Ran apart = RunGraph(graph, false, {{"x", InputTensor({2, 4, 4, 8})}}, {"y"});
  CHECK(Has(fused.ops, "_FusedChannelSteps:y"));
  CHECK_FALSE(Has(fused.ops, "Mul:scaled"));
  CHECK(Has(apart.ops, "Mul:scaled"));
  REQUIRE(fused.values[0].size() == 2 * 4 * 4 * 8);
  CheckClose(fused.values[0], apart.values[0]);
  // The Mul's value fetched too: it stays; what follows it may still fuse.
  const Ran fetched = RunGraph(graph, true, {{"x", InputTensor({2, 4, 4, 8})}}, {"y", "scaled"});
  CHECK(Has(fetched.ops, "Mul:scaled"));
  CheckClose(fetched.values[0], apart.values[0]);
}

TEST_CASE("DenseNet's pre-activation and the 1x1 convolution after it fuse into _FusedChannelStepsConv2D") {
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 9, 7, 48}));
    auto pre = [&](const std::string& name, float a) {
      auto scaled = ops::Mul(s, x, Filled(s, {48}, a, 1.f));
      return ops::Relu(s.WithOpName(name), ops::AddV2(s, scaled, Filled(s, {48}, a + 0.2f)));
    };
    // A dense layer: pre-activation, 1x1 convolution to 32, its batch norm and Relu.
    auto conv = ops::Conv2D(s, pre("activated", 0.3f), Filled(s, {1, 1, 48, 32}, 0.6f), {1, 1, 1, 1}, "SAME");
    auto conv_bn = ops::AddV2(s, ops::Mul(s, conv, Filled(s, {32}, 0.4f, 1.f)), Filled(s, {32}, 0.1f));
    ops::Relu(s.WithOpName("layer"), conv_bn);
    // A transition: pre-activation, a plain 1x1 convolution.
    ops::Conv2D(s.WithOpName("transition"), pre("transition_in", 0.5f), Filled(s, {1, 1, 48, 24}, 0.45f),
                {1, 1, 1, 1}, "SAME");
    // Not fused: a 3x3 convolution, an activation read twice, 8 output channels.
    ops::Conv2D(s.WithOpName("wide"), pre("wide_in", 0.7f), Filled(s, {3, 3, 48, 16}, 0.35f), {1, 1, 1, 1}, "SAME");
    auto shared = pre("shared", 0.9f);
    ops::Conv2D(s.WithOpName("shared_conv"), shared, Filled(s, {1, 1, 48, 16}, 0.25f), {1, 1, 1, 1}, "SAME");
    ops::Neg(s.WithOpName("shared_too"), shared);
    ops::Conv2D(s.WithOpName("narrow"), pre("narrow_in", 1.1f), Filled(s, {1, 1, 48, 8}, 0.15f), {1, 1, 1, 1},
                "SAME");
  });
  const std::vector<std::string> fetches = {"layer", "transition", "wide", "shared_conv", "shared_too", "narrow"};
  for (int64_t batch : {1, 2}) {
    const Ran fused = RunGraph(graph, true, {{"x", InputTensor({batch, 9, 7, 48})}}, fetches);
    const Ran apart = RunGraph(graph, false, {{"x", InputTensor({batch, 9, 7, 48})}}, fetches);
    for (size_t i = 0; i < fetches.size(); ++i) {
      INFO(fetches[i] << " batch " << batch);
      CheckClose(fused.values[i], apart.values[i]);
    }
    CHECK(Has(fused.ops, "_FusedChannelStepsConv2D:layer"));
    CHECK(Has(fused.ops, "_FusedChannelStepsConv2D:transition"));
    CHECK(Has(fused.ops, "_FusedChannelSteps:wide_in"));
    CHECK(Has(fused.ops, "_FusedChannelSteps:shared"));
    CHECK(Has(fused.ops, "_FusedChannelSteps:narrow_in"));
  }
}

TEST_CASE("concatenations of concatenations along one axis become one, and the inner ones go") {
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto a = Filled(s, {2, 3}, 0.3f), b = Filled(s, {2, 2}, 0.5f), c = Filled(s, {2, 1}, 0.7f);
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({2, 4}));
    auto y = ops::Placeholder(s.WithOpName("y"), tensorflow::DT_FLOAT, PartialTensorShape({1, 1}));
    auto inner = ops::Concat(s.WithOpName("inner"), {ops::Concat(s.WithOpName("innermost"), {a, x}, 1), b}, 1);
    ops::Concat(s.WithOpName("outer"), {inner, c, ops::Concat(s.WithOpName("other_axis"), {y, y}, 0)}, 1);
  });
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", InputTensor({2, 4})}, {"y", InputTensor({1, 1})}};
  const Ran fused = RunGraph(graph, true, feeds, {"outer"});
  const Ran apart = RunGraph(graph, false, feeds, {"outer"});
  CHECK(fused.values[0] == apart.values[0]);
  CHECK(Has(fused.ops, "ConcatV2:outer"));
  CHECK(fused.inputs.at("outer").size() == 6);  // a, x, b, c, other_axis and the axis
  CHECK_FALSE(Has(fused.ops, "ConcatV2:inner"));
  CHECK_FALSE(Has(fused.ops, "ConcatV2:innermost"));
  CHECK(Has(fused.ops, "ConcatV2:other_axis"));  // along another axis: a piece as it is
}

// A DenseNet block of three layers and its transition; with `fetch_blocks` its first and
// last concatenations are fetched too, so they are written whole and read whole.
tensorflow::GraphDef DenseBlock(bool fetch_blocks) {
  return testing::BuildGraph([fetch_blocks](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 6, 5, 24}));
    // A layer: pre-activation of the block so far, 1x1 convolution, a 3x3 one to 16 channels.
    auto layer = [&](Output block, int64_t depth, float a) {
      auto pre = ops::Relu(s, ops::AddV2(s, ops::Mul(s, block, Filled(s, {depth}, a, 1.f)), Filled(s, {depth}, a)));
      auto bottleneck = ops::Conv2D(s, pre, Filled(s, {1, 1, depth, 32}, a + 0.1f), {1, 1, 1, 1}, "SAME");
      return ops::Conv2D(s, ops::Relu(s, bottleneck), Filled(s, {3, 3, 32, 16}, a + 0.2f), {1, 1, 1, 1}, "SAME");
    };
    auto block1 = ops::Concat(s.WithOpName("block1"), {x, layer(x, 24, 0.3f)}, -1);
    auto block2 = ops::Concat(s.WithOpName("block2"), {block1, layer(block1, 40, 0.5f)}, -1);
    auto block3 = ops::Concat(s.WithOpName("block3"), {block2, layer(block2, 56, 0.7f)}, 3);
    // The transition reads the whole block (pre-activation, 1x1 convolution); a fetch reads
    // block2.
    auto pre = ops::Relu(s, ops::AddV2(s, ops::Mul(s, block3, Filled(s, {72}, 0.9f, 1.f)), Filled(s, {72}, 0.2f)));
    ops::Conv2D(s.WithOpName("transition"), pre, Filled(s, {1, 1, 72, 24}, 0.45f), {1, 1, 1, 1}, "SAME");
    ops::Identity(s.WithOpName("block2_too"), block2);
    if (fetch_blocks) {
      ops::Identity(s.WithOpName("block1_too"), block1);
      ops::Identity(s.WithOpName("block3_too"), block3);
    }
  });
}

TEST_CASE("a DenseNet block's concatenations are read in pieces by the layers: only the block's last is written") {
  const std::vector<std::string> fetches = {"transition", "block2_too"};
  for (int64_t batch : {1, 3}) {
    INFO("batch " << batch);
    const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", InputTensor({batch, 6, 5, 24})}};
    const Ran fused = RunGraph(DenseBlock(false), true, feeds, fetches);
    // block1 is read only by its layer, which takes its two pieces; block2 is fetched too, so
    // it is written (from its three pieces), and block3, flattened, is read by the transition.
    CHECK_FALSE(Has(fused.ops, "ConcatV2:block1"));
    CHECK(Has(fused.ops, "ConcatV2:block2"));
    CHECK(fused.inputs.at("block2").size() == 4);  // x, the two layers' outputs, the axis
    CHECK_FALSE(Has(fused.ops, "ConcatV2:block3"));
    CHECK(Has(fused.ops, "_FusedChannelStepsConv2D:transition"));
    CHECK(fused.inputs.at("transition").size() >= 4);  // x and three layers' outputs at least
    // Gathering a band from the pieces only copies: the values are those of the same graph
    // whose blocks are written whole, to the bit.
    const Ran whole = RunGraph(DenseBlock(true), true, feeds, {"transition", "block2_too", "block1_too", "block3_too"});
    CHECK(Has(whole.ops, "ConcatV2:block1"));
    CHECK(Has(whole.ops, "ConcatV2:block3"));
    for (size_t i = 0; i < fetches.size(); ++i) CHECK(fused.values[i] == whole.values[i]);
    // And those of the graph unfused, within float rounding (four layers of convolutions deep).
    const Ran apart = RunGraph(DenseBlock(false), false, feeds, fetches);
    for (size_t i = 0; i < fetches.size(); ++i) {
      INFO(fetches[i]);
      REQUIRE(fused.values[i].size() == apart.values[i].size());
      for (size_t k = 0; k < fused.values[i].size(); ++k) {
        CHECK(fused.values[i][k] == Approx(apart.values[i][k]).epsilon(1e-3).margin(1e-4));
      }
    }
  }
}

TEST_CASE("a convolution's filter that changes between runs is used as it is now, in a resource or a ref variable") {
  // Deep enough for oneDNN's kernel, whose reordered filter is kept between runs.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({1, 6, 6, 16}));
    auto handle = ops::VarHandleOp(s.WithOpName("w"), tensorflow::DT_FLOAT, PartialTensorShape({3, 3, 16, 16}));
    ops::AssignVariableOp(s.WithOpName("init_w"), handle, Filled(s, {3, 3, 16, 16}, 0.7f));
    ops::AssignVariableOp(s.WithOpName("set_w"), handle, Filled(s, {3, 3, 16, 16}, 0.2f));
    auto read = ops::ReadVariableOp(s.WithOpName("read_w"), handle, tensorflow::DT_FLOAT);
    ops::Relu(s.WithOpName("y_resource"),
              ops::BiasAdd(s, ops::Conv2D(s, x, read, {1, 1, 1, 1}, "SAME"), Filled(s, {16}, 0.1f)));
    auto ref = ops::Variable(s.WithOpName("v"), PartialTensorShape({3, 3, 16, 16}), tensorflow::DT_FLOAT);
    ops::Assign(s.WithOpName("init_v"), ref, Filled(s, {3, 3, 16, 16}, 0.7f));
    ops::Assign(s.WithOpName("set_v"), ref, Filled(s, {3, 3, 16, 16}, 0.2f));
    ops::Relu(s.WithOpName("y_ref"),
              ops::BiasAdd(s, ops::Conv2D(s, x, ops::Identity(s, ref), {1, 1, 1, 1}, "SAME"), Filled(s, {16}, 0.1f)));
    ops::Relu(s.WithOpName("y_expected"),
              ops::BiasAdd(s, ops::Conv2D(s, x, Filled(s, {3, 3, 16, 16}, 0.2f), {1, 1, 1, 1}, "SAME"),
                           Filled(s, {16}, 0.1f)));
  });
  auto session = testing::NewSessionWith(graph);
  const Tensor x = InputTensor({1, 6, 6, 16});
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {"init_w", "init_v"}, &out).ok());
  REQUIRE(session->Run({{"x", x}}, {"y_resource", "y_ref"}, {}, &out).ok());
  const std::vector<float> before = Values(out[0]);
  CheckClose(Values(out[1]), before);
  REQUIRE(session->Run({}, {}, {"set_w", "set_v"}, &out).ok());
  REQUIRE(session->Run({{"x", x}}, {"y_resource", "y_ref", "y_expected"}, {}, &out).ok());
  CHECK(Values(out[0]) != before);
  CheckClose(Values(out[0]), Values(out[2]));
  CheckClose(Values(out[1]), Values(out[2]));
}

}  // namespace
}  // namespace tensoract
