// Conv3D, MaxPool3D, AvgPool3D and the pools' gradients (kernels/cpu/conv3d_ops.cc,
// pool3d_ops.cc) where TensorFlow's behaviour is particular: what its CPU kernels refuse, its
// max pooling's scan through NaN and padding, and the windows its 3-D pooling gradients use.
// The harness (tests/compat, family nn3d) compares all seven ops with TensorFlow over random
// and edge values; tests/actors/gradient_check_conv_test.cc checks Conv3D's gradient.
#include <cmath>
#include <limits>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::Ints;
using testing::Str;

using testing::RunOp;
using testing::TypeA;


TEST_CASE("Conv3D sums each window's products; TensorFlow's CPU refusals") {
  // Ones through a 2x2x2 filter of ones over 2x3x3 (VALID): every output sums 8 inputs of 1
  // in each of 2 channels.
  const Tensor x = Tensor::FromVector<float>(std::vector<float>(2 * 3 * 3 * 2, 1.f), TensorShape({1, 2, 3, 3, 2}));
  const Tensor f = Tensor::FromVector<float>(std::vector<float>(2 * 2 * 2 * 2 * 1, 1.f), TensorShape({2, 2, 2, 2, 1}));
  auto attrs = [](std::vector<int64_t> dilations, const std::string& format) {
    return testing::AttrMap{{"T", TypeA(tensorflow::DT_FLOAT)},
                            {"strides", Ints({1, 1, 1, 1, 1})},
                            {"padding", Str("VALID")},
                            {"dilations", Ints(std::move(dilations))},
                            {"data_format", Str(format)}};
  };
  auto r = RunOp("Conv3D", {x, f}, attrs({1, 1, 1, 1, 1}, "NDHWC"));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 1, 2, 2, 1}));
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>(4, 16.f));
  r = testing::RunMaybe("Conv3D", {x, f}, attrs({1, 2, 1, 1, 1}, "NDHWC"));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("only supports dilated rates of 1"));
  r = testing::RunMaybe("Conv3D", {x, f}, attrs({1, 1, 1, 1, 1}, "NCDHW"));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("only supports NDHWC"));
}

testing::AttrMap PoolAttrs(std::vector<int64_t> ksize, const std::string& padding) {
  return {{"T", TypeA(tensorflow::DT_FLOAT)},
          {"ksize", Ints(std::move(ksize))},
          {"strides", Ints({1, 1, 1, 1, 1})},
          {"padding", Str(padding)}};
}

TEST_CASE("MaxPool3D scans its window as TensorFlow does: a NaN is taken, then dropped by the next value") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Windows of 3 along the columns, SAME: [pad, 7, NaN], [7, NaN, -5], [NaN, -5, pad].
  const Tensor x = Tensor::FromVector<float>({7.f, nan, -5.f}, TensorShape({1, 1, 1, 3, 1}));
  auto r = RunOp("MaxPool3D", {x}, PoolAttrs({1, 1, 1, 3, 1}, "SAME"));
  REQUIRE(r.status.ok());
  const auto v = testing::Values<float>(r.outputs[0]);
  CHECK(std::isnan(v[0]));
  CHECK(v[1] == -5.f);
  CHECK(v[2] == -5.f);  // -5 beats the padding (the lowest float)
}

TEST_CASE("AvgPool3DGrad gives a window clipped at both ends to the inputs TensorFlow's does") {
  // A window of 5 columns over 4 with 2 of padding before: the middle output's window covers
  // all 4 columns; the first's covers columns 0-2 but TensorFlow sends its gradient to
  // columns 0-3, a quarter each (its GetBroadcastSize).
  const Tensor sizes = Tensor::FromVector<int32_t>({1, 1, 1, 4, 1});
  const Tensor grad = Tensor::FromVector<float>({4.f, 0.f, 0.f, 0.f}, TensorShape({1, 1, 1, 4, 1}));
  auto r = RunOp("AvgPool3DGrad", {sizes, grad}, PoolAttrs({1, 1, 1, 5, 1}, "SAME"));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{1.f, 1.f, 1.f, 1.f});
}

}  // namespace
}  // namespace tensoract
