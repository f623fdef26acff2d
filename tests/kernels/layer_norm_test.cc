// _MklLayerNorm (kernels/cpu/layer_norm_op.cc): each row over the last dimension normalised
// with its own mean and variance, then scaled and shifted per element, against a double
// loop; rows long and short (the vectorised sums' tails); scale and offset of the wrong size
// refused with the node named.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::FloatA;
using testing::TypeA;
using testing::Values;

Tensor LnPattern(std::vector<int64_t> dims, float a, float b) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(a * static_cast<float>(i)) * 3.f + b;
  return Tensor::FromVector<float>(v, TensorShape(dims));
}

TEST_CASE("_MklLayerNorm normalises each row over the last dimension, then scales and shifts it") {
  for (int64_t c : {1, 7, 16, 40, 768}) {
    INFO("rows of " << c);
    const Tensor x = LnPattern({3, 4, c}, 0.37f, 5.f), scale = LnPattern({c}, 0.9f, 1.f), offset = LnPattern({c}, 0.2f, 0.f);
    const float epsilon = 1e-3f;
    auto r = testing::RunOp("_MklLayerNorm", {x, scale, offset},
                            {{"T", TypeA(tensorflow::DT_FLOAT)}, {"epsilon", FloatA(epsilon)}});
    REQUIRE(r.status.ok());
    const std::vector<float> got = Values<float>(r.outputs[0]);
    REQUIRE(r.outputs[0].shape() == x.shape());
    const float* in = x.base<float>();
    for (int64_t row = 0; row < 12; ++row) {
      double mean = 0, variance = 0;
      for (int64_t j = 0; j < c; ++j) mean += in[row * c + j];
      mean /= static_cast<double>(c);
      for (int64_t j = 0; j < c; ++j) variance += (in[row * c + j] - mean) * (in[row * c + j] - mean);
      variance /= static_cast<double>(c);
      for (int64_t j = 0; j < c; ++j) {
        const double want = (in[row * c + j] - mean) / std::sqrt(variance + epsilon) * scale.base<float>()[j] +
                            offset.base<float>()[j];
        CHECK(got[row * c + j] == Approx(want).epsilon(1e-5).margin(1e-5));
      }
    }
  }
}

TEST_CASE("_MklLayerNorm refuses a scale or offset that is not one value per element of the last dimension") {
  auto r = testing::RunMaybe("_MklLayerNorm", {LnPattern({2, 8}, 0.3f, 0.f), LnPattern({7}, 0.1f, 1.f), LnPattern({8}, 0.2f, 0.f)},
                             {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("node 'n'") != std::string::npos);
  CHECK(r.status.message().find("scale has shape [7] but x's last dimension is 8") != std::string::npos);
}

}  // namespace
}  // namespace tensoract
