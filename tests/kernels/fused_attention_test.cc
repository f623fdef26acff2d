// _FusedAttention (kernels/cpu/fused_attention_op.cc) against a double loop: query rows in
// more than one block (300 tokens, 200 keys), a value depth other than the key's; shapes that
// do not match refused with the node named; a mask added before the softmax.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::FloatA;
using testing::TypeA;
using testing::Values;

Tensor AttnPattern(std::vector<int64_t> dims, float a) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(a * static_cast<float>(i) + 0.1f);
  return Tensor::FromVector<float>(v, TensorShape(dims));
}

TEST_CASE("_FusedAttention is softmax(scale q k^T) v per batch element and head") {
  const int64_t b = 2, t = 300, s = 200, heads = 2, h = 8, hv = 5;
  const float scale = 0.35f;
  const Tensor q = AttnPattern({b, t, heads, h}, 0.37f), k = AttnPattern({b, s, heads, h}, 0.71f),
               v = AttnPattern({b, s, heads, hv}, 0.13f);
  auto r = testing::RunOp("_FusedAttention", {q, k, v}, {{"T", TypeA(tensorflow::DT_FLOAT)}, {"scale", FloatA(scale)}});
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].shape() == TensorShape({b, t, heads, hv}));
  const std::vector<float> got = Values<float>(r.outputs[0]);
  const float *qp = q.base<float>(), *kp = k.base<float>(), *vp = v.base<float>();
  std::vector<double> p(s);
  for (int64_t bi = 0; bi < b; ++bi) {
    for (int64_t n = 0; n < heads; ++n) {
      for (int64_t i = 0; i < t; i += 7) {  // every 7th row: both blocks, their edges
        double most = -1e300, sum = 0;
        for (int64_t j = 0; j < s; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < h; ++d) dot += qp[((bi * t + i) * heads + n) * h + d] * kp[((bi * s + j) * heads + n) * h + d];
          p[j] = scale * dot;
          most = std::max(most, p[j]);
        }
        for (double& x : p) sum += (x = std::exp(x - most));
        for (int64_t d = 0; d < hv; ++d) {
          double want = 0;
          for (int64_t j = 0; j < s; ++j) want += p[j] / sum * vp[((bi * s + j) * heads + n) * hv + d];
          CHECK(got[((bi * t + i) * heads + n) * hv + d] == Approx(want).epsilon(1e-4).margin(1e-6));
        }
      }
    }
  }
}

TEST_CASE("_FusedAttention adds a mask to the scaled scores: Keras' -1e9 leaves a key out") {
  // Two batch elements, one head broadcast: element 0 may not look at key 1, element 1 at
  // key 0; then each output is the one remaining key's value.
  const Tensor q = AttnPattern({2, 1, 1, 3}, 0.5f), k = AttnPattern({2, 2, 1, 3}, 0.9f), v = AttnPattern({2, 2, 1, 2}, 0.3f);
  const Tensor mask = Tensor::FromVector<float>({0.f, -1e9f, -1e9f, 0.f}, TensorShape({2, 1, 1, 2}));
  tensorflow::AttrValue one;
  one.set_i(1);
  auto r = testing::RunOp("_FusedAttention", {q, k, v, mask}, {{"T", TypeA(tensorflow::DT_FLOAT)}, {"num_masks", one}});
  REQUIRE(r.status.ok());
  const std::vector<float> got = Values<float>(r.outputs[0]), values = Values<float>(v);
  CHECK(got == std::vector<float>{values[0], values[1], values[6], values[7]});
  // A mask that is not [B or 1, N or 1, T, S] is refused.
  auto bad = testing::RunMaybe("_FusedAttention",
                               {q, k, v, Tensor::FromVector<float>({0.f, 0.f, 0.f}, TensorShape({1, 1, 1, 3}))},
                               {{"T", TypeA(tensorflow::DT_FLOAT)}, {"num_masks", one}});
  REQUIRE(bad.status.code() == error::INVALID_ARGUMENT);
  CHECK(bad.status.message().find("the mask [1,1,1,3] is not [2 or 1, 1 or 1, 1, 2]") != std::string::npos);
}

TEST_CASE("_FusedAttention refuses keys that do not match the query") {
  auto r = testing::RunMaybe("_FusedAttention", {AttnPattern({1, 3, 2, 4}, 0.1f), AttnPattern({1, 5, 2, 3}, 0.2f),
                                                  AttnPattern({1, 5, 2, 4}, 0.3f)},
                             {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("node 'n'") != std::string::npos);
  CHECK(r.status.message().find("do not match query [1,3,2,4]") != std::string::npos);
}

}  // namespace
}  // namespace tensoract
