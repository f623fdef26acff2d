// _FusedChannelStepsConv2D (kernels/cpu/steps_conv_op.cc) against the two kernels it fuses,
// _FusedChannelSteps then a 1x1 Conv2D or _FusedConv2D, run one after the other: the same
// values to the last bit, for a batch of one cut into bands, images taller than one band,
// a plain and a fused convolution, products in bfloat16; with products in 8-bit integers,
// each band quantized on its own, within the quantization's error of the float values; in
// bfloat16 (x in pieces, the filter and the output bfloat16), the float kernel's values on
// the same operands rounded once.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "graph/optimizer/mixed_precision.h"
#include "graph/optimizer/steps_conv_fusion.h"
#include "kernels/cpu/int8_products.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::AttrMap;
using testing::IntA;
using testing::Ints;
using testing::SinePattern;
using testing::Str;
using testing::Strs;
using testing::TypeA;
using testing::Values;

struct StepsCase {
  int64_t batch, rows, cols, depth, out_depth;
  bool fused;  // a _FusedConv2D with a batch norm and Relu, else a plain Conv2D
};

// DenseNet's pre-activation: a Keras batch norm (ChannelMul, BiasAdd) and Relu.
AttrMap ChannelStepsAttrs() {
  return {{"T", TypeA(tensorflow::DT_FLOAT)}, {"fused_ops", Strs({"ChannelMul", "BiasAdd", "Relu"})},
          {"num_args", IntA(2)}};
}
AttrMap StepsConvAttrs(const StepsCase& c) {
  AttrMap attrs = {{"T", TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("SAME")}};
  if (c.fused) {
    tensorflow::AttrValue targs;
    targs.mutable_list()->add_type(tensorflow::DT_FLOAT);
    targs.mutable_list()->add_type(tensorflow::DT_FLOAT);
    attrs["fused_ops"] = Strs({"ChannelMul", "BiasAdd", "Relu"});
    attrs["num_args"] = IntA(2);
    attrs["TArgs"] = targs;
  }
  return attrs;
}

void CheckStepsAgainstUnfused(const StepsCase& c, bool bfloat16) {
  INFO("batch " << c.batch << " " << c.rows << "x" << c.cols << " " << c.depth << " -> " << c.out_depth
                << (c.fused ? " fused" : " plain") << (bfloat16 ? " bfloat16" : ""));
  const std::string conv_op = c.fused ? "_FusedConv2D" : "Conv2D";
  const Tensor x = SinePattern({c.batch, c.rows, c.cols, c.depth}, 0.37f, 2.f);
  const Tensor scale = SinePattern({c.depth}, 0.13f), shift = SinePattern({c.depth}, 0.29f, 0.5f);
  const Tensor filter = SinePattern({1, 1, c.depth, c.out_depth}, 0.71f, 0.3f);
  const Tensor conv_scale = SinePattern({c.out_depth}, 0.17f), conv_shift = SinePattern({c.out_depth}, 0.41f);
  AttrMap conv_attrs = StepsConvAttrs(c);
  if (bfloat16) conv_attrs[kBfloat16ProductsAttr] = testing::BoolA(true);

  auto activated = testing::RunOp("_FusedChannelSteps", {x, scale, shift}, ChannelStepsAttrs());
  REQUIRE(activated.status.ok());
  std::vector<Tensor> conv_inputs = {activated.outputs[0], filter};
  if (c.fused) conv_inputs.insert(conv_inputs.end(), {conv_scale, conv_shift});
  auto want = testing::RunOp(conv_op, conv_inputs, conv_attrs);
  REQUIRE(want.status.ok());

  AttrMap attrs = {{"T", TypeA(tensorflow::DT_FLOAT)},
                   {"num_step_args", IntA(2)},
                   {"num_args", IntA(c.fused ? 2 : 0)},
                   {"convolution", Str(conv_op)}};
  if (bfloat16) attrs[kBfloat16ProductsAttr] = testing::BoolA(true);
  const NodeDef steps = testing::MakeDef("_FusedChannelSteps", ChannelStepsAttrs());
  const NodeDef conv = testing::MakeDef(conv_op, StepsConvAttrs(c));
  for (auto& [name, value] : steps.attr()) attrs[kStepsAttrPrefix + name] = value;
  for (auto& [name, value] : conv.attr()) attrs[kConvAttrPrefix + name] = value;
  std::vector<Tensor> inputs = {x, scale, shift, filter};
  if (c.fused) inputs.insert(inputs.end(), {conv_scale, conv_shift});
  auto got = testing::RunOp("_FusedChannelStepsConv2D", inputs, attrs);
  INFO(got.status);
  REQUIRE(got.status.ok());
  testing::CheckSameFloats(got.outputs[0], want.outputs[0]);
}

// The same with x in pieces along the channels (num_pieces): against the unfused kernels on
// the pieces concatenated.
void CheckPiecesAgainstUnfused(const StepsCase& c, const std::vector<int64_t>& depths) {
  INFO("batch " << c.batch << " " << c.rows << "x" << c.cols << " in " << depths.size() << " pieces -> " << c.out_depth);
  std::vector<Tensor> pieces;
  std::vector<float> whole(c.batch * c.rows * c.cols * c.depth);
  int64_t at = 0;
  for (int64_t d : depths) {
    pieces.push_back(SinePattern({c.batch, c.rows, c.cols, d}, 0.37f + 0.01f * static_cast<float>(d), 2.f));
    const std::vector<float> v = Values<float>(pieces.back());
    for (int64_t p = 0; p < c.batch * c.rows * c.cols; ++p) {
      std::copy(v.begin() + p * d, v.begin() + (p + 1) * d, whole.begin() + p * c.depth + at);
    }
    at += d;
  }
  REQUIRE(at == c.depth);
  const Tensor x = Tensor::FromVector<float>(whole, TensorShape({c.batch, c.rows, c.cols, c.depth}));
  const Tensor scale = SinePattern({c.depth}, 0.13f), shift = SinePattern({c.depth}, 0.29f, 0.5f);
  const Tensor filter = SinePattern({1, 1, c.depth, c.out_depth}, 0.71f, 0.3f);
  auto activated = testing::RunOp("_FusedChannelSteps", {x, scale, shift}, ChannelStepsAttrs());
  REQUIRE(activated.status.ok());
  auto want = testing::RunOp("Conv2D", {activated.outputs[0], filter}, StepsConvAttrs(c));
  REQUIRE(want.status.ok());

  AttrMap attrs = {{"T", TypeA(tensorflow::DT_FLOAT)},
                   {"num_pieces", IntA(static_cast<int64_t>(depths.size()))},
                   {"num_step_args", IntA(2)},
                   {"num_args", IntA(0)},
                   {"convolution", Str("Conv2D")}};
  const NodeDef steps = testing::MakeDef("_FusedChannelSteps", ChannelStepsAttrs());
  const NodeDef conv = testing::MakeDef("Conv2D", StepsConvAttrs(c));
  for (auto& [name, value] : steps.attr()) attrs[kStepsAttrPrefix + name] = value;
  for (auto& [name, value] : conv.attr()) attrs[kConvAttrPrefix + name] = value;
  std::vector<Tensor> inputs = pieces;
  inputs.insert(inputs.end(), {scale, shift, filter});
  auto got = testing::RunOp("_FusedChannelStepsConv2D", inputs, attrs);
  INFO(got.status);
  REQUIRE(got.status.ok());
  testing::CheckSameFloats(got.outputs[0], want.outputs[0]);

  // Pieces of different sizes are refused, naming both.
  std::vector<Tensor> bad = inputs;
  bad[1] = SinePattern({c.batch, c.rows + 1, c.cols, depths[1]}, 0.5f);
  auto refused = testing::RunOp("_FusedChannelStepsConv2D", bad, attrs);
  CHECK(refused.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(refused.status.message(), Catch::Contains("the pieces of x"));
}

TEST_CASE("_FusedChannelStepsConv2D reads x in pieces along the channels, with the values of their concatenation") {
  CheckPiecesAgainstUnfused({1, 28, 28, 64 + 32 + 32, 128, false}, {64, 32, 32});  // a batch of one in bands
  CheckPiecesAgainstUnfused({3, 14, 14, 40, 32, false}, {8, 16, 16});
  CheckPiecesAgainstUnfused({2, 7, 7, 24, 16, false}, {16, 8});  // small images, both in one band
}

TEST_CASE("_FusedChannelStepsConv2D gives the steps' and the convolution's values, band by band") {
  const StepsCase cases[] = {
      {1, 28, 28, 64, 128, true},     // a batch of one in bands
      {3, 56, 56, 256, 128, true},    // images taller than a band (a DenseNet block's end)
      {2, 14, 14, 512, 256, false},   // a transition's plain Conv2D
      {5, 7, 9, 96, 32, true},        // small images, several a band's worth
  };
  for (const StepsCase& c : cases) CheckStepsAgainstUnfused(c, /*bfloat16=*/false);
  CheckStepsAgainstUnfused(cases[1], /*bfloat16=*/true);
}

TEST_CASE("_FusedChannelStepsConv2D with int8 products stays within the quantization's error, band by band") {
  // Operands whose products do not cancel out: the steps' output is never negative (a
  // ReLU), the filter positive.
  for (const StepsCase& c : {StepsCase{1, 28, 28, 64, 128, true}, StepsCase{3, 14, 14, 256, 128, false}}) {
    INFO("batch " << c.batch << " " << c.rows << "x" << c.cols << " " << c.depth << " -> " << c.out_depth);
    const std::string conv_op = c.fused ? "_FusedConv2D" : "Conv2D";
    const Tensor x = SinePattern({c.batch, c.rows, c.cols, c.depth}, 0.37f, 2.f);
    const Tensor scale = SinePattern({c.depth}, 0.13f), shift = SinePattern({c.depth}, 0.29f, 0.5f);
    const Tensor filter = testing::Shifted(SinePattern({1, 1, c.depth, c.out_depth}, 0.71f, 0.1f), 0.15f);
    const Tensor conv_scale = SinePattern({c.out_depth}, 0.17f), conv_shift = SinePattern({c.out_depth}, 0.41f);
    AttrMap attrs = {{"T", TypeA(tensorflow::DT_FLOAT)},
                     {"num_step_args", IntA(2)},
                     {"num_args", IntA(c.fused ? 2 : 0)},
                     {"convolution", Str(conv_op)}};
    const NodeDef steps = testing::MakeDef("_FusedChannelSteps", ChannelStepsAttrs());
    const NodeDef conv = testing::MakeDef(conv_op, StepsConvAttrs(c));
    for (auto& [name, value] : steps.attr()) attrs[kStepsAttrPrefix + name] = value;
    for (auto& [name, value] : conv.attr()) attrs[kConvAttrPrefix + name] = value;
    std::vector<Tensor> inputs = {x, scale, shift, filter};
    if (c.fused) inputs.insert(inputs.end(), {conv_scale, conv_shift});
    auto want = testing::RunOp("_FusedChannelStepsConv2D", inputs, attrs);
    REQUIRE(want.status.ok());
    attrs[kInt8ProductsAttr] = testing::BoolA(true);
    auto got = testing::RunOp("_FusedChannelStepsConv2D", inputs, attrs);
    REQUIRE(got.status.ok());
    const double off = testing::LargestRelativeDifference(got.outputs[0], want.outputs[0]);
    INFO("largest difference / largest value = " << off);
    CHECK(off < 1e-2);
    if (NativeInt8Products()) CHECK(off > 0);
  }
}

TEST_CASE("_FusedChannelStepsConv2D in bfloat16 gives the float node's values, each rounded once") {
  // DenseNet's layer with its activations in bfloat16: the block so far in pieces (two
  // layers' outputs), a batch norm and Relu, a 1x1 convolution with its own batch norm and
  // Relu. The reference: the float node on the same (exact) values with bfloat16 products
  // (which round the activated band to bfloat16, as the bfloat16 node does), its output then
  // rounded to bfloat16.
  for (const StepsCase& c : {StepsCase{1, 28, 28, 96, 128, true}, StepsCase{2, 7, 7, 48, 32, false}}) {
    INFO("batch " << c.batch << " " << c.rows << "x" << c.cols << " " << c.depth << " -> " << c.out_depth);
    const std::string conv_op = c.fused ? "_FusedConv2D" : "Conv2D";
    const int64_t half = c.depth / 2;
    const Tensor p1 = testing::ToBfloat16(SinePattern({c.batch, c.rows, c.cols, half}, 0.37f, 2.f));
    const Tensor p2 = testing::ToBfloat16(SinePattern({c.batch, c.rows, c.cols, c.depth - half}, 0.53f, 2.f));
    const Tensor scale = SinePattern({c.depth}, 0.13f), shift = SinePattern({c.depth}, 0.29f, 0.5f);
    const Tensor filter = testing::ToBfloat16(SinePattern({1, 1, c.depth, c.out_depth}, 0.71f, 0.3f));
    const Tensor conv_scale = SinePattern({c.out_depth}, 0.17f), conv_shift = SinePattern({c.out_depth}, 0.41f);
    AttrMap attrs = {{"T", TypeA(tensorflow::DT_FLOAT)},
                     {"num_pieces", IntA(2)},
                     {"num_step_args", IntA(2)},
                     {"num_args", IntA(c.fused ? 2 : 0)},
                     {"convolution", Str(conv_op)},
                     {kBfloat16ProductsAttr, testing::BoolA(true)}};
    const NodeDef steps = testing::MakeDef("_FusedChannelSteps", ChannelStepsAttrs());
    const NodeDef conv = testing::MakeDef(conv_op, StepsConvAttrs(c));
    for (auto& [name, value] : steps.attr()) attrs[kStepsAttrPrefix + name] = value;
    for (auto& [name, value] : conv.attr()) attrs[kConvAttrPrefix + name] = value;
    std::vector<Tensor> wide = {testing::WidenToFloat(p1), testing::WidenToFloat(p2), scale, shift,
                                testing::WidenToFloat(filter)};
    std::vector<Tensor> narrow = {p1, p2, scale, shift, filter};
    if (c.fused) {
      wide.insert(wide.end(), {conv_scale, conv_shift});
      narrow.insert(narrow.end(), {conv_scale, conv_shift});
    }
    auto want = testing::RunOp("_FusedChannelStepsConv2D", wide, attrs);
    REQUIRE(want.status.ok());
    attrs["T"] = TypeA(tensorflow::DT_BFLOAT16);
    auto got = testing::RunOp("_FusedChannelStepsConv2D", narrow, attrs);
    INFO(got.status);
    REQUIRE(got.status.ok());
    REQUIRE(got.outputs[0].dtype() == tensorflow::DT_BFLOAT16);
    const Tensor got_wide = testing::WidenToFloat(got.outputs[0]);
    const Tensor want_rounded = testing::WidenToFloat(testing::ToBfloat16(want.outputs[0]));
    // One rounding of the output: within a bfloat16 step of the largest value (and the sums'
    // order, oneDNN's in both).
    const double off = testing::LargestRelativeDifference(got_wide, want_rounded);
    INFO("largest difference / largest value = " << off);
    CHECK(off <= 1.0 / 128);
    // Not the float node's output passed through: a bfloat16 tensor of bfloat16 values.
    CHECK(testing::LargestRelativeDifference(got_wide, want.outputs[0]) > 0);
  }
}

}  // namespace
}  // namespace tensoract
