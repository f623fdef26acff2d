// DepthwiseConv2dNative and its two gradients on the CPU: values printed by TensorFlow 2.21
// (tf.raw_ops on the patterns below, oneDNN off), its rounding of half sums, and its
// refusals (NCHW, dilations, unequal strides, mismatched shapes).
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::I32;

using testing::Values;
using testing::AttrMap;
using testing::Ints;
using testing::RunMaybe;
using testing::Str;

AttrMap DepthwiseAttrs(DataType t, std::vector<int64_t> strides, const std::string& padding) {
  return {{"T", testing::TypeA(t)}, {"strides", Ints(strides)}, {"padding", Str(padding)}};
}

// ((i * a + b) % m - off) / div: small dyadic values, so every sum is exact.
std::vector<float> DwPattern(int64_t n, int a, int b, int m, int off, float div) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * a + b) % m - off) / div;
  return v;
}

Tensor DepthwiseX() { return Tensor::FromVector<float>(DwPattern(40, 7, 1, 11, 5, 4.f), {1, 4, 5, 2}); }
Tensor Filter() { return Tensor::FromVector<float>(DwPattern(36, 5, 2, 7, 3, 2.f), {3, 3, 2, 2}); }
Tensor Dy() { return Tensor::FromVector<float>(DwPattern(24, 3, 1, 5, 2, 1.f), {1, 2, 3, 4}); }

const DataType kFloat = tensorflow::DT_FLOAT;

TEST_CASE("DepthwiseConv2dNative with a depth multiplier of 2, stride 2, SAME and EXPLICIT padding",
          "[depthwise]") {
  testing::Run r = RunMaybe("DepthwiseConv2dNative", {DepthwiseX(), Filter()}, DepthwiseAttrs(kFloat, {1, 2, 2, 1}, "SAME"));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 2, 3, 4}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2.25,  -5.125, 2.125, -1.25, -3,     5.125, -4.125, 3,
                                                          -1,    -5.625, 0.375, -3.75, -0.25,  0.5,   0.5,    -0.25,
                                                          0.125, 2.25,   0.125, 2.75,  -3.875, 0.5,   -1.875, 1});
  AttrMap explicit_pad = DepthwiseAttrs(kFloat, {1, 1, 1, 1}, "EXPLICIT");
  explicit_pad["explicit_paddings"] = Ints({0, 0, 1, 0, 0, 2, 0, 0});
  r = RunMaybe("DepthwiseConv2dNative", {DepthwiseX(), Filter()}, explicit_pad);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 3, 5, 4}));
  const std::vector<float> want = {
      -0.625, -3.75, 0.125,  -4.25, 1.875,  -0.375, 1.5,   0.625, 1.625,  3,     0.125, 2.75,  1,    0.75,  0,
      1.75,   -1.125, -0.625, -1.625, -1.875, 0.875, 2.375, 0.25,  3.375,  -3,    5.125, -4.125, 3,    -4.125, 1,
      -3,     -1.5,  -1,     -5.625, 0.375,  -3.75, 0.75,  0,     1.75,   1.25,  0.75,  2.375, 0.375, 0.125, 1,
      -7.25,  0.125, -5.75,  2.625,  1,      2.625, 0.75,  2.25,  3.375,  2.875, 1.75,  1.75,  0.75,  1,     0.25};
  CHECK(Values<float>(r.outputs[0]) == want);
}

TEST_CASE("the depthwise gradients with respect to input and filter, stride 2 SAME", "[depthwise]") {
  testing::Run r = RunMaybe("DepthwiseConv2dNativeBackpropInput", {I32({1, 4, 5, 2}), Filter(), Dy()},
                            DepthwiseAttrs(kFloat, {1, 2, 2, 1}, "SAME"));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) ==
        std::vector<float>{4,    1,  4.5, 4,  -2.5, 1,  -3,   -1,   3.5, -1.5, -1, -3,  -0.5, -3,
                           1,    -2, -1.5, -5.5, -2, 4,  -5.5, 1,    2,   3,    -1, 0.5, -9,   -0.5,
                           3.5,  0,  0,   -2.5, 4,  -3, 2,    3.5,  0.5, 7,    -1, -3});
  r = RunMaybe("DepthwiseConv2dNativeBackpropFilter", {DepthwiseX(), I32({3, 3, 2, 2}), Dy()},
               DepthwiseAttrs(kFloat, {1, 2, 2, 1}, "SAME"));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) ==
        std::vector<float>{-5.25, 2.5,  -4.25, 2.25,  1.25,  -2.75, 0.5, -1.25, 2.5,  0.25,  2.25, 1.25,
                           3,     -3.75, 0.25, 0.5,   0.25,  2,     3.25, -3.25, -3.75, 2,    0.5,  2,
                           -2,    1.5,  2,     -1,    -3.75, 3.5,   -2.75, 0.5,  1.5,   -2.5, -1,   -1.5});
}

TEST_CASE("half depthwise sums round to half after every tap, as TensorFlow's", "[depthwise]") {
  // 1 + 3 * 2^-11: rounded per tap it stays 1 (TensorFlow: 1); summed in float first, 1 + 2^-10.
  const float e = std::ldexp(1.f, -11);
  std::vector<Eigen::half> x = {Eigen::half(1.f), Eigen::half(e), Eigen::half(e), Eigen::half(e)};
  std::vector<Eigen::half> f(4, Eigen::half(1.f));
  testing::Run r = RunMaybe("DepthwiseConv2dNative",
                            {Tensor::FromVector<Eigen::half>(x, {1, 1, 4, 1}), Tensor::FromVector<Eigen::half>(f, {1, 4, 1, 1})},
                            DepthwiseAttrs(tensorflow::DT_HALF, {1, 1, 1, 1}, "VALID"));
  REQUIRE(r.status.ok());
  CHECK(static_cast<float>(r.outputs[0].base<Eigen::half>()[0]) == 1.f);
}

TEST_CASE("a tap in the padding still multiplies the filter: an infinite filter tap gives NaN there",
          "[depthwise]") {
  const float inf = std::numeric_limits<float>::infinity();
  testing::Run r = RunMaybe("DepthwiseConv2dNative",
                            {Tensor::FromVector<float>({1, 1, 1}, {1, 1, 3, 1}),
                             Tensor::FromVector<float>({inf, 1, 1}, {1, 3, 1, 1})},
                            DepthwiseAttrs(kFloat, {1, 1, 1, 1}, "SAME"));
  REQUIRE(r.status.ok());
  const std::vector<float> y = Values<float>(r.outputs[0]);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == inf);
  CHECK(y[2] == inf);
}

TEST_CASE("the depthwise kernels refuse what TensorFlow's CPU kernels refuse", "[depthwise]") {
  SECTION("NCHW, unless there is nothing to compute") {
    AttrMap nchw = DepthwiseAttrs(kFloat, {1, 1, 1, 1}, "SAME");
    nchw["data_format"] = Str("NCHW");
    Tensor x = Tensor::FromVector<float>(std::vector<float>(50, 1.f), {1, 2, 5, 5});
    testing::Run r = RunMaybe("DepthwiseConv2dNative", {x, Filter()}, nchw);
    CHECK(r.status.code() == error::UNIMPLEMENTED);
    CHECK(r.status.message().find("only supported for NHWC") != std::string::npos);
    r = RunMaybe("DepthwiseConv2dNative", {Tensor(kFloat, TensorShape({0, 2, 5, 5})), Filter()}, nchw);
    REQUIRE(r.status.ok());
    CHECK(r.outputs[0].shape() == TensorShape({0, 4, 5, 5}));
    r = RunMaybe("DepthwiseConv2dNativeBackpropFilter",
                 {x, I32({3, 3, 2, 2}), Tensor::FromVector<float>(std::vector<float>(100, 1.f), {1, 4, 5, 5})}, nchw);
    CHECK(r.status.code() == error::UNIMPLEMENTED);
  }
  SECTION("dilations in the forward op; the gradients ignore them") {
    AttrMap dilated = DepthwiseAttrs(kFloat, {1, 1, 1, 1}, "SAME");
    dilated["dilations"] = Ints({1, 2, 2, 1});
    testing::Run r = RunMaybe("DepthwiseConv2dNative", {DepthwiseX(), Filter()}, dilated);
    CHECK(r.status.code() == error::UNIMPLEMENTED);
    CHECK(r.status.message().find("does not support dilations, received [1 2 2 1]") != std::string::npos);
    AttrMap plain = DepthwiseAttrs(kFloat, {1, 2, 2, 1}, "SAME");
    dilated["strides"] = Ints({1, 2, 2, 1});
    testing::Run a = RunMaybe("DepthwiseConv2dNativeBackpropInput", {I32({1, 4, 5, 2}), Filter(), Dy()}, dilated);
    testing::Run b = RunMaybe("DepthwiseConv2dNativeBackpropInput", {I32({1, 4, 5, 2}), Filter(), Dy()}, plain);
    REQUIRE(a.status.ok());
    REQUIRE(b.status.ok());
    CHECK(Values<float>(a.outputs[0]) == Values<float>(b.outputs[0]));
  }
  SECTION("strides unequal in rows and columns, or in batch and depth") {
    testing::Run r = RunMaybe("DepthwiseConv2dNative", {DepthwiseX(), Filter()}, DepthwiseAttrs(kFloat, {1, 1, 2, 1}, "SAME"));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    r = RunMaybe("DepthwiseConv2dNative", {DepthwiseX(), Filter()}, DepthwiseAttrs(kFloat, {1, 1, 1, 2}, "SAME"));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
  }
  SECTION("mismatched depths and shapes") {
    Tensor f3 = Tensor::FromVector<float>(std::vector<float>(27, 1.f), {3, 3, 3, 1});
    testing::Run r = RunMaybe("DepthwiseConv2dNative", {DepthwiseX(), f3}, DepthwiseAttrs(kFloat, {1, 1, 1, 1}, "SAME"));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    CHECK(r.status.message().find("input and filter must have the same depth: 2 vs 3") != std::string::npos);
    r = RunMaybe("DepthwiseConv2dNativeBackpropInput", {I32({1, 4, 4, 2}), Filter(), Dy()},
                 DepthwiseAttrs(kFloat, {1, 2, 2, 1}, "SAME"));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    CHECK(r.status.message().find("Number of cols of out_backprop doesn't match computed: actual = 3, "
                                        "computed = 2") != std::string::npos);
    r = RunMaybe("DepthwiseConv2dNativeBackpropFilter", {DepthwiseX(), I32({3, 3, 2, 1}), Dy()},
                 DepthwiseAttrs(kFloat, {1, 2, 2, 1}, "SAME"));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    CHECK(r.status.message().find("depth_multiplier * in_depth not equal to out_depth") != std::string::npos);
    r = RunMaybe("DepthwiseConv2dNativeBackpropFilter", {DepthwiseX(), I32({3, -3, 2, 2}), Dy()},
                 DepthwiseAttrs(kFloat, {1, 2, 2, 1}, "SAME"));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
  }
  SECTION("a window longer than the padded input") {
    testing::Run r = RunMaybe("DepthwiseConv2dNative",
                              {Tensor::FromVector<float>({1, 2, 3, 4}, {1, 2, 2, 1}),
                               Tensor::FromVector<float>(std::vector<float>(16, 1.f), {4, 4, 1, 1})},
                              DepthwiseAttrs(kFloat, {1, 1, 1, 1}, "VALID"));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    CHECK(r.status.message().find("Computed output size would be negative: -1") != std::string::npos);
  }
}

}  // namespace
}  // namespace tensoract
