// Kernels and shape functions of SpaceToBatchND, BatchToSpaceND, SpaceToDepth and
// DepthToSpace. Expected values and messages were printed by TensorFlow 2.21 (python3, the
// tf.raw_ops call named in each comment, eagerly on the CPU) and pasted here.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using Catch::Contains;
using testing::Run;
using testing::RunMaybe;
using testing::RunOp;
using testing::TypeA;
using testing::Values;

template <class T>
Tensor SdIota(std::vector<int64_t> dims) {
  TensorShape shape(dims);
  std::vector<T> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i);
  return Tensor::FromVector<T>(v, shape);
}

Tensor SdMatrix(std::vector<int32_t> v, int64_t rows) {
  return Tensor::FromVector<int32_t>(v, TensorShape({rows, static_cast<int64_t>(v.size()) / rows}));
}

Run SpaceToBatch(const Tensor& x, const Tensor& block, const Tensor& paddings) {
  return RunOp("SpaceToBatchND", {x, block, paddings},
               {{"T", TypeA(x.dtype())}, {"Tblock_shape", TypeA(block.dtype())}, {"Tpaddings", TypeA(paddings.dtype())}});
}
Run BatchToSpace(const Tensor& x, const Tensor& block, const Tensor& crops) {
  return RunOp("BatchToSpaceND", {x, block, crops},
               {{"T", TypeA(x.dtype())}, {"Tblock_shape", TypeA(block.dtype())}, {"Tcrops", TypeA(crops.dtype())}});
}
Run SpaceDepth(const char* op, const Tensor& x, int64_t block, const std::string& format = "NHWC") {
  return RunMaybe(op, {x}, {{"T", TypeA(x.dtype())}, {"block_size", testing::IntA(block)},
                            {"data_format", testing::Str(format)}});
}

TEST_CASE("SpaceToBatchND pads with zeros and moves each block offset into the batch", "[space_depth]") {
  // SpaceToBatchND(input=np.arange(16.).reshape(2,2,4,1), block_shape=[2,2], paddings=[[0,0],[2,0]])
  Run r = SpaceToBatch(SdIota<float>({2, 2, 4, 1}), Tensor::FromVector<int32_t>({2, 2}), SdMatrix({0, 0, 2, 0}, 2));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({8, 1, 3, 1}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 0, 2, 0, 8, 10, 0, 1, 3, 0, 9, 11,
                                                          0, 4, 6, 0, 12, 14, 0, 5, 7, 0, 13, 15});
  // SpaceToBatchND(input=np.arange(24).reshape(1,3,4,2), block_shape=np.int64([2]), paddings=[[1,0]])
  r = SpaceToBatch(SdIota<int32_t>({1, 3, 4, 2}), Tensor::FromVector<int64_t>({2}), SdMatrix({1, 0}, 1));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2, 4, 2}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0,  0,  0,  0,  0,  0,  0,  0,  8,  9,  10,
                                                              11, 12, 13, 14, 15, 0,  1,  2,  3,  4,  5,
                                                              6,  7,  16, 17, 18, 19, 20, 21, 22, 23});
}

TEST_CASE("BatchToSpaceND interleaves the batch back and crops", "[space_depth]") {
  // BatchToSpaceND(input=np.arange(12).reshape(4,3,1), block_shape=[2], crops=[[1,2]])
  Run r = BatchToSpace(SdIota<int32_t>({4, 3, 1}), Tensor::FromVector<int32_t>({2}), SdMatrix({1, 2}, 1));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3, 1}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{6, 1, 7, 9, 4, 10});
  // The inverse of the padded SpaceToBatchND above gives the input back.
  Run there = SpaceToBatch(SdIota<double>({2, 2, 4, 1}), Tensor::FromVector<int32_t>({2, 2}), SdMatrix({0, 0, 2, 0}, 2));
  REQUIRE(there.status.ok());
  r = BatchToSpace(there.outputs[0], Tensor::FromVector<int32_t>({2, 2}), SdMatrix({0, 0, 2, 0}, 2));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2, 4, 1}));
  CHECK(Values<double>(r.outputs[0]) == Values<double>(SdIota<double>({2, 2, 4, 1})));
}

TEST_CASE("SpaceToBatchND and BatchToSpaceND refuse bad blocks in TensorFlow's words", "[space_depth]") {
  const Tensor zeros = SdMatrix({0, 0, 0, 0}, 2);
  // "padded_shape[0]=3 is not divisible by block_shape[0]=2"
  Run r = SpaceToBatch(SdIota<float>({1, 3, 4, 1}), Tensor::FromVector<int32_t>({2, 2}), zeros);
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("node 'n'") && Contains("padded_shape[0]=3 is not divisible by block_shape[0]=2"));
  // "All values in block_shape must be positive, got value, 0 at index 0."
  r = SpaceToBatch(SdIota<float>({1, 2, 2, 1}), Tensor::FromVector<int32_t>({0, 2}), zeros);
  CHECK_THAT(r.status.message(), Contains("All values in block_shape must be positive, got value, 0 at index 0."));
  // "input rank should be >= 7 instead of 4"
  r = SpaceToBatch(SdIota<float>({1, 2, 2, 1}), Tensor::FromVector<int32_t>({1, 1, 1, 1, 1, 1}),
                   Tensor::FromVector<int32_t>(std::vector<int32_t>(12, 0), TensorShape({6, 2})));
  CHECK_THAT(r.status.message(), Contains("input rank should be >= 7 instead of 4"));
  // "Input batch dimension (3) is not divisible by product of block sizes (4)"
  r = BatchToSpace(SdIota<float>({3, 2, 2, 1}), Tensor::FromVector<int32_t>({2, 2}), zeros);
  CHECK_THAT(r.status.message(), Contains("Input batch dimension (3) is not divisible by product of block sizes (4)"));
  r = BatchToSpace(SdIota<float>({4, 1, 1, 1}), Tensor::FromVector<int32_t>({2, 2}), SdMatrix({0, 3, 0, 0}, 2));
  CHECK_THAT(r.status.message(), Contains("cropped_shape[0]=-1 must be non-negative"));
}

TEST_CASE("SpaceToDepth and DepthToSpace move blocks of height and width into depth and back", "[space_depth]") {
  // SpaceToDepth(input=np.arange(32).reshape(1,4,4,2), block_size=2)
  Run r = SpaceDepth("SpaceToDepth", SdIota<int32_t>({1, 4, 4, 2}), 2);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 2, 2, 8}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0,  1,  2,  3,  8,  9,  10, 11, 4,  5,  6,
                                                              7,  12, 13, 14, 15, 16, 17, 18, 19, 24, 25,
                                                              26, 27, 20, 21, 22, 23, 28, 29, 30, 31});
  // DepthToSpace(input=np.arange(16).reshape(1,1,2,8), block_size=2)
  r = SpaceDepth("DepthToSpace", SdIota<int32_t>({1, 1, 2, 8}), 2);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 2, 4, 2}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15});
  // Strings move as values.
  r = SpaceDepth("DepthToSpace", Tensor::FromVector<std::string>({"a", "b", "c", "d"}, TensorShape({1, 1, 1, 4})), 2);
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(r.outputs[0].shape() == TensorShape({1, 2, 2, 1}));
}

TEST_CASE("SpaceToDepth and DepthToSpace refuse bad sizes and layouts in TensorFlow's words", "[space_depth]") {
  CHECK_THAT(SpaceDepth("SpaceToDepth", SdIota<float>({1, 3, 4, 1}), 2).status.message(),
             Contains("Image width 4 and height 3 should be divisible by block_size: 2"));
  CHECK_THAT(SpaceDepth("DepthToSpace", SdIota<float>({1, 3, 4, 6}), 2).status.message(),
             Contains("Input depth dimension 6 should be divisible by: 4"));
  CHECK_THAT(SpaceDepth("SpaceToDepth", SdIota<float>({1, 4, 4}), 2).status.message(),
             Contains("Input rank should be 4 instead of 3"));
  CHECK_THAT(SpaceDepth("DepthToSpace", SdIota<float>({1, 4, 4}), 2).status.message(),
             Contains("Input rank should be: 4 instead of: 3"));
  Run r = SpaceDepth("SpaceToDepth", SdIota<float>({1, 4, 4, 1}), 2, "NCHW");
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("Only NHWC data_format supported on CPU. Got NCHW"));
}

TEST_CASE("the space, batch and depth shape functions follow TensorFlow's", "[space_depth]") {
  std::vector<PartialTensorShape> out;
  const testing::AttrMap s2b = {{"T", TypeA(tensorflow::DT_FLOAT)}};
  // block_shape of unknown rank or length: refused, as TensorFlow does.
  CHECK(testing::InferShapes("SpaceToBatchND", s2b, {PartialTensorShape({2, 4, 4, 3}), PartialTensorShape(),
                                                      PartialTensorShape()})
            .code() == error::INVALID_ARGUMENT);
  CHECK(testing::InferShapes("SpaceToBatchND", s2b, {PartialTensorShape({2, 4, 4, 3}), PartialTensorShape({-1}),
                                                      PartialTensorShape()})
            .code() == error::INVALID_ARGUMENT);
  // Values unknown: the batch unknown, the spatial sizes unknown, the rest kept.
  REQUIRE(testing::InferShapes("SpaceToBatchND", s2b,
                               {PartialTensorShape({2, 4, 4, 3}), PartialTensorShape({2}), PartialTensorShape()}, &out)
              .ok());
  CHECK(out[0].DebugString() == PartialTensorShape({-1, -1, -1, 3}).DebugString());
  const testing::AttrMap d2s = {{"T", TypeA(tensorflow::DT_FLOAT)}, {"block_size", testing::IntA(2)}};
  REQUIRE(testing::InferShapes("DepthToSpace", d2s, {PartialTensorShape({-1, 3, 5, 12})}, &out).ok());
  CHECK(out[0].DebugString() == PartialTensorShape({-1, 6, 10, 3}).DebugString());
  CHECK(testing::InferShapes("SpaceToDepth", d2s, {PartialTensorShape({1, 3, 4, 1})}).code() ==
        error::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tensoract
