// Products in 8-bit integers (kernels/cpu/int8_products.h): Conv2D and _FusedConv2D with
// "_int8_products". Where oneDNN has integer kernels for the CPU, a never-negative input
// gives exactly the convolution of the quantized operands (the input to 7 bits, 8 with VNNI,
// with a power of two for its scale, the filter per output channel to 127 steps), scaled back in float;
// a signed input, a bias, a residual and a ReLU stay within the quantization's error of the
// float result; a NaN in the input makes the call float. Elsewhere the attr is ignored.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "kernels/cpu/int8_products.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::AttrMap;
using testing::BoolA;
using testing::Ints;
using testing::Str;
using testing::TypeA;

TEST_CASE("Conv2D with _int8_products convolves the quantized operands where the CPU has integer kernels") {
  const int64_t batch = 2, rows = 9, cols = 7, in = 32, out = 32;
  // Never negative (a ReLU's output): quantized to [0, 127].
  Tensor x = testing::SinePattern({batch, rows, cols, in}, 0.37f, 3.f);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.base<float>()[i] = std::fabs(x.base<float>()[i]);
  const Tensor f = testing::Shifted(testing::SinePattern({3, 3, in, out}, 0.11f, 0.2f), 0.1f);
  AttrMap attrs{{"T", TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("SAME")}};
  const auto exact = testing::RunOp("Conv2D", {x, f}, attrs);
  REQUIRE(exact.status.ok());
  attrs["_int8_products"] = BoolA(true);
  const auto ran = testing::RunOp("Conv2D", {x, f}, attrs);
  REQUIRE(ran.status.ok());
  if (!NativeInt8Products()) {
    CHECK(testing::LargestRelativeDifference(ran.outputs[0], exact.outputs[0]) < 1e-6);
    return;
  }
  // The input's step: the largest power of two with 127 steps reaching its largest value.
  double largest = 0;
  for (int64_t i = 0; i < x.NumElements(); ++i) largest = std::max(largest, double{x.base<float>()[i]});
  const double levels = Int8UnsignedLevels();
  const double input_scale = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(levels / largest))));
  std::vector<double> xq(x.NumElements()), fq(f.NumElements()), filter_scale(out, 0.0);
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    xq[i] = std::min(levels, std::nearbyint(x.base<float>()[i] * input_scale));
  }
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    filter_scale[i % out] = std::max(filter_scale[i % out], std::fabs(double{f.base<float>()[i]}));
  }
  for (double& s : filter_scale) s = 127.0 / s;
  for (int64_t i = 0; i < f.NumElements(); ++i) fq[i] = std::nearbyint(f.base<float>()[i] * filter_scale[i % out]);
  std::vector<double> want = testing::ReferenceConv3x3Same(xq, fq, batch, rows, cols, in, out);
  for (size_t i = 0; i < want.size(); ++i) want[i] /= input_scale * filter_scale[i % out];
  Tensor reference(tensorflow::DT_FLOAT, exact.outputs[0].shape());
  for (size_t i = 0; i < want.size(); ++i) reference.base<float>()[i] = static_cast<float>(want[i]);
  CHECK(testing::LargestRelativeDifference(ran.outputs[0], reference) < 1e-5);
  // And near the float convolution, but not it.
  const double off = testing::LargestRelativeDifference(ran.outputs[0], exact.outputs[0]);
  CHECK(off < 1e-2);
  CHECK(off > 0);
}

TEST_CASE("_FusedConv2D with _int8_products keeps its bias, residual and ReLU within the quantization's error") {
  struct Case {
    const char* name;
    std::vector<int64_t> input, filter;
  };
  const std::vector<Case> cases = {
      {"a batch of two 3x3 layers of 32 channels", {2, 9, 7, 32}, {3, 3, 32, 48}},
      // A filter many times its image: in pieces of output channels (onednn_conv.cc).
      {"a deep 3x3 at batch 1", {1, 3, 3, 256}, {3, 3, 256, 128}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const int64_t out = c.filter[3];
    // Signed input: int8 [-127, 127].
    Tensor x = testing::Shifted(testing::SinePattern(c.input, 0.37f, 2.f), 1.f);
    const Tensor f = testing::Shifted(testing::SinePattern(c.filter, 0.11f, 0.2f), 0.1f);
    const Tensor bias = testing::SinePattern({out}, 0.5f, 0.4f);
    const Tensor addend = testing::SinePattern({c.input[0], c.input[1], c.input[2], out}, 0.23f);
    tensorflow::AttrValue arg_types;
    arg_types.mutable_list()->add_type(tensorflow::DT_FLOAT);
    arg_types.mutable_list()->add_type(tensorflow::DT_FLOAT);
    AttrMap attrs{{"T", TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("SAME")},
                  {"fused_ops", testing::Strs({"BiasAdd", "Add", "Relu"})}, {"num_args", testing::IntA(2)},
                  {"TArgs", arg_types}};
    const auto exact = testing::RunOp("_FusedConv2D", {x, f, bias, addend}, attrs);
    REQUIRE(exact.status.ok());
    attrs["_int8_products"] = BoolA(true);
    const auto ran = testing::RunOp("_FusedConv2D", {x, f, bias, addend}, attrs);
    REQUIRE(ran.status.ok());
    const double off = testing::LargestRelativeDifference(ran.outputs[0], exact.outputs[0]);
    INFO("largest difference / largest value = " << off);
    if (NativeInt8Products()) {
      CHECK(off < 1e-2);
      CHECK(off > 0);
    } else {
      CHECK(off < 1e-6);
    }
    // A NaN in the input: the call runs in float, the NaN where float puts it.
    x.base<float>()[5] = std::nanf("");
    const auto with_nan = testing::RunOp("_FusedConv2D", {x, f, bias, addend}, attrs);
    REQUIRE(with_nan.status.ok());
    attrs.erase("_int8_products");
    const auto float_nan = testing::RunOp("_FusedConv2D", {x, f, bias, addend}, attrs);
    REQUIRE(float_nan.status.ok());
    for (int64_t i = 0; i < float_nan.outputs[0].NumElements(); ++i) {
      const float a = with_nan.outputs[0].base<float>()[i], b = float_nan.outputs[0].base<float>()[i];
      REQUIRE((std::isnan(a) == std::isnan(b) && (std::isnan(a) || a == b)));
    }
  }
}

}  // namespace
}  // namespace tensoract
