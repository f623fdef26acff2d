// Kernels of the diagonal ops: Diag, DiagPart, MatrixDiag(V3), MatrixDiagPart(V3),
// MatrixSetDiag(V3) and MatrixBandPart. Expected values and messages were printed by
// TensorFlow 2.21 (python3, the tf.raw_ops call named in each comment, eagerly on the CPU)
// and pasted here.
#include <catch2/catch.hpp>
#include <cstdint>
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

// x = [[1,2,3,4],[5,6,7,8],[9,10,11,12]]
Tensor MdMatrix() {
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i + 1);
  return Tensor::FromVector<float>(v, TensorShape({3, 4}));
}

Run MdPartV3(const Tensor& x, std::vector<int32_t> k, float padding, const std::string& align = "RIGHT_LEFT") {
  return RunOp("MatrixDiagPartV3", {x, Tensor::FromVector<int32_t>(k), Tensor::Scalar<float>(padding)},
               {{"T", TypeA(x.dtype())}, {"align", testing::Str(align)}});
}

TEST_CASE("MatrixDiagPartV3 reads a band of diagonals, aligned and padded", "[matrix_diag]") {
  // MatrixDiagPartV3(input=x, k=[-1,1], padding_value=9): the subdiagonal left-aligned
  Run r = MdPartV3(MdMatrix(), {-1, 1}, 9);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 3}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2, 7, 12, 1, 6, 11, 5, 10, 9});
  // ... align="LEFT_RIGHT": the subdiagonal right-aligned
  r = MdPartV3(MdMatrix(), {-1, 1}, 9, "LEFT_RIGHT");
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2, 7, 12, 1, 6, 11, 9, 5, 10});
  // MatrixDiagPart(input=x)
  r = RunOp("MatrixDiagPart", {MdMatrix()}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 6, 11});
  // MatrixDiagPartV3(input=x, k=[-3,1], ...): "lower_diag_index is out of bound: -3. It must be between -3 and 4"
  CHECK_THAT(MdPartV3(MdMatrix(), {-3, 1}, 9).status.message(),
             Contains("lower_diag_index is out of bound: -3. It must be between -3 and 4"));
}

TEST_CASE("MatrixDiagV3 and MatrixDiag build matrices from diagonals", "[matrix_diag]") {
  // MatrixDiagV3(diagonal=[[1,2,3],[4,5,6]], k=[0,1], num_rows=-1, num_cols=-1, padding_value=7)
  auto diag_v3 = [](const Tensor& d, std::vector<int32_t> k, int32_t rows, int32_t cols, int32_t padding) {
    return RunOp("MatrixDiagV3",
                 {d, Tensor::FromVector<int32_t>(k), Tensor::Scalar<int32_t>(rows), Tensor::Scalar<int32_t>(cols),
                  Tensor::Scalar<int32_t>(padding)},
                 {{"T", TypeA(tensorflow::DT_INT32)}});
  };
  const Tensor two = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Run r = diag_v3(two, {0, 1}, -1, -1, 7);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 3}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{4, 2, 7, 7, 5, 3, 7, 7, 6});
  // MatrixDiagV3(diagonal=[1,2,3], k=-1, ...): the smallest square that holds it, 4 x 4
  r = diag_v3(Tensor::FromVector<int32_t>({1, 2, 3}), {-1}, -1, -1, 0);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({4, 4}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0});
  CHECK_THAT(diag_v3(two, {0, 1}, 2, -1, 7).status.message(), Contains("The number of rows is too small."));
  // MatrixDiag(diagonal=[1,2])
  r = RunOp("MatrixDiag", {Tensor::FromVector<int32_t>({1, 2})}, {{"T", TypeA(tensorflow::DT_INT32)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 0, 0, 2});
}

TEST_CASE("MatrixSetDiagV3 replaces a band of diagonals", "[matrix_diag]") {
  // MatrixSetDiagV3(input=zeros((3,4)), diagonal=[[1,2,3],[4,5,9]], k=[-1,0])
  const Tensor zeros = Tensor::FromVector<int32_t>(std::vector<int32_t>(12, 0), TensorShape({3, 4}));
  Run r = RunOp("MatrixSetDiagV3",
                {zeros, Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 9}, TensorShape({2, 3})),
                 Tensor::FromVector<int32_t>({-1, 0})},
                {{"T", TypeA(tensorflow::DT_INT32)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 0, 0, 0, 4, 2, 0, 0, 0, 5, 3, 0});
  r = RunOp("MatrixSetDiagV3",
            {zeros, Tensor::FromVector<int32_t>({1, 2, 3}, TensorShape({1, 3})), Tensor::FromVector<int32_t>({-1, 0})},
            {{"T", TypeA(tensorflow::DT_INT32)}});
  CHECK_THAT(r.status.message(), Contains("The number of diagonals provided in `diag` is not consistent with "
                                          "`lower_diag_index` and `upper_diag_index`"));
}

TEST_CASE("MatrixBandPart keeps a band, Diag and DiagPart the tensor diagonal", "[matrix_diag]") {
  // MatrixBandPart(input=x, num_lower=1, num_upper=0)
  Run r = RunOp("MatrixBandPart", {MdMatrix(), Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(0)},
                {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 0, 0, 0, 5, 6, 0, 0, 0, 10, 11, 0});
  r = RunOp("MatrixBandPart", {MdMatrix(), Tensor::Scalar<int64_t>(4), Tensor::Scalar<int64_t>(0)},
            {{"T", TypeA(tensorflow::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Contains("num_lower must be negative or less or equal to number of rows (3) got: 4"));
  // Diag(diagonal=[1,2]); DiagPart(input=np.arange(16).reshape(2,2,2,2))
  r = RunOp("Diag", {Tensor::FromVector<int32_t>({1, 2})}, {{"T", TypeA(tensorflow::DT_INT32)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 0, 0, 2});
  std::vector<int32_t> iota(16);
  for (int i = 0; i < 16; ++i) iota[i] = i;
  r = RunOp("DiagPart", {Tensor::FromVector<int32_t>(iota, TensorShape({2, 2, 2, 2}))},
            {{"T", TypeA(tensorflow::DT_INT32)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0, 5, 10, 15});
  r = RunOp("DiagPart", {Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5}, TensorShape({2, 3}))},
            {{"T", TypeA(tensorflow::DT_INT32)}});
  CHECK_THAT(r.status.message(), Contains("Invalid shape [2,3]: dimensions 0 and 1 do not match."));
}

}  // namespace
}  // namespace tensoract
