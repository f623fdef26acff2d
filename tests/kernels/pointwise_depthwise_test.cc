// _FusedConv2DWithDepthwise (kernels/cpu/pointwise_depthwise_op.cc) against the kernels it
// fuses, run one after the other (with the projection after them, residual or not): the same
// values to the last bit (each convolution runs on oneDNN as it would alone), for strides 1
// and 2, windows 3 and 5, SAME, VALID and explicit padding, images taller than one band, a
// batch of one split into parts of rows, products in bfloat16; with products in 8-bit
// integers, within the quantization's error of the float values. Bad shapes are refused
// naming the node.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "graph/optimizer/mixed_precision.h"
#include "graph/optimizer/pointwise_depthwise_fusion.h"
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

struct PointwiseCase {
  int64_t batch, rows, cols, in_depth, expanded, window, stride;
  std::string padding;
  std::vector<int64_t> explicit_paddings;
  int64_t projected = 0;  // the projection's depth; 0: none
  bool residual = false;  // the projection adds the block's input
};

// The two nodes' attrs: a Keras batch norm (ChannelMul, BiasAdd) and Relu6 each.
AttrMap PointwiseAttrs() {
  tensorflow::AttrValue targs;
  targs.mutable_list()->add_type(tensorflow::DT_FLOAT);
  targs.mutable_list()->add_type(tensorflow::DT_FLOAT);
  return {{"T", TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("VALID")},
          {"fused_ops", Strs({"ChannelMul", "BiasAdd", "Relu6"})}, {"num_args", IntA(2)}, {"TArgs", targs}};
}
AttrMap DepthwiseAttrs(const PointwiseCase& c) {
  AttrMap attrs = {{"T", TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, c.stride, c.stride, 1})},
                   {"padding", Str(c.padding)}, {"fused_ops", Strs({"ChannelMul", "BiasAdd", "Relu6"})},
                   {"num_args", IntA(2)}};
  if (c.padding == "EXPLICIT") attrs["explicit_paddings"] = Ints(c.explicit_paddings);
  return attrs;
}

// The projection: a Keras batch norm, no activation (a linear bottleneck), and the block's
// input added where `residual`.
AttrMap ProjectAttrs(const PointwiseCase& c) {
  tensorflow::AttrValue targs;
  for (int i = 0; i < (c.residual ? 3 : 2); ++i) targs.mutable_list()->add_type(tensorflow::DT_FLOAT);
  return {{"T", TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("SAME")},
          {"fused_ops", c.residual ? Strs({"ChannelMul", "BiasAdd", "Add"}) : Strs({"ChannelMul", "BiasAdd"})},
          {"num_args", IntA(c.residual ? 3 : 2)}, {"TArgs", targs}};
}

AttrMap FusedAttrs(const PointwiseCase& c) {
  AttrMap attrs = {{"T", TypeA(tensorflow::DT_FLOAT)},
                   {"num_pointwise_args", IntA(2)},
                   {"num_depthwise_args", IntA(2)},
                   {"num_project_inputs", IntA(c.projected == 0 ? 0 : c.residual ? 4 : 3)}};
  const NodeDef pointwise = testing::MakeDef("_FusedConv2D", PointwiseAttrs());
  const NodeDef depthwise = testing::MakeDef("_FusedDepthwiseConv2dNative", DepthwiseAttrs(c));
  const NodeDef project = testing::MakeDef("_FusedConv2D", ProjectAttrs(c));
  for (auto& [name, value] : pointwise.attr()) attrs[kPointwiseAttrPrefix + name] = value;
  for (auto& [name, value] : depthwise.attr()) attrs[kDepthwiseAttrPrefix + name] = value;
  if (c.projected > 0) {
    for (auto& [name, value] : project.attr()) attrs[kProjectAttrPrefix + name] = value;
  }
  return attrs;
}

void CheckAgainstUnfused(const PointwiseCase& c, bool bfloat16 = false) {
  INFO("batch " << c.batch << " " << c.rows << "x" << c.cols << " " << c.in_depth << " -> " << c.expanded
                << ", window " << c.window << " stride " << c.stride << " " << c.padding);
  const Tensor x = SinePattern({c.batch, c.rows, c.cols, c.in_depth}, 0.37f);
  const Tensor pw = SinePattern({1, 1, c.in_depth, c.expanded}, 0.71f, 0.5f);
  const Tensor pw_scale = SinePattern({c.expanded}, 0.13f, 0.5f), pw_shift = SinePattern({c.expanded}, 0.29f);
  const Tensor dw = SinePattern({c.window, c.window, c.expanded, 1}, 0.53f, 0.4f);
  const Tensor dw_scale = SinePattern({c.expanded}, 0.17f), dw_shift = SinePattern({c.expanded}, 0.41f);

  // Products in bfloat16 (graph/optimizer/mixed_precision.h) mark the pointwise
  // convolution, and the fused node that holds it.
  AttrMap pointwise_attrs = PointwiseAttrs(), fused_attrs = FusedAttrs(c);
  if (bfloat16) pointwise_attrs[kBfloat16ProductsAttr] = fused_attrs[kBfloat16ProductsAttr] = testing::BoolA(true);
  auto expanded = testing::RunOp("_FusedConv2D", {x, pw, pw_scale, pw_shift}, pointwise_attrs);
  REQUIRE(expanded.status.ok());
  auto want = testing::RunOp("_FusedDepthwiseConv2dNative", {expanded.outputs[0], dw, dw_scale, dw_shift},
                             DepthwiseAttrs(c));
  REQUIRE(want.status.ok());
  std::vector<Tensor> fused_inputs = {x, pw, pw_scale, pw_shift, dw, dw_scale, dw_shift};
  if (c.projected > 0) {
    const Tensor project = SinePattern({1, 1, c.expanded, c.projected}, 0.61f, 0.3f);
    const Tensor scale = SinePattern({c.projected}, 0.23f), shift = SinePattern({c.projected}, 0.31f);
    std::vector<Tensor> inputs = {want.outputs[0], project, scale, shift};
    if (c.residual) inputs.push_back(x);  // the block's input: as deep as the projection
    AttrMap project_attrs = ProjectAttrs(c);
    if (bfloat16) project_attrs[kBfloat16ProductsAttr] = testing::BoolA(true);
    want = testing::RunOp("_FusedConv2D", inputs, project_attrs);
    REQUIRE(want.status.ok());
    for (size_t i = 1; i < inputs.size(); ++i) fused_inputs.push_back(inputs[i]);
  }
  auto got = testing::RunOp("_FusedConv2DWithDepthwise", fused_inputs, fused_attrs);
  INFO(got.status);
  REQUIRE(got.status.ok());
  testing::CheckSameFloats(got.outputs[0], want.outputs[0]);
}

const PointwiseCase kCases[] = {
    {1, 17, 15, 8, 48, 3, 1, "SAME", {}},    // a batch of one: parts of its rows
    {3, 20, 20, 16, 32, 3, 2, "SAME", {}},   // stride 2
    {2, 9, 11, 5, 24, 5, 2, "EXPLICIT", {0, 0, 1, 2, 2, 1, 0, 0}},  // a folded Pad
    {5, 40, 40, 4, 96, 3, 1, "VALID", {}},   // two bands an image
    {4, 64, 64, 16, 64, 3, 1, "SAME", {}},   // three bands, rows kept between them
    {2, 61, 33, 24, 144, 5, 2, "SAME", {}},  // bands of stride 2, window 5
    // MobileNetV2's blocks: projected back, with and without the residual.
    {3, 40, 36, 24, 144, 3, 1, "SAME", {}, 24, true},
    {1, 29, 30, 16, 96, 3, 2, "SAME", {}, 24, false},
    {2, 64, 64, 16, 64, 3, 1, "SAME", {}, 16, true},
};

TEST_CASE("_FusedConv2DWithDepthwise gives the two convolutions' values, band by band") {
  for (const PointwiseCase& c : kCases) CheckAgainstUnfused(c);
}

TEST_CASE("_FusedConv2DWithDepthwise with products in bfloat16 gives the two convolutions' values") {
  for (const PointwiseCase& c : {kCases[0], kCases[4], kCases[6]}) CheckAgainstUnfused(c, /*bfloat16=*/true);
}

TEST_CASE("_FusedConv2DWithDepthwise with int8 products stays within the quantization's error") {
  // MobileNetV2's blocks, projected back with and without the residual. The 1x1 filters
  // positive, so that their sums do not cancel out.
  for (const PointwiseCase& c : {kCases[0], kCases[6], kCases[7]}) {
    INFO("batch " << c.batch << " " << c.rows << "x" << c.cols << " " << c.in_depth << " -> " << c.expanded);
    std::vector<Tensor> inputs = {SinePattern({c.batch, c.rows, c.cols, c.in_depth}, 0.37f),
                                  testing::Shifted(SinePattern({1, 1, c.in_depth, c.expanded}, 0.71f, 0.2f), 0.3f),
                                  SinePattern({c.expanded}, 0.13f, 0.5f),
                                  SinePattern({c.expanded}, 0.29f),
                                  SinePattern({c.window, c.window, c.expanded, 1}, 0.53f, 0.4f),
                                  SinePattern({c.expanded}, 0.17f),
                                  SinePattern({c.expanded}, 0.41f)};
    if (c.projected > 0) {
      inputs.push_back(testing::Shifted(SinePattern({1, 1, c.expanded, c.projected}, 0.61f, 0.1f), 0.2f));
      inputs.push_back(SinePattern({c.projected}, 0.23f));
      inputs.push_back(SinePattern({c.projected}, 0.31f));
      if (c.residual) inputs.push_back(inputs[0]);
    }
    AttrMap attrs = FusedAttrs(c);
    auto want = testing::RunOp("_FusedConv2DWithDepthwise", inputs, attrs);
    REQUIRE(want.status.ok());
    attrs[kInt8ProductsAttr] = testing::BoolA(true);
    auto got = testing::RunOp("_FusedConv2DWithDepthwise", inputs, attrs);
    REQUIRE(got.status.ok());
    const double off = testing::LargestRelativeDifference(got.outputs[0], want.outputs[0]);
    INFO("largest difference / largest value = " << off);
    CHECK(off < 2e-2);
    if (NativeInt8Products()) CHECK(off > 0);
  }
}

TEST_CASE("_FusedConv2DWithDepthwise refuses a pointwise filter that does not match the input") {
  const PointwiseCase c = kCases[0];
  auto r = testing::RunOp("_FusedConv2DWithDepthwise",
                          {SinePattern({1, 8, 8, 3}, 0.1f), SinePattern({1, 1, 4, 16}, 0.2f), SinePattern({16}, 0.3f),
                           SinePattern({16}, 0.4f), SinePattern({3, 3, 16, 1}, 0.5f), SinePattern({16}, 0.6f), SinePattern({16}, 0.7f)},
                          FusedAttrs(c));
  REQUIRE_FALSE(r.status.ok());
  INFO(r.status);
  CHECK(r.status.message().find("'n/pointwise'") != std::string::npos);
}

}  // namespace
}  // namespace tensoract
