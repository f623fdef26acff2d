// The stateless random kernels (kernels/cpu/stateless_random_op.cc): TensorFlow's numbers for
// given seeds bit for bit, the same numbers in every run and every fresh kernel, V1 and V2
// agreeing through StatelessRandomGetKeyCounterAlg, outputs that do not depend on how the
// device's threads split them, and TensorFlow's refusals.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/gradients/gradient_registry.h"
#include "kernels/tensor_eigen.h"
#include "tests/kernels/nn_kernel_runner.h"

namespace tensoract {
namespace {

using nn_test::KernelRunner;
namespace tf = ::tensorflow;

// The raw bits of each element (a float's as its integer pattern).
template <class T>
std::vector<uint64_t> RandomBits(const Tensor& t) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    uint64_t b = 0;
    std::memcpy(&b, t.base<T>() + i, sizeof(T));
    out.push_back(b);
  }
  return out;
}

Output Ph(const Scope& s, DataType t) { return ops::Placeholder(s, t); }

// Runs `node` (made by `make` on a fresh scope) in a fresh kernel on `inputs`.
template <class Make>
StatusOr<std::vector<Tensor>> RunFreshStateless(Make make, std::vector<Tensor> inputs) {
  Scope s = Scope::NewRootScope();
  Output node = make(s);
  REQUIRE(s.ok());
  KernelRunner r;
  return r.Run(node, std::move(inputs));
}

Tensor Seed(int64_t a, int64_t b) { return Tensor::FromVector<int64_t>({a, b}); }
Tensor RandomShape(std::vector<int64_t> dims) { return Tensor::FromVector<int64_t>(dims); }

TEST_CASE("stateless random ops give TensorFlow's numbers for a seed", "[random][stateless]") {
  // Printed by TensorFlow 2.21, e.g. tf.raw_ops.StatelessRandomUniform(shape=[5], seed=[1, 2]),
  // as bit patterns.
  auto uniform = RunFreshStateless([](const Scope& s) { return ops::StatelessRandomUniform(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64)); },
                          {RandomShape({5}), Seed(1, 2)});
  REQUIRE(uniform.ok());
  CHECK(RandomBits<float>(uniform->at(0)) == std::vector<uint64_t>{0x3f581458, 0x3e44a788, 0x3f7f087c, 0x3e243c98, 0x3e8b424c});

  auto normal = RunFreshStateless(
      [](const Scope& s) { return ops::StatelessRandomNormal(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64), tf::DT_DOUBLE); },
      {RandomShape({3}), Seed(-1, int64_t{1} << 40)});
  REQUIRE(normal.ok());
  CHECK(RandomBits<double>(normal->at(0)) ==
        std::vector<uint64_t>{0xbfc4057866b6545d, 0xbfd274164847b881, 0x3ff9b761b8becdf1});

  // An int32 seed, sign-extended; half values are rounded float ones.
  auto truncated = RunFreshStateless(
      [](const Scope& s) { return ops::StatelessTruncatedNormal(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT32), tf::DT_HALF); },
      {RandomShape({6}), Tensor::FromVector<int32_t>({7, -8})});
  REQUIRE(truncated.ok());
  CHECK(RandomBits<Eigen::half>(truncated->at(0)) == std::vector<uint64_t>{0xbd84, 0xbce6, 0xad1e, 0x3795, 0xba78, 0x3023});

  auto bf16 = RunFreshStateless(
      [](const Scope& s) { return ops::StatelessRandomUniform(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64), tf::DT_BFLOAT16); },
      {RandomShape({4}), Seed(1, 2)});
  REQUIRE(bf16.ok());
  CHECK(RandomBits<Eigen::bfloat16>(bf16->at(0)) == std::vector<uint64_t>{0x3eb0, 0x3f62, 0x3ef8, 0x3e18});

  auto ints = RunFreshStateless(
      [](const Scope& s) {
        return ops::StatelessRandomUniformInt(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64),
                                              Ph(s, tf::DT_INT64));
      },
      {RandomShape({4}), Seed(3, 4), Tensor::Scalar<int64_t>(-10), Tensor::Scalar<int64_t>(10)});
  REQUIRE(ints.ok());
  CHECK(nn_test::AsDoubles<int64_t>(ints->at(0)) == std::vector<double>{5, -4, 1, 4});

  auto full = RunFreshStateless(
      [](const Scope& s) {
        return ops::StatelessRandomUniformFullInt(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64), tf::DT_UINT64);
      },
      {RandomShape({2}), Seed(5, 6)});
  REQUIRE(full.ok());
  CHECK(RandomBits<uint64_t>(full->at(0)) == std::vector<uint64_t>{10279991767390587243u, 12111132199469006528u});
}

TEST_CASE("StatelessMultinomial gives TensorFlow's samples for a seed, the same every run", "[random][stateless]") {
  Scope s = Scope::NewRootScope();
  Output node = ops::StatelessMultinomial(s, Ph(s, tf::DT_FLOAT), Ph(s, tf::DT_INT32), Ph(s, tf::DT_INT64),
                                          tf::DT_INT32);
  REQUIRE(s.ok());
  KernelRunner r;
  REQUIRE(r.Init(node).ok());
  // tf.raw_ops.StatelessMultinomial(logits=[[0, 1, 2], [0, 0, 0]], num_samples=8, seed=[1, 2]).
  const std::vector<double> want = {2, 2, 1, 2, 2, 2, 2, 1, 2, 2, 2, 1, 0, 1, 1, 0};
  for (int run = 0; run < 2; ++run) {
    auto out = r.Run({Tensor::FromVector<float>({0, 1, 2, 0, 0, 0}, TensorShape({2, 3})), Tensor::Scalar<int32_t>(8),
                      Seed(1, 2)});
    REQUIRE(out.ok());
    CHECK(out->at(0).shape() == TensorShape({2, 8}));
    CHECK(nn_test::AsDoubles<int32_t>(out->at(0)) == want);
  }
  auto no_classes = r.Run({Tensor::FromVector<float>({}, TensorShape({2, 0})), Tensor::Scalar<int32_t>(0), Seed(1, 2)});
  REQUIRE(no_classes.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(no_classes.status().message(), Catch::Contains("num_classes should be positive, got 0"));
  auto negative = r.Run({Tensor::FromVector<float>({0, 1}, TensorShape({1, 2})), Tensor::Scalar<int32_t>(-1), Seed(1, 2)});
  CHECK_THAT(negative.status().message(), Catch::Contains("num_samples should be non-negative, got -1"));
}

TEST_CASE("the V2 ops draw from StatelessRandomGetKeyCounterAlg's key and counter what V1 draws from the seed",
          "[random][stateless]") {
  Scope s = Scope::NewRootScope();
  Output seed = Ph(s, tf::DT_INT64);
  ops::KeyCounterAlg kca = ops::StatelessRandomGetKeyCounterAlg(s, seed);
  REQUIRE(s.ok());
  KernelRunner get;
  REQUIRE(get.Init(kca.key).ok());
  auto kc = get.Run({Seed(1, 2)});
  REQUIRE(kc.ok());
  // TensorFlow's key and counter for the seed [1, 2].
  CHECK(RandomBits<uint64_t>(kc->at(0)) == std::vector<uint64_t>{10413732777507651514u});
  CHECK(RandomBits<uint64_t>(kc->at(1)) == std::vector<uint64_t>{0, 17830669156045600267u});
  CHECK(kc->at(2).base<int32_t>()[0] == 1);

  for (int32_t alg : {1, 3}) {  // Philox, and auto-select (Philox)
    auto v2 = RunFreshStateless(
        [](const Scope& s) {
          return ops::StatelessRandomUniformV2(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_UINT64), Ph(s, tf::DT_UINT64),
                                               Ph(s, tf::DT_INT32));
        },
        {RandomShape({5}), kc->at(0), kc->at(1), Tensor::Scalar<int32_t>(alg)});
    REQUIRE(v2.ok());
    CHECK(RandomBits<float>(v2->at(0)) == std::vector<uint64_t>{0x3f581458, 0x3e44a788, 0x3f7f087c, 0x3e243c98, 0x3e8b424c});
  }
}

TEST_CASE("a stateless op gives the same numbers every run and in every kernel, however the threads split them",
          "[random][stateless]") {
  Scope s = Scope::NewRootScope();
  Output node = ops::StatelessTruncatedNormal(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64));
  REQUIRE(s.ok());
  KernelRunner a, b;
  REQUIRE(a.Init(node).ok());
  REQUIRE(b.Init(node).ok());
  const auto first = a.Run({RandomShape({200003}), Seed(9, -9)});
  const auto again = a.Run({RandomShape({200003}), Seed(9, -9)});
  const auto fresh = b.Run({RandomShape({200003}), Seed(9, -9)});
  const auto small = b.Run({RandomShape({7}), Seed(9, -9)});
  const auto other = b.Run({RandomShape({7}), Seed(9, -8)});
  REQUIRE((first.ok() && again.ok() && fresh.ok() && small.ok() && other.ok()));
  const auto bits = RandomBits<float>(first->at(0));
  CHECK(bits == RandomBits<float>(again->at(0)));
  CHECK(bits == RandomBits<float>(fresh->at(0)));
  // Group g of the output always comes from the generator g groups ahead, so a short
  // output (one thread) is the start of a long one (many threads).
  CHECK(std::vector<uint64_t>(bits.begin(), bits.begin() + 7) == RandomBits<float>(small->at(0)));
  CHECK(RandomBits<float>(other->at(0)) != RandomBits<float>(small->at(0)));
}

TEST_CASE("stateless random ops refuse what TensorFlow refuses", "[random][stateless]") {
  auto uniform = [](const Scope& s) { return ops::StatelessRandomUniform(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64)); };
  auto bad_seed = RunFreshStateless(uniform, {RandomShape({3}), Tensor::FromVector<int64_t>({1, 2, 3})});
  REQUIRE(bad_seed.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad_seed.status().message(), Catch::Contains("seed must have shape [2], not [3]"));
  CHECK(RunFreshStateless(uniform, {RandomShape({2, -1}), Seed(1, 2)}).status().code() == error::INVALID_ARGUMENT);

  auto full_int = [](const Scope& s) {
    return ops::StatelessRandomUniformFullInt(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_UINT32), tf::DT_INT32);
  };
  auto uint_seed = RunFreshStateless(full_int, {RandomShape({3}), Tensor::FromVector<uint32_t>({1, 2})});
  REQUIRE(uint_seed.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(uint_seed.status().message(), Catch::Contains("Invalid seed type: uint32"));
  CHECK(RunFreshStateless(full_int, {RandomShape({0}), Tensor::FromVector<uint32_t>({1, 2})}).ok());  // empty: never seeded

  auto int_op = [](const Scope& s) {
    return ops::StatelessRandomUniformInt(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT64), Ph(s, tf::DT_INT32),
                                          Ph(s, tf::DT_INT32));
  };
  auto equal = RunFreshStateless(int_op, {RandomShape({4}), Seed(1, 2), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5)});
  REQUIRE(equal.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(equal.status().message(), Catch::Contains("Need minval < maxval, got 5 >= 5"));
  CHECK(RunFreshStateless(int_op, {RandomShape({0}), Seed(1, 2), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5)}).ok());

  auto v2 = [](const Scope& s) {
    return ops::StatelessRandomNormalV2(s, Ph(s, tf::DT_INT64), Ph(s, tf::DT_UINT64), Ph(s, tf::DT_UINT64),
                                        Ph(s, tf::DT_INT32));
  };
  const Tensor key = Tensor::FromVector<uint64_t>({1}), counter = Tensor::FromVector<uint64_t>({2, 3});
  auto threefry = RunFreshStateless(v2, {RandomShape({5}), key, counter, Tensor::Scalar<int32_t>(2)});
  REQUIRE(threefry.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(threefry.status().message(), Catch::Contains("Unsupported algorithm id: 2"));
  CHECK(RunFreshStateless(v2, {RandomShape({0}), key, counter, Tensor::Scalar<int32_t>(2)}).ok());  // empty: not drawn
  // TensorFlow wants a counter at least `alg` long (4 for the id 4), and a key of one word.
  auto long_counter = RunFreshStateless(v2, {RandomShape({5}), key, counter, Tensor::Scalar<int32_t>(4)});
  CHECK_THAT(long_counter.status().message(), Catch::Contains("counter must be a vector with length at least 4"));
  auto wide_key = RunFreshStateless(v2, {RandomShape({5}), Tensor::FromVector<uint64_t>({1, 2}), counter, Tensor::Scalar<int32_t>(1)});
  CHECK_THAT(wide_key.status().message(), Catch::Contains("key must have shape [1], not [2]"));
  // A Philox counter of one word: TensorFlow reads past its end; refused here.
  auto short_counter = RunFreshStateless(v2, {RandomShape({5}), key, Tensor::FromVector<uint64_t>({2}), Tensor::Scalar<int32_t>(1)});
  REQUIRE(short_counter.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(short_counter.status().message(), Catch::Contains("at least 2 for Philox"));
  auto vector_alg = RunFreshStateless(v2, {RandomShape({5}), key, counter, Tensor::FromVector<int32_t>({1})});
  CHECK_THAT(vector_alg.status().message(), Catch::Contains("input 3 (0-based) must have shape []"));
}

TEST_CASE("stateless random ops' shape functions check the seed, key and bounds", "[random][stateless]") {
  Scope s = Scope::NewRootScope();
  Output u = ops::StatelessRandomUniform(s, ops::Const(s, Input(std::initializer_list<int32_t>{2, 3})),
                                         ops::Const(s, Input(std::initializer_list<int64_t>{1, 2})));
  REQUIRE(s.ok());
  CHECK(u.node->output_shape(0).DebugString() == PartialTensorShape({2, 3}).DebugString());

  Scope bad_seed = Scope::NewRootScope();
  ops::StatelessRandomNormal(bad_seed, ops::Const(bad_seed, Input(std::initializer_list<int32_t>{2})),
                             ops::Const(bad_seed, Input(std::initializer_list<int64_t>{1, 2, 3})));
  CHECK(bad_seed.status().code() == error::INVALID_ARGUMENT);

  Scope bad_bound = Scope::NewRootScope();
  ops::StatelessRandomUniformIntV2(
      bad_bound, ops::Const(bad_bound, Input(std::initializer_list<int32_t>{2})), Ph(bad_bound, tf::DT_UINT64),
      Ph(bad_bound, tf::DT_UINT64), Ph(bad_bound, tf::DT_INT32),
      ops::Const(bad_bound, Input(std::initializer_list<int32_t>{1})), ops::Const(bad_bound, Input(9)));
  REQUIRE(bad_bound.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad_bound.status().message(), Catch::Contains("minval must be a scalar"));

  Scope kc = Scope::NewRootScope();
  ops::KeyCounterAlg out = ops::StatelessRandomGetKeyCounterAlg(kc, Ph(kc, tf::DT_INT32));
  REQUIRE(kc.ok());
  CHECK(out.key.node->output_shape(0).DebugString() == PartialTensorShape({1}).DebugString());
  CHECK(out.counter.node->output_shape(1).DebugString() == PartialTensorShape({2}).DebugString());
  CHECK(out.alg.node->output_shape(2).DebugString() == PartialTensorShape(std::vector<int64_t>{}).DebugString());
}

TEST_CASE("stateless random ops have no gradient, as in TensorFlow", "[random][stateless]") {
  for (const char* op : {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
                         "StatelessRandomUniformInt", "StatelessRandomUniformFullInt", "StatelessRandomUniformV2",
                         "StatelessRandomNormalV2", "StatelessTruncatedNormalV2", "StatelessRandomUniformIntV2",
                         "StatelessRandomUniformFullIntV2", "StatelessMultinomial"}) {
    GradFunc fn;
    INFO(op);
    REQUIRE(GradientRegistry::Global()->Lookup(op, &fn).ok());
    CHECK(!fn);
  }
}

}  // namespace
}  // namespace tensoract
