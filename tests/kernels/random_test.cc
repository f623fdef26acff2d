// The random kernels (kernels/cpu/random_op.cc): TensorFlow's numbers for given seeds (its
// Philox generator and transforms), distributions checked on large samples (mean,
// variance, bounds; truncation at 2 standard deviations), determinism for given seeds
// across freshly made kernels, new numbers on every run, and errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "kernels/tensor_eigen.h"
#include "tests/kernels/nn_kernel_runner.h"

namespace tensoract {
namespace {

using nn_test::AsDoubles;
using nn_test::KernelRunner;
namespace tf = ::tensorflow;

using Builder = Output (*)(const Scope&, const Input&, DataType, ops::RandomAttrs);

struct Moments {
  double mean = 0, var = 0, min = 1e300, max = -1e300;
};
Moments MomentsOf(const std::vector<double>& v) {
  Moments m;
  for (double x : v) {
    m.mean += x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean /= v.size();
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= v.size();
  return m;
}

template <class T>
std::vector<double> Draw(KernelRunner& r, int64_t n) {
  auto out = r.Run({Tensor::FromVector<int64_t>({n / 100, 100})});
  INFO(out.status());
  REQUIRE(out.ok());
  REQUIRE(out->at(0).shape() == TensorShape({n / 100, 100}));
  return AsDoubles<T>(out->at(0));
}

template <class T>
void InitRandom(KernelRunner& r, Builder f, ops::RandomAttrs seeds) {
  Scope s = Scope::NewRootScope();
  Output node = f(s, ops::Placeholder(s, tf::DT_INT64), DataTypeToEnum<T>::value, seeds);
  REQUIRE(s.ok());
  REQUIRE(r.Init(node).ok());
}

// Two runs of a kernel with shape input `n`: TensorFlow's first and second draws.
template <class T>
void ExpectTensorFlowDraws(Builder f, ops::RandomAttrs seeds, int64_t n, const std::vector<double>& first,
                           const std::vector<double>& second) {
  KernelRunner r;
  InitRandom<T>(r, f, seeds);
  for (const auto* want : {&first, &second}) {
    auto out = r.Run({Tensor::FromVector<int64_t>({n})});
    REQUIRE(out.ok());
    const std::vector<double> got = AsDoubles<T>(out->at(0));
    REQUIRE(got.size() == want->size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == (*want)[i]);  // bit for bit
  }
}

TEST_CASE("seeded random ops give TensorFlow's numbers, run after run", "[random]") {
  // Printed by TensorFlow 2.21: tf.raw_ops.RandomUniform(shape=[5], dtype=tf.float32, seed=1,
  // seed2=2) run twice in one tf.compat.v1.Session, and so on for each op below.
  ExpectTensorFlowDraws<float>(ops::RandomUniform, {1, 2}, 5,
                               {0.406396746635437, 0.8575996160507202, 0.05539584159851074, 0.08587229251861572,
                                0.41215360164642334},
                               {0.15982985496520996, 0.3912637233734131, 0.9523847103118896, 0.584368109703064,
                                0.7269216775894165});
  ExpectTensorFlowDraws<double>(ops::RandomUniform, {1, 2}, 3,
                                {0.2511744980841868, 0.44316677020093853, 0.2972296290781924},
                                {0.34725887121466203, 0.28397618048562, 0.15394488122016758});
  ExpectTensorFlowDraws<float>(ops::RandomStandardNormal, {3, 4}, 5,
                               {0.28962206840515137, -0.2734510600566864, -0.2986593246459961, 0.13109374046325684,
                                -0.2823999226093292},
                               {0.45714184641838074, -0.2932099997997284, -0.06920979171991348, -0.7209293246269226,
                                -1.1057207584381104});
  ExpectTensorFlowDraws<double>(ops::RandomStandardNormal, {3, 4}, 3,
                                {-0.7030205923675534, -1.1787800830679616, -1.1381825408299184},
                                {-1.6497661081415087, 0.13804427934901886, -0.5952228484785483});
  ExpectTensorFlowDraws<float>(ops::TruncatedNormal, {5, 6}, 5,
                               {0.7032734155654907, -0.4358273148536682, -0.8223473429679871, -0.287870317697525,
                                -0.8171683549880981},
                               {-0.07082463800907135, -0.37630730867385864, -0.8508504033088684, -1.034483551979065,
                                0.5332415103912354});
  // half and bfloat16 (seed=1, seed2=2): float draws rounded, truncated in float.
  ExpectTensorFlowDraws<Eigen::half>(ops::RandomUniform, {1, 2}, 5,
                                     {0.2021484375, 0.4560546875, 0.802734375, 0.4658203125, 0.3623046875},
                                     {0.326171875, 0.232421875, 0.935546875, 0.1435546875, 0.9423828125});
  ExpectTensorFlowDraws<Eigen::bfloat16>(ops::RandomStandardNormal, {1, 2}, 5,
                                         {-1.046875, 0.83984375, 1.234375, 2.0625, 0.3046875},
                                         {1.2109375, -1.484375, -0.158203125, -0.26953125, -0.5});
  ExpectTensorFlowDraws<Eigen::half>(ops::TruncatedNormal, {1, 2}, 5,
                                     {-1.046875, 0.83984375, 1.2353515625, 0.3037109375, 0.388671875},
                                     {1.208984375, -1.4853515625, -0.157958984375, -0.26953125, 0.453369140625});

  // tf.raw_ops.RandomUniformInt(shape=[5], minval=-10, maxval=1000, seed=7, seed2=8), and
  // int64 in [0, 10**15).
  Scope s = Scope::NewRootScope();
  auto i32 = ops::RandomUniformInt(s, ops::Placeholder(s, tf::DT_INT32), ops::Placeholder(s, tf::DT_INT32),
                                   ops::Placeholder(s, tf::DT_INT32), {7, 8});
  auto i64 = ops::RandomUniformInt(s, ops::Placeholder(s, tf::DT_INT32), ops::Placeholder(s, tf::DT_INT64),
                                   ops::Placeholder(s, tf::DT_INT64), {7, 8});
  KernelRunner r32, r64;
  REQUIRE(r32.Init(i32).ok());
  REQUIRE(r64.Init(i64).ok());
  const std::vector<std::vector<double>> want32 = {{716, 368, 547, 732, 558}, {974, 190, 257, 291, 582}};
  const std::vector<std::vector<double>> want64 = {{786144769580494, 73197567980399, 669472434535144},
                                                   {387504938845709, 813519051551013, 671673723544528}};
  for (int run = 0; run < 2; ++run) {
    auto a = r32.Run({Tensor::FromVector<int32_t>({5}), Tensor::Scalar<int32_t>(-10), Tensor::Scalar<int32_t>(1000)});
    auto b = r64.Run({Tensor::FromVector<int32_t>({3}), Tensor::Scalar<int64_t>(0),
                      Tensor::Scalar<int64_t>(1000000000000000)});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(AsDoubles<int32_t>(a->at(0)) == want32[run]);
    CHECK(AsDoubles<int64_t>(b->at(0)) == want64[run]);
  }

  // tf.raw_ops.RandomShuffle(value=tf.range(8), seed=9, seed2=10).
  KernelRunner rs;
  REQUIRE(rs.Init(ops::RandomShuffle(s, ops::Placeholder(s, tf::DT_INT32), {9, 10})).ok());
  const std::vector<std::vector<double>> shuffled = {{1, 4, 6, 2, 0, 3, 7, 5}, {1, 5, 6, 3, 7, 0, 4, 2}};
  for (int run = 0; run < 2; ++run) {
    auto out = rs.Run({Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7})});
    REQUIRE(out.ok());
    CHECK(AsDoubles<int32_t>(out->at(0)) == shuffled[run]);
  }
}

TEMPLATE_TEST_CASE("RandomUniform, RandomStandardNormal and TruncatedNormal have their distributions", "[random]",
                   float, double) {
  const int64_t n = 200000;
  {
    KernelRunner r;
    InitRandom<TestType>(r, ops::RandomUniform, {});
    Moments m = MomentsOf(Draw<TestType>(r, n));
    CHECK(m.min >= 0);
    CHECK(m.max < 1);
    CHECK(m.mean == Approx(0.5).margin(0.005));
    CHECK(m.var == Approx(1.0 / 12).margin(0.002));
  }
  {
    KernelRunner r;
    InitRandom<TestType>(r, ops::RandomStandardNormal, {});
    Moments m = MomentsOf(Draw<TestType>(r, n));
    CHECK(m.mean == Approx(0).margin(0.01));
    CHECK(m.var == Approx(1).margin(0.015));
    CHECK(m.max > 3.5);  // a real normal's tails, not a truncated one
  }
  {
    KernelRunner r;
    InitRandom<TestType>(r, ops::TruncatedNormal, {});
    Moments m = MomentsOf(Draw<TestType>(r, n));
    CHECK(m.min > -2);
    CHECK(m.max < 2);
    CHECK(m.mean == Approx(0).margin(0.01));
    // The variance of a standard normal truncated to (-2, 2).
    CHECK(m.var == Approx(0.7737413).margin(0.01));
  }
}

TEST_CASE("random ops with seeds give the same sequence in a fresh kernel and new numbers each run", "[random]") {
  KernelRunner a, b, c;
  InitRandom<float>(a, ops::RandomUniform, {1, 2});
  InitRandom<float>(b, ops::RandomUniform, {1, 2});
  InitRandom<float>(c, ops::RandomUniform, {1, 3});
  const auto a1 = Draw<float>(a, 1000), a2 = Draw<float>(a, 1000);
  const auto b1 = Draw<float>(b, 1000), b2 = Draw<float>(b, 1000);
  CHECK(a1 == b1);
  CHECK(a2 == b2);
  CHECK(a1 != a2);
  CHECK(Draw<float>(c, 1000) != a1);
  // Unseeded kernels differ from each other.
  KernelRunner u1, u2;
  InitRandom<float>(u1, ops::RandomUniform, {});
  InitRandom<float>(u2, ops::RandomUniform, {});
  CHECK(Draw<float>(u1, 1000) != Draw<float>(u2, 1000));
}

TEMPLATE_TEST_CASE("RandomUniformInt draws every value of [minval, maxval) evenly", "[random]", int32_t, int64_t) {
  Scope s = Scope::NewRootScope();
  Output node = ops::RandomUniformInt(s, ops::Placeholder(s, tf::DT_INT32), ops::Placeholder(s, DataTypeToEnum<TestType>::value),
                                      ops::Placeholder(s, DataTypeToEnum<TestType>::value), {7, 0});
  REQUIRE(s.ok());
  KernelRunner r;
  REQUIRE(r.Init(node).ok());
  auto out = r.Run({Tensor::FromVector<int32_t>({100000}), Tensor::Scalar<TestType>(-3), Tensor::Scalar<TestType>(7)});
  INFO(out.status());
  REQUIRE(out.ok());
  std::vector<int> counts(10, 0);
  bool in_range = true;
  for (double x : AsDoubles<TestType>(out->at(0))) {
    in_range &= x >= -3 && x < 7;
    if (x >= -3 && x < 7) ++counts[static_cast<int>(x) + 3];
  }
  CHECK(in_range);
  for (int c : counts) CHECK(c == Approx(10000).margin(500));

  auto bad = r.Run({Tensor::FromVector<int32_t>({10}), Tensor::Scalar<TestType>(5), Tensor::Scalar<TestType>(5)});
  REQUIRE(bad.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad.status().message(), Catch::Contains("Need minval < maxval: 5 >= 5"));
}

TEST_CASE("RandomShuffle permutes the rows of any dtype", "[random]") {
  Scope s = Scope::NewRootScope();
  Output node = ops::RandomShuffle(s, ops::Placeholder(s, tf::DT_INT32), {3, 4});
  KernelRunner r;
  REQUIRE(r.Init(node).ok());
  std::vector<int32_t> rows;
  for (int i = 0; i < 100; ++i) rows.insert(rows.end(), {i, 1000 + i});
  auto out = r.Run({Tensor::FromVector(rows, TensorShape({100, 2}))});
  REQUIRE(out.ok());
  const int32_t* o = out->at(0).base<int32_t>();
  std::set<int32_t> seen;
  bool rows_intact = true, moved = false;
  for (int i = 0; i < 100; ++i) {
    rows_intact &= o[2 * i + 1] == 1000 + o[2 * i];
    moved |= o[2 * i] != i;
    seen.insert(o[2 * i]);
  }
  CHECK(rows_intact);
  CHECK(moved);
  CHECK(seen.size() == 100);

  Scope s2 = Scope::NewRootScope();
  KernelRunner rs;
  REQUIRE(rs.Init(ops::RandomShuffle(s2, ops::Placeholder(s2, tf::DT_STRING))).ok());
  auto strings = rs.Run({Tensor::FromVector<std::string>({"a", "b", "c", "d", "e", "f", "g", "h"})});
  REQUIRE(strings.ok());
  std::vector<std::string> got(strings->at(0).base<std::string>(), strings->at(0).base<std::string>() + 8);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h"});
  auto scalar = rs.Run({Tensor::Scalar<std::string>("x")});
  REQUIRE(scalar.ok());
  CHECK(*scalar->at(0).base<std::string>() == "x");
}

TEST_CASE("random ops refuse a shape that is not a vector or has a negative size", "[random]") {
  KernelRunner r;
  InitRandom<float>(r, ops::RandomUniform, {1, 1});
  auto matrix = r.Run({Tensor::FromVector<int64_t>({1, 2, 3, 4}, TensorShape({2, 2}))});
  REQUIRE(matrix.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(matrix.status().message(), Catch::Contains("shape must be a vector of {int32,int64}"));
  CHECK(r.Run({Tensor::FromVector<int64_t>({2, -1})}).status().code() == error::INVALID_ARGUMENT);
}

TEST_CASE("random ops' shape functions read a constant shape", "[random]") {
  Scope s = Scope::NewRootScope();
  Output u = ops::RandomUniform(s, ops::Const(s, Input(std::initializer_list<int32_t>{2, 3})), tf::DT_FLOAT);
  REQUIRE(s.ok());
  CHECK(u.node->output_shape(0).DebugString() == PartialTensorShape({2, 3}).DebugString());
}

}  // namespace
}  // namespace tensoract
