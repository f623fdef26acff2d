// The Poisson kernels (RandomPoissonV2 in kernels/cpu/random_op.cc, StatelessRandomPoisson in
// kernels/cpu/stateless_random_op.cc, both drawing with kernels/random/poisson.h):
// TensorFlow's samples for given seeds on both sides of the switch between its two
// algorithms (rate 10), run after run for the stateful op, and TensorFlow's refusals.
#include <catch2/catch.hpp>

#include <limits>
#include <utility>
#include <vector>

#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/gradients/gradient_registry.h"
#include "kernels/tensor_eigen.h"
#include "tests/kernels/nn_kernel_runner.h"

namespace tensoract {
namespace {

using nn_test::AsDoubles;
using nn_test::KernelRunner;
namespace tf = ::tensorflow;

const std::vector<float> kRates = {0.5f, 3.0f, 12.0f, 50.0f, 1e4f};

TEST_CASE("RandomPoissonV2 gives TensorFlow's samples for fixed seeds, run after run", "[random][poisson]") {
  // Printed by TensorFlow 2.21: tf.raw_ops.RandomPoissonV2(shape=[3], rate=[0.5, 3, 12, 50,
  // 1e4] (float), seed=87654321, seed2=1234, dtype=tf.int64), called twice in a fresh process.
  const std::vector<std::vector<double>> want = {
      {0, 4, 11, 47, 10092, 0, 2, 18, 61, 9881, 0, 3, 12, 49, 10137},
      {1, 5, 8, 42, 9970, 3, 2, 20, 63, 10002, 0, 4, 10, 47, 10063}};
  Scope s = Scope::NewRootScope();
  Output node = ops::RandomPoissonV2(s, ops::Placeholder(s, tf::DT_INT64), ops::Placeholder(s, tf::DT_FLOAT),
                                     tf::DT_INT64, {87654321, 1234});
  REQUIRE(s.ok());
  KernelRunner r;
  REQUIRE(r.Init(node).ok());
  for (const auto& w : want) {
    auto out = r.Run({Tensor::FromVector<int64_t>({3}), Tensor::FromVector<float>(kRates)});
    INFO(out.status());
    REQUIRE(out.ok());
    CHECK(out->at(0).shape() == TensorShape({3, 5}));
    CHECK(AsDoubles<int64_t>(out->at(0)) == w);
  }
}

template <class Make>
StatusOr<std::vector<Tensor>> RunFresh(Make make, std::vector<Tensor> inputs) {
  Scope s = Scope::NewRootScope();
  Output node = make(s);
  REQUIRE(s.ok());
  KernelRunner r;
  return r.Run(node, std::move(inputs));
}

TEST_CASE("StatelessRandomPoisson gives TensorFlow's samples for a seed", "[random][poisson][stateless]") {
  SECTION("double rates, float samples, an int64 seed") {
    // tf.raw_ops.StatelessRandomPoisson(shape=[2, 5], seed=[1, 2], lam=[0.5, 3, 12, 50, 1e4]
    // (double), dtype=tf.float32)
    auto out = RunFresh(
        [](const Scope& s) {
          return ops::StatelessRandomPoisson(s, ops::Placeholder(s, tf::DT_INT64), ops::Placeholder(s, tf::DT_INT64),
                                             ops::Placeholder(s, tf::DT_DOUBLE), tf::DT_FLOAT);
        },
        {Tensor::FromVector<int64_t>({2, 5}), Tensor::FromVector<int64_t>({1, 2}),
         Tensor::FromVector<double>({0.5, 3, 12, 50, 1e4})});
    INFO(out.status());
    REQUIRE(out.ok());
    CHECK(AsDoubles<float>(out->at(0)) == std::vector<double>{3, 4, 9, 50, 9878, 2, 6, 15, 49, 10048});
  }
  SECTION("half rates, half samples, an int32 seed") {
    // The same with shape int32, seed=[-1, 7] (int32), lam and dtype tf.half.
    std::vector<Eigen::half> lam;
    for (float r : kRates) lam.push_back(Eigen::half(r));
    auto out = RunFresh(
        [](const Scope& s) {
          return ops::StatelessRandomPoisson(s, ops::Placeholder(s, tf::DT_INT32), ops::Placeholder(s, tf::DT_INT32),
                                             ops::Placeholder(s, tf::DT_HALF), tf::DT_HALF);
        },
        {Tensor::FromVector<int32_t>({2, 5}), Tensor::FromVector<int32_t>({-1, 7}), Tensor::FromVector(lam)});
    INFO(out.status());
    REQUIRE(out.ok());
    CHECK(AsDoubles<Eigen::half>(out->at(0)) == std::vector<double>{1, 2, 15, 54, 9936, 0, 3, 18, 58, 10064});
  }
}

TEST_CASE("Poisson samples of a rate at or below 0 are 0", "[random][poisson]") {
  auto out = RunFresh(
      [](const Scope& s) {
        return ops::StatelessRandomPoisson(s, ops::Placeholder(s, tf::DT_INT64), ops::Placeholder(s, tf::DT_INT64),
                                           ops::Placeholder(s, tf::DT_FLOAT), tf::DT_INT32);
      },
      {Tensor::FromVector<int64_t>({4, 3}), Tensor::FromVector<int64_t>({5, 6}),
       Tensor::FromVector<float>({0.0f, -2.5f, -std::numeric_limits<float>::infinity()})});
  REQUIRE(out.ok());
  CHECK(AsDoubles<int32_t>(out->at(0)) == std::vector<double>(12, 0));
}

TEST_CASE("an infinite rate gives the output type's infinity, 0 for integers, as in TensorFlow", "[random][poisson]") {
  // TensorFlow 2.21: tf.random.stateless_poisson([3], [3, 4], lam=[inf, 2, inf], dtype=...)
  // gives [inf, 2, inf] (half, float, double) and [0, 2, 0] (int32, int64).
  const float inf = std::numeric_limits<float>::infinity();
  for (auto [dtype, want] : {std::pair{tf::DT_FLOAT, std::vector<double>{inf, 2, inf}},
                             std::pair{tf::DT_INT64, std::vector<double>{0, 2, 0}}}) {
    auto out = RunFresh(
        [dtype = dtype](const Scope& s) {
          return ops::StatelessRandomPoisson(s, ops::Placeholder(s, tf::DT_INT64), ops::Placeholder(s, tf::DT_INT64),
                                             ops::Placeholder(s, tf::DT_FLOAT), dtype);
        },
        {Tensor::FromVector<int64_t>({3}), Tensor::FromVector<int64_t>({3, 4}),
         Tensor::FromVector<float>({inf, 2, inf})});
    REQUIRE(out.ok());
    CHECK((dtype == tf::DT_FLOAT ? AsDoubles<float>(out->at(0)) : AsDoubles<int64_t>(out->at(0))) == want);
  }
}

TEST_CASE("a NaN rate is refused (TensorFlow 2.21's sampler never ends for it)", "[random][poisson]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto stateless = RunFresh(
      [](const Scope& s) {
        return ops::StatelessRandomPoisson(s, ops::Placeholder(s, tf::DT_INT64), ops::Placeholder(s, tf::DT_INT64),
                                           ops::Placeholder(s, tf::DT_FLOAT), tf::DT_FLOAT);
      },
      {Tensor::FromVector<int64_t>({2}), Tensor::FromVector<int64_t>({1, 2}), Tensor::FromVector<float>({1, nan})});
  REQUIRE_FALSE(stateless.ok());
  CHECK(stateless.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(stateless.status().message(), Catch::Contains("lam holds NaN (at flat index 1)"));
  auto stateful = RunFresh(
      [](const Scope& s) {
        return ops::RandomPoissonV2(s, ops::Placeholder(s, tf::DT_INT64), ops::Placeholder(s, tf::DT_DOUBLE),
                                    tf::DT_INT32, {1, 2});
      },
      {Tensor::FromVector<int64_t>({2}), Tensor::FromVector<double>({nan})});
  REQUIRE_FALSE(stateful.ok());
  CHECK_THAT(stateful.status().message(), Catch::Contains("rate holds NaN"));
}

TEST_CASE("StatelessRandomPoisson refuses a shape that does not end with lam's", "[random][poisson][stateless]") {
  auto out = RunFresh(
      [](const Scope& s) {
        return ops::StatelessRandomPoisson(s, ops::Placeholder(s, tf::DT_INT64), ops::Placeholder(s, tf::DT_INT64),
                                           ops::Placeholder(s, tf::DT_FLOAT), tf::DT_FLOAT);
      },
      {Tensor::FromVector<int64_t>({3, 4}), Tensor::FromVector<int64_t>({1, 2}),
       Tensor::FromVector<float>({1, 2, 3, 4, 5})});
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(out.status().message(), Catch::Contains("must end with broadcasted shape"));
}

TEST_CASE("the Poisson ops have no gradient, as in TensorFlow", "[random][poisson]") {
  // StatelessRandomPoisson is marked not differentiable; RandomPoissonV2 has no entry at all
  // (TensorFlow's Python raises LookupError for it).
  GradFunc fn;
  REQUIRE(GradientRegistry::Global()->Lookup("StatelessRandomPoisson", &fn).ok());
  CHECK(!fn);
  CHECK_FALSE(GradientRegistry::Global()->Lookup("RandomPoissonV2", &fn).ok());
}

}  // namespace
}  // namespace tensoract
