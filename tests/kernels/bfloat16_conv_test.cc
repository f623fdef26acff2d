// The kernels a graph with its activations in bfloat16 runs (graph/optimizer/
// mixed_precision.h, KeepActivationsInBfloat16): _MklNativeFusedConv2D in bfloat16 (kernels/
// cpu/conv_bfloat16_op.cc) gives the float convolution of its bfloat16 operands with its
// float per-channel steps, rounded once; a Cast marked "_reuse_while_input_unchanged"
// (kernels/cpu/cast_cache.h) gives the same output while its input is the same buffer.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include "graph/optimizer/mixed_precision.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::AttrMap;
using testing::Ints;
using testing::Str;
using testing::Strs;
using testing::TypeA;
using bfloat16 = Eigen::bfloat16;
using testing::ToBfloat16;
using testing::WidenToFloat;

tensorflow::AttrValue Types(const std::vector<DataType>& types) {
  tensorflow::AttrValue v;
  for (DataType t : types) v.mutable_list()->add_type(t);
  return v;
}

struct ConvCase {
  std::string name;
  std::vector<int64_t> input, filter;
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<std::string> fused_ops;
};

TEST_CASE("_MklNativeFusedConv2D in bfloat16 gives the float convolution of its operands, rounded once") {
  const std::vector<ConvCase> cases = {
      {"3x3 with bias and Relu", {2, 9, 9, 16}, {3, 3, 16, 32}, {1, 1, 1, 1}, "SAME", {"BiasAdd", "Relu"}},
      {"1x1 with a batch norm's scale and shift, a residual and Relu", {2, 7, 7, 64}, {1, 1, 64, 32},
       {1, 1, 1, 1}, "VALID", {"ChannelMul", "BiasAdd", "Add", "Relu"}},
      {"strided 3x3 with a batch norm", {1, 12, 12, 8}, {3, 3, 8, 48}, {1, 2, 2, 1}, "VALID",
       {"FusedBatchNorm", "Relu6"}},
      // A filter many times its image: in pieces of output channels (onednn_conv.cc).
      {"a deep 3x3 at batch 1 with a bias and a residual", {1, 3, 3, 256}, {3, 3, 256, 128}, {1, 1, 1, 1}, "SAME",
       {"BiasAdd", "Add", "Relu"}},
      // Too narrow for oneDNN here: the float kernel on widened copies, residual and all.
      {"a narrow 1x1 with a residual", {1, 5, 5, 4}, {1, 1, 4, 8}, {1, 1, 1, 1}, "SAME", {"BiasAdd", "Add"}},
      // Activations applied after oneDNN's primitive, on each piece's bfloat16 output
      // (onednn_conv.cc, ActivatesAfter): bands of rows, slices of channels, whole images.
      {"EfficientNet's 1x1 expansion with a batch norm and swish", {1, 12, 14, 16}, {1, 1, 16, 96}, {1, 1, 1, 1},
       "SAME", {"FusedBatchNorm", "_MklSwish"}},
      {"a deep 3x3 at batch 1 with a bias and Sigmoid", {1, 3, 3, 256}, {3, 3, 256, 128}, {1, 1, 1, 1}, "SAME",
       {"BiasAdd", "Sigmoid"}},
      {"a batch's 3x3 with a residual and Tanh", {4, 6, 6, 32}, {3, 3, 32, 48}, {1, 1, 1, 1}, "SAME",
       {"BiasAdd", "Add", "Tanh"}},
  };
  for (const ConvCase& c : cases) {
    INFO(c.name);
    const int64_t out_depth = c.filter[3];
    // Operands that bfloat16 holds exactly, so that both kernels multiply the same values.
    const Tensor x = WidenToFloat(ToBfloat16(testing::SinePattern(c.input, 0.37f)));
    const Tensor w = WidenToFloat(ToBfloat16(testing::SinePattern(c.filter, 0.11f, 0.2f)));
    std::vector<Tensor> args;
    std::vector<DataType> arg_types;
    for (const std::string& op : c.fused_ops) {
      if (op == "BiasAdd" || op == "ChannelMul") {
        args.push_back(testing::SinePattern({out_depth}, op == "BiasAdd" ? 0.5f : 0.9f, 0.4f));
        arg_types.push_back(tensorflow::DT_FLOAT);
      } else if (op == "FusedBatchNorm") {
        for (float a : {0.2f, 0.4f, 0.6f, 0.8f}) {
          Tensor t = testing::SinePattern({out_depth}, a, 0.3f);
          if (a == 0.8f) {
            for (int64_t i = 0; i < out_depth; ++i) t.base<float>()[i] = std::fabs(t.base<float>()[i]) + 0.5f;
          }
          args.push_back(t);
          arg_types.push_back(tensorflow::DT_FLOAT);
        }
      }
    }
    const bool adds = std::find(c.fused_ops.begin(), c.fused_ops.end(), "Add") != c.fused_ops.end();
    AttrMap attrs = {{"strides", Ints(c.strides)}, {"padding", Str(c.padding)}, {"fused_ops", Strs(c.fused_ops)},
                     {"num_args", testing::IntA(static_cast<int64_t>(args.size() + (adds ? 1 : 0)))}};

    // The float kernel on the same (exact) values, its output rounded to bfloat16.
    std::vector<Tensor> float_inputs = {x, w};
    for (const Tensor& a : args) float_inputs.push_back(a);
    Tensor addend;
    if (adds) {
      auto out_size = [&](int64_t in, int64_t k, int64_t stride) {
        return c.padding == "SAME" ? (in + stride - 1) / stride : (in - k) / stride + 1;
      };
      addend = WidenToFloat(ToBfloat16(testing::SinePattern({c.input[0], out_size(c.input[1], c.filter[0], c.strides[1]),
                                                        out_size(c.input[2], c.filter[1], c.strides[2]), out_depth},
                                                       0.23f)));
      float_inputs.push_back(addend);
    }
    std::vector<DataType> float_types = arg_types;
    if (adds) float_types.push_back(tensorflow::DT_FLOAT);
    AttrMap float_attrs = attrs;
    float_attrs["T"] = TypeA(tensorflow::DT_FLOAT);
    float_attrs["TArgs"] = Types(float_types);
    // Swish, Sigmoid and Tanh computed here, on the float kernel's output without them (both
    // kernels apply them the same way, after oneDNN's primitive).
    const std::string last = c.fused_ops.back();
    const bool activated_here = last == "_MklSwish" || last == "Sigmoid" || last == "Tanh";
    if (activated_here) {
      float_attrs["fused_ops"] = Strs(std::vector<std::string>(c.fused_ops.begin(), c.fused_ops.end() - 1));
    }
    auto want = testing::RunOp("_FusedConv2D", float_inputs, float_attrs);
    REQUIRE(want.status.ok());
    if (activated_here) {
      float* v = want.outputs[0].base<float>();
      for (int64_t i = 0; i < want.outputs[0].NumElements(); ++i) {
        const double y = v[i];
        v[i] = static_cast<float>(last == "_MklSwish" ? y / (1 + std::exp(-y))
                                  : last == "Sigmoid" ? 1 / (1 + std::exp(-y))
                                                      : std::tanh(y));
      }
    }

    std::vector<Tensor> inputs = {ToBfloat16(x), ToBfloat16(w)};
    for (const Tensor& a : args) inputs.push_back(a);
    std::vector<DataType> types = arg_types;
    if (adds) {
      inputs.push_back(ToBfloat16(addend));
      types.push_back(tensorflow::DT_BFLOAT16);
    }
    AttrMap bf16_attrs = attrs;
    bf16_attrs["T"] = TypeA(tensorflow::DT_BFLOAT16);
    bf16_attrs["TArgs"] = Types(types);
    const auto got = testing::RunOp("_MklNativeFusedConv2D", inputs, bf16_attrs);
    INFO(got.status);
    REQUIRE(got.status.ok());
    REQUIRE(got.outputs[0].dtype() == tensorflow::DT_BFLOAT16);
    REQUIRE(got.outputs[0].shape() == want.outputs[0].shape());
    const float* w_out = want.outputs[0].base<float>();
    const bfloat16* g_out = got.outputs[0].base<bfloat16>();
    float largest = 0;
    for (int64_t i = 0; i < want.outputs[0].NumElements(); ++i) largest = std::max(largest, std::fabs(w_out[i]));
    REQUIRE(largest > 0.1f);
    int64_t off = 0;
    for (int64_t i = 0; i < want.outputs[0].NumElements(); ++i) {
      // One rounding of the output (half a bfloat16 step of it) plus the float sums' order and
      // the batch norm's factor folded into the rounded filter: a bfloat16 step of the largest.
      const float g = static_cast<float>(g_out[i]);
      if (std::fabs(g - w_out[i]) > std::fabs(w_out[i]) / 256 + largest / 128) ++off;
    }
    CHECK(off == 0);
  }
}

TEST_CASE("a Cast marked to reuse its output gives the same output while its input is the same buffer") {
  AttrMap attrs = {{"SrcT", TypeA(tensorflow::DT_FLOAT)}, {"DstT", TypeA(tensorflow::DT_BFLOAT16)}};
  attrs[kReuseUnchangedInputAttr] = testing::BoolA(true);
  std::unique_ptr<OpKernel> cached, plain;
  REQUIRE(testing::MakeKernel("Cast", attrs, &cached).ok());
  attrs.erase(kReuseUnchangedInputAttr);
  REQUIRE(testing::MakeKernel("Cast", attrs, &plain).ok());

  const Tensor weights = testing::SinePattern({64, 32}, 0.3f);
  const auto first = testing::RunKernel(cached.get(), {weights});
  const auto again = testing::RunKernel(cached.get(), {weights});
  REQUIRE(first.status.ok());
  REQUIRE(again.status.ok());
  CHECK(again.outputs[0].SharesBufferWith(first.outputs[0]));
  const auto reference = testing::RunKernel(plain.get(), {weights});
  CHECK_FALSE(reference.outputs[0].SharesBufferWith(first.outputs[0]));
  CHECK(std::memcmp(reference.outputs[0].data(), first.outputs[0].data(), 64 * 32 * 2) == 0);

  // Another buffer (a variable written after the last step: its writer copied the buffer
  // the Cast holds) is cast again.
  Tensor changed = testing::SinePattern({64, 32}, 0.3f);
  changed.base<float>()[5] = 7.f;
  const auto recast = testing::RunKernel(cached.get(), {changed});
  REQUIRE(recast.status.ok());
  CHECK_FALSE(recast.outputs[0].SharesBufferWith(first.outputs[0]));
  CHECK(static_cast<float>(recast.outputs[0].base<bfloat16>()[5]) == 7.f);
  CHECK(static_cast<float>(first.outputs[0].base<bfloat16>()[5]) != 7.f);
}

}  // namespace
}  // namespace tensoract
