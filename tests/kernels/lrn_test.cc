// LRN and LRNGrad (kernels/cpu/lrn_op.cc) on values worked by hand, and their refusals. The
// harness (tests/compat, LRN) compares them with TensorFlow, the gradient too.
#include <cmath>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::AttrMap;
using testing::FloatA;
using testing::IntA;
using testing::RunMaybe;
using testing::RunOp;
using testing::Values;

TEST_CASE("LRN divides by bias + alpha * the window's sum of squares to the power beta") {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 1, 1, 3}));
  const AttrMap attrs = {{"depth_radius", IntA(1)}, {"bias", FloatA(1)}, {"alpha", FloatA(1)}, {"beta", FloatA(1)}};
  const auto y = RunOp("LRN", {x}, attrs);
  REQUIRE(y.status.ok());
  // Windows {1, 2}, {1, 2, 3}, {2, 3}: 1 + 5, 1 + 14, 1 + 13.
  CHECK(Values<float>(y.outputs[0]) == std::vector<float>{1.f / 6, 2.f / 15, 3.f / 14});

  // The gradient of sum(y) with respect to x[0], by hand: d(x0 / m0)/dx0 + d(x1 / m1)/dx0.
  const Tensor ones = Tensor::FromVector<float>({1, 1, 1}, TensorShape({1, 1, 1, 3}));
  const auto g = RunOp("LRNGrad", {ones, x, y.outputs[0]}, attrs);
  REQUIRE(g.status.ok());
  const float want0 = 1.f / 6 - 2 * 1 * 1 / 36.f - 2 * 1 * 2 / 225.f;
  CHECK(Values<float>(g.outputs[0])[0] == Approx(want0).epsilon(1e-6));
}

TEST_CASE("LRN refuses what is not 4-D, and LRNGrad inputs of different shapes") {
  const auto flat = RunMaybe("LRN", {Tensor::FromVector<float>({1, 2, 3})}, {});
  CHECK_FALSE(flat.status.ok());
  CHECK(flat.status.message().find("4-dimensional") != std::string::npos);
  const Tensor a = Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 1, 1, 3}));
  const Tensor b = Tensor::FromVector<float>({1, 2}, TensorShape({1, 1, 1, 2}));
  const auto mismatch = RunMaybe("LRNGrad", {a, a, b}, {});
  CHECK_FALSE(mismatch.status.ok());
  CHECK(mismatch.status.message().find("same shape") != std::string::npos);
}

}  // namespace
}  // namespace tensoract
