// Reductions (Sum, Mean, Max, Min, Prod, All, Any) and ArgMax/ArgMin on the CPU kernels:
// values against hand-computed results, every registered dtype, axes of every form, errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

namespace tf = ::tensorflow;

using testing::BoolA;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;

template <class T>
Run Reduce(const std::string& op, const Tensor& x, const Tensor& axes, bool keep_dims = false) {
  return RunOp(op, {x, axes}, {{"T", TypeA(DataTypeToEnum<T>::value)}, {"Tidx", TypeA(axes.dtype())},
                               {"keep_dims", BoolA(keep_dims)}});
}

TEMPLATE_TEST_CASE("Sum, Mean, Max, Min and Prod of a matrix along each axis", "[reduction]", float, double, int32_t,
                   int64_t) {
  using T = TestType;
  // [[1, 2, 3], [4, 5, 9]]
  Tensor x = Tensor::FromVector<T>({1, 2, 3, 4, 5, 9}, TensorShape({2, 3}));
  auto check = [&](const std::string& op, const Tensor& axes, bool keep, TensorShape shape, std::vector<T> want) {
    INFO(op << " axes " << axes.DebugString() << " keep_dims " << keep);
    Run r = Reduce<T>(op, x, axes, keep);
    INFO(r.status);
    REQUIRE(r.status.ok());
    CHECK(r.outputs[0].shape() == shape);
    CHECK(Values<T>(r.outputs[0]) == want);
  };
  check("Sum", Tensor::FromVector<int32_t>({1}), false, TensorShape({2}), {6, 18});
  check("Sum", Tensor::FromVector<int32_t>({0}), false, TensorShape({3}), {5, 7, 12});
  check("Sum", Tensor::FromVector<int64_t>({-1}), true, TensorShape({2, 1}), {6, 18});
  check("Sum", Tensor::FromVector<int32_t>({0, 1}), false, TensorShape({}), {24});
  check("Sum", Tensor::Scalar<int32_t>(-2), false, TensorShape({3}), {5, 7, 12});
  check("Sum", Tensor::FromVector<int32_t>({}), false, TensorShape({2, 3}), {1, 2, 3, 4, 5, 9});
  check("Mean", Tensor::FromVector<int32_t>({1}), false, TensorShape({2}), {2, 6});
  check("Mean", Tensor::FromVector<int32_t>({0, 1}), true, TensorShape({1, 1}), {4});
  check("Max", Tensor::FromVector<int32_t>({0}), false, TensorShape({3}), {4, 5, 9});
  check("Max", Tensor::FromVector<int64_t>({1, 0}), false, TensorShape({}), {9});
  check("Min", Tensor::FromVector<int32_t>({1}), false, TensorShape({2}), {1, 4});
  check("Prod", Tensor::FromVector<int32_t>({1}), false, TensorShape({2}), {6, 180});
}

TEST_CASE("Mean of integers divides as integers; of floats exactly", "[reduction]") {
  Run r = Reduce<int32_t>("Mean", Tensor::FromVector<int32_t>({1, 2, 4}), Tensor::FromVector<int32_t>({0}));
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{2});
  r = Reduce<float>("Mean", Tensor::FromVector<float>({1, 2}), Tensor::FromVector<int32_t>({0}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1.5f});
}

TEST_CASE("reducing non-adjacent axes of a rank-4 tensor matches a reference loop", "[reduction]") {
  const std::vector<int64_t> dims = {3, 4, 5, 6};
  std::vector<double> values(3 * 4 * 5 * 6);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>((i * 7919) % 101) - 50;
  Tensor x = Tensor::FromVector<double>(values, TensorShape(dims));
  // Reduce axes 0 and 2: out[j, l] = sum_{i,k} x[i, j, k, l].
  std::vector<double> sum(4 * 6, 0), max(4 * 6, -1e300);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k)
        for (int l = 0; l < 6; ++l) {
          const double v = values[((i * 4 + j) * 5 + k) * 6 + l];
          sum[j * 6 + l] += v;
          max[j * 6 + l] = std::max(max[j * 6 + l], v);
        }
  Run r = Reduce<double>("Sum", x, Tensor::FromVector<int32_t>({2, 0}), true);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 4, 1, 6}));
  CHECK(Values<double>(r.outputs[0]) == sum);
  r = Reduce<double>("Max", x, Tensor::FromVector<int64_t>({0, -2}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({4, 6}));
  CHECK(Values<double>(r.outputs[0]) == max);
  // Axes 1 and 3: out[i, k].
  std::vector<double> mean(3 * 5, 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k)
        for (int l = 0; l < 6; ++l) mean[i * 5 + k] += values[((i * 4 + j) * 5 + k) * 6 + l] / 24.0;
  r = Reduce<double>("Mean", x, Tensor::FromVector<int32_t>({1, 3}));
  REQUIRE(r.status.ok());
  std::vector<double> got = Values<double>(r.outputs[0]);
  REQUIRE(got.size() == mean.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(mean[i]).margin(1e-9));
}

TEST_CASE("a large Sum runs on the device's threads and is exact", "[reduction]") {
  Tensor x(tf::DT_FLOAT, TensorShape({1000, 1000}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.base<float>()[i] = 1.0f;
  Run r = Reduce<float>("Sum", x, Tensor::FromVector<int32_t>({0}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>(1000, 1000.0f));
  r = Reduce<float>("Sum", x, Tensor::FromVector<int32_t>({1}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>(1000, 1000.0f));
}

TEST_CASE("batch norm's sums over N, H and W (rows of channels) match a double loop, cascaded in float",
          "[reduction]") {
  // NHWC [n, h, w, c] summed over its first three axes (one group of rows: a == 1), and a
  // middle axis of [a, b, c] (a > 1, some a's split over the threads, some not).
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int32_t> axes;
  };
  for (const Case& test : {Case{{4, 9, 7, 33}, {0, 1, 2}}, Case{{3, 700, 20}, {1}}, Case{{1, 2, 16}, {1}},
                           Case{{37, 5, 300, 16}, {1, 2}}, Case{{2, 3000, 64}, {0, 1}}}) {
    const int64_t c = test.dims.back();
    int64_t n = 1;
    for (int64_t d : test.dims) n *= d;
    std::vector<float> values(n);
    for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>((i * 7919) % 1001) / 1000.f - 0.3f;
    // The reference: out[outer, j] over every reduced element, in double.
    const int64_t a = test.axes.front() == 0 ? 1 : test.dims[0];
    const int64_t b = n / a / c;
    std::vector<double> want(a * c, 0.0);
    for (int64_t i = 0; i < a; ++i)
      for (int64_t r = 0; r < b; ++r)
        for (int64_t j = 0; j < c; ++j) want[i * c + j] += values[(i * b + r) * c + j];
    INFO("dims " << TensorShape(test.dims).DebugString());
    Run r = Reduce<float>("Sum", Tensor::FromVector<float>(values, TensorShape(test.dims)),
                          Tensor::FromVector<int32_t>(test.axes));
    REQUIRE(r.status.ok());
    std::vector<float> got = Values<float>(r.outputs[0]);
    REQUIRE(got.size() == want.size());
    // Cascaded: within a few roundings of the largest partial sum, not b of them.
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-6 * b));
  }
  // 100,000 rows of 0.1: a plain running float sum drifts by ~1e-3 relative; cascaded stays
  // near float's own rounding.
  Tensor tenths(tf::DT_FLOAT, TensorShape({100000, 16}));
  for (int64_t i = 0; i < tenths.NumElements(); ++i) tenths.base<float>()[i] = 0.1f;
  Run r = Reduce<float>("Mean", tenths, Tensor::FromVector<int32_t>({0}));
  REQUIRE(r.status.ok());
  for (float mean : Values<float>(r.outputs[0])) CHECK(mean == Approx(0.1).epsilon(1e-5));
}

TEMPLATE_TEST_CASE("half and bfloat16 Sum and Mean over an image's rows and columns sum in float",
                   "[reduction][small-types]", Eigen::bfloat16, Eigen::half) {
  // Global pooling and squeeze-and-excitation: [n, h, w, c] over {1, 2}, and [rows, c] over
  // rows, the rows long enough to be summed in several chunks. The sums are float's (of the
  // exact values), rounded to T once: within one rounding of the double sum.
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int32_t> axes;
  };
  for (const Case& test : {Case{{3, 20, 30, 37}, {1, 2}}, Case{{1, 7, 7, 1280}, {1, 2}}, Case{{2000, 20}, {0}}}) {
    const int64_t c = test.dims.back();
    int64_t n = 1;
    for (int64_t d : test.dims) n *= d;
    const int64_t a = test.dims.size() == 4 ? test.dims[0] : 1, rows = n / a / c;
    std::vector<TestType> values(n);
    std::vector<double> sums(a * c, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      values[i] = TestType(0.5f + static_cast<float>((i * 7919) % 1001) / 1000.f);
      sums[(i / (rows * c)) * c + i % c] += static_cast<float>(values[i]);
    }
    for (const char* op : {"Sum", "Mean"}) {
      INFO(op << " of " << TensorShape(test.dims).DebugString());
      Run r = Reduce<TestType>(op, Tensor::FromVector<TestType>(values, TensorShape(test.dims)),
                               Tensor::FromVector<int32_t>(test.axes));
      REQUIRE(r.status.ok());
      const std::vector<TestType> got = Values<TestType>(r.outputs[0]);
      REQUIRE(got.size() == sums.size());
      const double eps = std::is_same_v<TestType, Eigen::half> ? 1.0 / 1024 : 1.0 / 128;
      for (size_t i = 0; i < got.size(); ++i) {
        const double want = std::string(op) == "Sum" ? sums[i] : sums[i] / rows;
        if (std::is_same_v<TestType, Eigen::half> && want > 65504) continue;  // half's range
        CHECK(static_cast<float>(got[i]) == Approx(want).epsilon(eps));
      }
    }
  }
}

TEST_CASE("empty reductions give the reducer's identity (Max: -inf, Mean: NaN)", "[reduction]") {
  Tensor x(tf::DT_FLOAT, TensorShape({2, 0}));
  Run r = Reduce<float>("Sum", x, Tensor::FromVector<int32_t>({1}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 0});
  r = Reduce<float>("Max", x, Tensor::FromVector<int32_t>({1}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].base<float>()[0] == -std::numeric_limits<float>::infinity());
  r = Reduce<float>("Mean", x, Tensor::FromVector<int32_t>({1}));
  REQUIRE(r.status.ok());
  CHECK(std::isnan(r.outputs[0].base<float>()[0]));
  r = Reduce<float>("Sum", x, Tensor::FromVector<int32_t>({0}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({0}));
}

TEMPLATE_TEST_CASE("half and bfloat16 Sum and Mean over an empty axis: 0 and NaN", "[reduction][small-types]",
                   Eigen::bfloat16, Eigen::half) {
  // [0, 3] over axis 0 and [2, 0, 3] over axis 1: no rows to sum (the float path's chunks).
  for (const TensorShape& shape : {TensorShape({0, 3}), TensorShape({2, 0, 3})}) {
    INFO("shape " << shape.DebugString());
    Tensor x(DataTypeToEnum<TestType>::value, shape);
    const int32_t axis = shape.dims() == 2 ? 0 : 1;
    const int64_t n = shape.dims() == 2 ? 3 : 6;
    Run sum = Reduce<TestType>("Sum", x, Tensor::FromVector<int32_t>({axis}));
    REQUIRE(sum.status.ok());
    REQUIRE(sum.outputs[0].NumElements() == n);
    for (int64_t i = 0; i < n; ++i) CHECK(static_cast<float>(sum.outputs[0].base<TestType>()[i]) == 0.f);
    Run mean = Reduce<TestType>("Mean", x, Tensor::FromVector<int32_t>({axis}));
    REQUIRE(mean.status.ok());
    for (int64_t i = 0; i < n; ++i) CHECK(std::isnan(static_cast<float>(mean.outputs[0].base<TestType>()[i])));
  }
}

TEST_CASE("All and Any", "[reduction]") {
  Tensor x = Tensor::FromVector<bool>({true, false, true, true}, TensorShape({2, 2}));
  auto run = [&](const std::string& op, std::vector<int32_t> axes) {
    Run r = RunOp(op, {x, Tensor::FromVector<int32_t>(axes)}, {});
    REQUIRE(r.status.ok());
    return Values<bool>(r.outputs[0]);
  };
  CHECK(run("All", {1}) == std::vector<bool>{false, true});
  CHECK(run("All", {0}) == std::vector<bool>{true, false});
  CHECK(run("Any", {0, 1}) == std::vector<bool>{true});
  CHECK(run("Any", {1}) == std::vector<bool>{true, true});
}

TEST_CASE("a reduction axis out of range is InvalidArgument naming the node", "[reduction]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Run r = Reduce<float>("Sum", x, Tensor::FromVector<int32_t>({2}));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Invalid reduction dimension (2 for input with 2 dimension(s)"));
  CHECK_THAT(r.status.message(), Catch::Contains("'n'"));
  r = Reduce<float>("Max", x, Tensor::FromVector<int64_t>({-3}));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
}

TEMPLATE_TEST_CASE("ArgMax and ArgMin pick the first extreme index along the axis", "[reduction]", float, double,
                   int32_t, int64_t) {
  using T = TestType;
  Tensor x = Tensor::FromVector<T>({1, 5, 3, 7, 2, 7}, TensorShape({2, 3}));
  auto run = [&](const std::string& op, int32_t axis, DataType out_type) {
    return RunOp(op, {x, Tensor::Scalar<int32_t>(axis)},
                 {{"T", TypeA(DataTypeToEnum<T>::value)}, {"output_type", TypeA(out_type)}});
  };
  Run r = run("ArgMax", 1, tf::DT_INT64);
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{1, 0});
  r = run("ArgMax", 0, tf::DT_INT32);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 0, 1});
  r = run("ArgMin", -1, tf::DT_INT64);
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{0, 1});
  r = run("ArgMax", 2, tf::DT_INT64);
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Expected dimension in the range [-2, 2), but got 2"));
}

TEST_CASE("ArgMax's int16 and uint16 output_types wrap an index past their range, as TensorFlow's",
          "[reduction]") {
  // TensorFlow 2.21: x = zeros([2, 40001]); x[0, 40000] = 1; x[1, 7] = 2;
  // ArgMax(x, 1, output_type=int16) = [-25536, 7], uint16 = [40000, 7].
  std::vector<float> v(2 * 40001, 0.0f);
  v[40000] = 1;
  v[40001 + 7] = 2;
  Tensor x = Tensor::FromVector<float>(v, TensorShape({2, 40001}));
  auto run = [&](DataType out_type) {
    return RunOp("ArgMax", {x, Tensor::Scalar<int32_t>(1)},
                 {{"T", TypeA(tf::DT_FLOAT)}, {"output_type", TypeA(out_type)}});
  };
  Run r = run(tf::DT_INT16);
  REQUIRE(r.status.ok());
  CHECK(Values<int16_t>(r.outputs[0]) == std::vector<int16_t>{-25536, 7});
  r = run(tf::DT_UINT16);
  REQUIRE(r.status.ok());
  CHECK(Values<uint16_t>(r.outputs[0]) == std::vector<uint16_t>{40000, 7});
}

TEST_CASE("ArgMax over an empty axis is InvalidArgument", "[reduction]") {
  Run r = RunOp("ArgMax", {Tensor(tf::DT_FLOAT, TensorShape({2, 0})), Tensor::Scalar<int32_t>(1)},
                {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Reduction axis 1 is empty in shape"));
}

}  // namespace
}  // namespace tensoract
