// CumulativeLogsumexp (kernels/cpu/scan_ops.cc) and DenseBincount
// (dense_bincount_op.cc) on hand-worked inputs, TensorFlow's treatment of NaN in the running
// log-sum-exp, and both ops' refusals. The harness (tests/compat, family math_census)
// compares them with TensorFlow over random and edge values;
// tests/actors/gradient_check_math_census_test.cc checks CumulativeLogsumexp's gradient.
#include <cmath>
#include <limits>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::BoolA;
using testing::RunOp;
using testing::TypeA;

testing::AttrMap ScanAttrs(bool exclusive, bool reverse) {
  return {{"T", TypeA(tensorflow::DT_DOUBLE)},
          {"Tidx", TypeA(tensorflow::DT_INT32)},
          {"exclusive", BoolA(exclusive)},
          {"reverse", BoolA(reverse)}};
}

Tensor Axis(int32_t a) { return Tensor::FromVector<int32_t>({a}, TensorShape({})); }

void CheckNearCensus(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    if (std::isinf(want[i])) {
      CHECK(got[i] == want[i]);
    } else {
      CHECK(got[i] == Approx(want[i]).epsilon(1e-15).margin(1e-15));
    }
  }
}

TEST_CASE("CumulativeLogsumexp of zeros is log 1, log 2, log 3, any way round") {
  const Tensor zeros = Tensor::FromVector<double>({0, 0, 0}, TensorShape({3}));
  const double ninf = -std::numeric_limits<double>::infinity();
  auto r = RunOp("CumulativeLogsumexp", {zeros, Axis(0)}, ScanAttrs(false, false));
  REQUIRE(r.status.ok());
  CheckNearCensus(testing::Values<double>(r.outputs[0]), {0, std::log(2.0), std::log(3.0)});
  r = RunOp("CumulativeLogsumexp", {zeros, Axis(0)}, ScanAttrs(true, false));
  CheckNearCensus(testing::Values<double>(r.outputs[0]), {ninf, 0, std::log(2.0)});
  r = RunOp("CumulativeLogsumexp", {zeros, Axis(-1)}, ScanAttrs(false, true));
  CheckNearCensus(testing::Values<double>(r.outputs[0]), {std::log(3.0), std::log(2.0), 0});
  // Along axis 0 of [[0, 1], [ln 3, 1]]: log(1 + 3) = ln 4 and 1 + ln 2.
  const Tensor m = Tensor::FromVector<double>({0, 1, std::log(3.0), 1}, TensorShape({2, 2}));
  r = RunOp("CumulativeLogsumexp", {m, Axis(0)}, ScanAttrs(false, false));
  CheckNearCensus(testing::Values<double>(r.outputs[0]), {0, 1, std::log(4.0), 1 + std::log(2.0)});
}

TEST_CASE("CumulativeLogsumexp drops a NaN as TensorFlow's min and max do: the running value counts twice") {
  const double nan = std::nan("");
  // [1, NaN, ...]: min(1, NaN) and max(1, NaN) are both 1, so the step gives 1 + ln 2; a NaN
  // first leaves -inf.
  auto r = RunOp("CumulativeLogsumexp", {Tensor::FromVector<double>({1, nan}, TensorShape({2})), Axis(0)},
                 ScanAttrs(false, false));
  CheckNearCensus(testing::Values<double>(r.outputs[0]), {1, 1 + std::log(2.0)});
  r = RunOp("CumulativeLogsumexp", {Tensor::FromVector<double>({nan, 1}, TensorShape({2})), Axis(0)},
            ScanAttrs(false, false));
  CheckNearCensus(testing::Values<double>(r.outputs[0]), {-std::numeric_limits<double>::infinity(), 1});
}

TEST_CASE("CumulativeLogsumexp refuses an axis out of range or not a scalar") {
  const Tensor x = Tensor::FromVector<double>({0, 0, 0, 0}, TensorShape({2, 2}));
  auto r = testing::RunMaybe("CumulativeLogsumexp", {x, Axis(2)}, ScanAttrs(false, false));
  CHECK_THAT(r.status.message(), Catch::Contains("Expected scan axis in the range [-2, 2), but got 2"));
  r = testing::RunMaybe("CumulativeLogsumexp", {x, Tensor::FromVector<int32_t>({0}, TensorShape({1}))},
                        ScanAttrs(false, false));
  CHECK_THAT(r.status.message(), Catch::Contains("axis must be a scalar"));
}

testing::AttrMap CountAttrs(DataType tidx, DataType t, bool binary) {
  return {{"Tidx", TypeA(tidx)}, {"T", TypeA(t)}, {"binary_output", BoolA(binary)}};
}

TEST_CASE("DenseBincount counts, sums weights, or marks presence, of a vector and of each row of a matrix") {
  const Tensor arr = Tensor::FromVector<int32_t>({1, 1, 3, 0, 7}, TensorShape({5}));
  const Tensor size = Tensor::FromVector<int32_t>({5}, TensorShape({}));
  const Tensor none = Tensor::FromVector<float>({}, TensorShape({0}));
  const Tensor w = Tensor::FromVector<float>({0.5f, 0.25f, 1, 2, 3}, TensorShape({5}));
  auto r = RunOp("DenseBincount", {arr, size, none}, CountAttrs(tensorflow::DT_INT32, tensorflow::DT_FLOAT, false));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{1, 2, 0, 1, 0});  // 7 is past size: dropped
  r = RunOp("DenseBincount", {arr, size, w}, CountAttrs(tensorflow::DT_INT32, tensorflow::DT_FLOAT, false));
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{2, 0.75f, 0, 1, 0});
  r = RunOp("DenseBincount", {arr, size, w}, CountAttrs(tensorflow::DT_INT32, tensorflow::DT_FLOAT, true));
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{1, 1, 0, 1, 0});
  const Tensor rows = Tensor::FromVector<int64_t>({1, 2, 2, 0, 4, 9}, TensorShape({2, 3}));
  r = RunOp("DenseBincount",
            {rows, Tensor::FromVector<int64_t>({4}, TensorShape({})), Tensor::FromVector<int64_t>({}, TensorShape({0}))},
            CountAttrs(tensorflow::DT_INT64, tensorflow::DT_INT64, false));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 4}));
  CHECK(testing::Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{0, 1, 2, 0, 1, 0, 0, 0});
}

TEST_CASE("DenseBincount refuses negative values and sizes and weights of another shape, in TensorFlow's words") {
  const Tensor none = Tensor::FromVector<float>({}, TensorShape({0}));
  const Tensor four = Tensor::FromVector<int32_t>({4}, TensorShape({}));
  const auto attrs = CountAttrs(tensorflow::DT_INT32, tensorflow::DT_FLOAT, false);
  auto r = testing::RunMaybe("DenseBincount", {Tensor::FromVector<int32_t>({1, -1}, TensorShape({2})), four, none},
                             attrs);
  CHECK_THAT(r.status.message(), Catch::Contains("Input arr must be non-negative!"));
  r = testing::RunMaybe("DenseBincount", {Tensor::FromVector<int32_t>({1, -1}, TensorShape({1, 2})), four, none},
                        attrs);
  CHECK_THAT(r.status.message(), Catch::Contains("Negative input value found: -1"));
  r = testing::RunMaybe("DenseBincount",
                        {Tensor::FromVector<int32_t>({1}, TensorShape({1})),
                         Tensor::FromVector<int32_t>({-1}, TensorShape({})), none},
                        attrs);
  CHECK_THAT(r.status.message(), Catch::Contains("size (-1) must be non-negative"));
  r = testing::RunMaybe("DenseBincount",
                        {Tensor::FromVector<int32_t>({1, 2}, TensorShape({2})), four,
                         Tensor::FromVector<float>({1}, TensorShape({1}))},
                        attrs);
  CHECK_THAT(r.status.message(), Catch::Contains("`weights` must be the same shape as `arr`"));
}

}  // namespace
}  // namespace tensoract
