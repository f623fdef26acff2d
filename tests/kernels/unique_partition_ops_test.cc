// Kernels of LinSpace, Bincount, Unique, UniqueV2 and DynamicPartition. Expected values
// and messages were printed by TensorFlow 2.21 (python3, the tf.raw_ops call named in each
// comment, eagerly on the CPU) and pasted here.
#include <catch2/catch.hpp>
#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using Catch::Contains;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;

Run UpUnique(const Tensor& x) {
  return RunOp("Unique", {x}, {{"T", TypeA(x.dtype())}, {"out_idx", TypeA(tensorflow::DT_INT32)}});
}

TEST_CASE("LinSpace computes start + step * i and ends on stop", "[unique_partition]") {
  // LinSpace(start=np.float32(0.1), stop=np.float32(1.0), num=7)
  Run r = RunOp("LinSpace", {Tensor::Scalar<float>(0.1f), Tensor::Scalar<float>(1.f), Tensor::Scalar<int32_t>(7)},
                {{"T", TypeA(tensorflow::DT_FLOAT)}, {"Tidx", TypeA(tensorflow::DT_INT32)}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) ==
        std::vector<float>{0.1f, 0.25f, 0.39999998f, 0.55f, 0.7f, 0.84999996f, 1.f});
  r = RunOp("LinSpace", {Tensor::Scalar<double>(3), Tensor::Scalar<double>(1), Tensor::Scalar<int64_t>(0)},
            {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"Tidx", TypeA(tensorflow::DT_INT64)}});
  CHECK_THAT(r.status.message(), Contains("Requires num > 0: 0"));
}

TEST_CASE("Bincount counts or sums weights, dropping values past size", "[unique_partition]") {
  const Tensor arr = Tensor::FromVector<int32_t>({1, 1, 3, 7, 0});
  // Bincount(arr=[1,1,3,7,0], size=5, weights=[]) and with weights [1,2,3,4,5] (int64)
  Run r = RunOp("Bincount", {arr, Tensor::Scalar<int32_t>(5), Tensor::FromVector<float>({})},
                {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 2, 0, 1, 0});
  r = RunOp("Bincount", {arr, Tensor::Scalar<int32_t>(5), Tensor::FromVector<int64_t>({1, 2, 3, 4, 5})},
            {{"T", TypeA(tensorflow::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{5, 3, 0, 3, 0});
  r = RunOp("Bincount", {Tensor::FromVector<int32_t>({1, -1}), Tensor::Scalar<int32_t>(5), Tensor::FromVector<float>({})},
            {{"T", TypeA(tensorflow::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Contains("Input arr must be non-negative!"));
}

TEST_CASE("Unique numbers values by first appearance with TensorFlow's equality", "[unique_partition]") {
  // Unique(x=[4,1,4,2,1])
  Run r = UpUnique(Tensor::FromVector<int32_t>({4, 1, 4, 2, 1}));
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{4, 1, 2});
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{0, 1, 0, 2, 1});
  // float: 0 and -0 are one value, each NaN its own: y [0, nan, nan, 1], idx [0, 0, 1, 2, 3]
  const float nan = std::numeric_limits<float>::quiet_NaN();
  r = UpUnique(Tensor::FromVector<float>({0.f, -0.f, nan, nan, 1.f}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].NumElements() == 4);
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{0, 0, 1, 2, 3});
  // half: TensorFlow hashes the bits, so 0 and -0 differ: idx [0, 1, 2, 3, 4]
  const Eigen::half hn = Eigen::half(nan);
  r = UpUnique(Tensor::FromVector<Eigen::half>({Eigen::half(0.f), Eigen::half(-0.f), hn, hn, Eigen::half(1.f)}));
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{0, 1, 2, 3, 4});
  CHECK_THAT(UpUnique(Tensor::FromVector<int32_t>({1, 2}, TensorShape({1, 2}))).status.message(),
             Contains("unique expects a 1D vector."));
}

TEST_CASE("UniqueV2 compares whole slices along the axis", "[unique_partition]") {
  // UniqueV2(x=[[1,1,2],[3,3,4]], axis=[1]): y [[1,2],[3,4]], idx [0,0,1]
  Run r = RunOp("UniqueV2",
                {Tensor::FromVector<int32_t>({1, 1, 2, 3, 3, 4}, TensorShape({2, 3})), Tensor::FromVector<int64_t>({1})},
                {{"T", TypeA(tensorflow::DT_INT32)}, {"out_idx", TypeA(tensorflow::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 2, 3, 4});
  CHECK(Values<int64_t>(r.outputs[1]) == std::vector<int64_t>{0, 0, 1});
}

TEST_CASE("DynamicPartition sends slices to the partitions named, in order", "[unique_partition]") {
  std::vector<float> data{0, 1, 2, 3, 4, 5};
  // DynamicPartition(data=np.arange(6.).reshape(3,2), partitions=[1,0,1], num_partitions=3)
  Run r = RunOp("DynamicPartition", {Tensor::FromVector<float>(data, TensorShape({3, 2})),
                                     Tensor::FromVector<int32_t>({1, 0, 1})},
                {{"T", TypeA(tensorflow::DT_FLOAT)}, {"num_partitions", testing::IntA(3)}});
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs.size() == 3);
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2, 3});
  CHECK(Values<float>(r.outputs[1]) == std::vector<float>{0, 1, 4, 5});
  CHECK(r.outputs[2].shape() == TensorShape({0, 2}));
  r = RunOp("DynamicPartition", {Tensor::FromVector<float>(data, TensorShape({3, 2})),
                                 Tensor::FromVector<int32_t>({1, 0, 3})},
            {{"T", TypeA(tensorflow::DT_FLOAT)}, {"num_partitions", testing::IntA(3)}});
  CHECK_THAT(r.status.message(), Contains("partitions[2] = 3 is not in [0, 3)"));
}

}  // namespace
}  // namespace tensoract
