// Array kernels beyond the first set (Size, Rank, ShapeN, Slice, StridedSlice and its
// gradient, Unpack, Split, SplitV, Tile, Range, GatherV2, OneHot, Pad, PadV2, BroadcastTo,
// InvertPermutation, PlaceholderWithDefault, UnsortedSegmentSum). Expected values were
// printed by TensorFlow 2.21 (python3, the tf.* call named in each comment) and pasted here.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::Iota;

using testing::IntA;
using testing::TOf;

namespace tf = ::tensorflow;

using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;

tf::AttrValue Int32A() { return TypeA(tf::DT_INT32); }


TEST_CASE("Size, Rank and ShapeN describe their inputs", "[array2]") {
  Tensor x(tf::DT_FLOAT, TensorShape({2, 0, 5}));
  Tensor y(tf::DT_FLOAT, TensorShape({3, 4}));
  Run r = RunOp("Size", {y}, {{"T", TypeA(tf::DT_FLOAT)}, {"out_type", TypeA(tf::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{12});
  r = RunOp("Rank", {x}, {{"T", TypeA(tf::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{3});
  r = RunOp("ShapeN", {x, y}, {{"T", TypeA(tf::DT_FLOAT)}, {"N", IntA(2)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{2, 0, 5});
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{3, 4});
}

TEMPLATE_TEST_CASE("Slice takes a box; size -1 runs to the end", "[array2]", float, double, int32_t, int64_t, bool) {
  using T = TestType;
  std::vector<T> v = {T(0), T(1), T(1), T(0), T(1), T(0)};
  Tensor x = Tensor::FromVector<T>(v, TensorShape({2, 3}));
  Run r = RunOp("Slice", {x, Tensor::FromVector<int32_t>({0, 1}), Tensor::FromVector<int32_t>({-1, 2})},
                {{"T", TOf<T>()}, {"Index", Int32A()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{v[1], v[2], v[4], v[5]});
}

TEST_CASE("Slice rejects a box outside the input, naming the node", "[array2]") {
  Tensor x(tf::DT_FLOAT, TensorShape({2, 3}));
  // tf.slice(tf.zeros([2,3]), [1,1], [2,1]): "Expected size[0] in [0, 1], but got 2"
  Run r = RunOp("Slice", {x, Tensor::FromVector<int32_t>({1, 1}), Tensor::FromVector<int32_t>({2, 1})},
                {{"T", TypeA(tf::DT_FLOAT)}, {"Index", Int32A()}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("Expected size[0] in [0, 1], but got 2"));
  r = RunOp("Slice", {x, Tensor::FromVector<int32_t>({3, 0}), Tensor::FromVector<int32_t>({0, 1})},
            {{"T", TypeA(tf::DT_FLOAT)}, {"Index", Int32A()}});
  CHECK_THAT(r.status.message(), Catch::Contains("Expected begin[0] in [0, 2], but got 3"));
  r = RunOp("Slice", {x, Tensor::FromVector<int32_t>({0}), Tensor::FromVector<int32_t>({1, 1})},
            {{"T", TypeA(tf::DT_FLOAT)}, {"Index", Int32A()}});
  CHECK_THAT(r.status.message(), Catch::Contains("Expected begin and size arguments to be 1-D tensors of size 2"));
}

Run StridedSlice(const Tensor& x, std::vector<int32_t> b, std::vector<int32_t> e, std::vector<int32_t> s,
                 std::map<std::string, int64_t> masks = {}) {
  std::map<std::string, tf::AttrValue> attrs{{"T", TypeA(x.dtype())}, {"Index", Int32A()}};
  for (auto& [k, v] : masks) attrs[k] = IntA(v);
  return RunOp("StridedSlice", {x, Tensor::FromVector<int32_t>(b), Tensor::FromVector<int32_t>(e),
                                Tensor::FromVector<int32_t>(s)},
               attrs);
}

TEMPLATE_TEST_CASE("StridedSlice: negative strides, ellipsis, new and shrunk axes as TensorFlow", "[array2]", float,
                   double, int32_t, int64_t) {
  using T = TestType;
  Tensor x = Tensor::FromVector<T>(Iota<T>(24), TensorShape({2, 3, 4}));
  // tf.strided_slice(x, [0,1,-1], [2,3,0], [1,1,-2]) -> [[[7,5],[11,9]],[[19,17],[23,21]]]
  Run r = StridedSlice(x, {0, 1, -1}, {2, 3, 0}, {1, 1, -2});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{7, 5, 11, 9, 19, 17, 23, 21});
  // x[..., 1] -> [[1,5,9],[13,17,21]]
  r = StridedSlice(x, {0, 1}, {0, 2}, {1, 1}, {{"ellipsis_mask", 1}, {"shrink_axis_mask", 2}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 5, 9, 13, 17, 21});
  // x[1, tf.newaxis, ::-2, 1:3] -> [[[21,22],[13,14]]]
  r = StridedSlice(x, {1, 0, 0, 1}, {2, 0, 0, 3}, {1, 1, -2, 1},
                   {{"shrink_axis_mask", 1}, {"new_axis_mask", 2}, {"begin_mask", 4}, {"end_mask", 4}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 2, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{21, 22, 13, 14});
}

TEST_CASE("StridedSlice rejects zero strides and out-of-range shrunk indices", "[array2]") {
  Tensor x = Tensor::FromVector<float>(Iota<float>(6), TensorShape({2, 3}));
  Run r = StridedSlice(x, {0}, {1}, {0});
  CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("strides[0] must be non-zero"));
  r = StridedSlice(x, {5}, {6}, {1}, {{"shrink_axis_mask", 1}});
  CHECK_THAT(r.status.message(), Catch::Contains("slice index 5 of dimension 0 out of bounds."));
  r = StridedSlice(x, {0, 0}, {1, 1}, {1, 1}, {{"ellipsis_mask", 3}});
  CHECK_THAT(r.status.message(), Catch::Contains("Multiple ellipses in slice spec not allowed"));
}

TEST_CASE("StridedSliceGrad writes dy where StridedSlice read, zeros elsewhere", "[array2]") {
  // tf.raw_ops.StridedSliceGrad(shape=[3,4], begin=[0,3], end=[3,0], strides=[2,-2], dy=[[1,2],[3,4]])
  Tensor dy = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Run r = RunOp("StridedSliceGrad",
                {Tensor::FromVector<int32_t>({3, 4}), Tensor::FromVector<int32_t>({0, 3}),
                 Tensor::FromVector<int32_t>({3, 0}), Tensor::FromVector<int32_t>({2, -2}), dy},
                {{"T", TypeA(tf::DT_FLOAT)}, {"Index", Int32A()}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 2, 0, 1, 0, 0, 0, 0, 0, 4, 0, 3});
}

TEMPLATE_TEST_CASE("Unpack, Split and SplitV cut along an axis", "[array2]", float, double, int32_t, int64_t) {
  using T = TestType;
  Tensor x = Tensor::FromVector<T>(Iota<T>(6), TensorShape({2, 3}));
  Run r = RunOp("Unpack", {x}, {{"T", TOf<T>()}, {"num", IntA(3)}, {"axis", IntA(-1)}});
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs.size() == 3);
  CHECK(Values<T>(r.outputs[1]) == std::vector<T>{1, 4});
  r = RunOp("Split", {Tensor::Scalar<int32_t>(0), x}, {{"T", TOf<T>()}, {"num_split", IntA(2)}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[1]) == std::vector<T>{3, 4, 5});
  // tf.split(tf.range(7), [2,-1,1]) -> [0,1], [2,3,4,5], [6]
  Tensor v = Tensor::FromVector<T>(Iota<T>(7), TensorShape({7}));
  r = RunOp("SplitV", {v, Tensor::FromVector<int64_t>({2, -1, 1}), Tensor::Scalar<int32_t>(0)},
            {{"T", TOf<T>()}, {"num_split", IntA(3)}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{0, 1});
  CHECK(Values<T>(r.outputs[1]) == std::vector<T>{2, 3, 4, 5});
  CHECK(Values<T>(r.outputs[2]) == std::vector<T>{6});
}

TEST_CASE("Unpack, Split and SplitV reject sizes that do not fit", "[array2]") {
  Tensor x(tf::DT_FLOAT, TensorShape({5, 2}));
  Run r = RunOp("Split", {Tensor::Scalar<int32_t>(0), x}, {{"T", TypeA(tf::DT_FLOAT)}, {"num_split", IntA(2)}});
  CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") &&
                                     Catch::Contains("should evenly divide the split dimension"));
  r = RunOp("Unpack", {x}, {{"T", TypeA(tf::DT_FLOAT)}, {"num", IntA(3)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Input shape axis 0 must equal 3"));
  r = RunOp("SplitV", {x, Tensor::FromVector<int64_t>({2, 2}), Tensor::Scalar<int32_t>(0)},
            {{"T", TypeA(tf::DT_FLOAT)}, {"num_split", IntA(2)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Determined shape must either match input shape"));
}

TEMPLATE_TEST_CASE("Tile and BroadcastTo repeat elements", "[array2]", float, double, int32_t, int64_t) {
  using T = TestType;
  // tf.tile([[1,2],[3,4]], [2,3])
  Tensor x = Tensor::FromVector<T>({1, 2, 3, 4}, TensorShape({2, 2}));
  Run r = RunOp("Tile", {x, Tensor::FromVector<int32_t>({2, 3})}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({4, 6}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                                  1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
  // tf.broadcast_to([[1],[2]], [2,2,3])
  Tensor c = Tensor::FromVector<T>({1, 2}, TensorShape({2, 1}));
  r = RunOp("BroadcastTo", {c, Tensor::FromVector<int32_t>({2, 2, 3})}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  r = RunOp("Tile", {x, Tensor::FromVector<int32_t>({2})}, {{"T", TOf<T>()}});
  CHECK_THAT(r.status.message(), Catch::Contains("Expected multiples argument to be a vector of length 2"));
  r = RunOp("BroadcastTo", {x, Tensor::FromVector<int32_t>({3, 3})}, {{"T", TOf<T>()}});
  CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("Incompatible shapes"));
}

TEST_CASE("Range counts up or down; a zero delta or a wrong direction is an error", "[array2]") {
  // tf.range(10, 1, -3) -> [10, 7, 4]; tf.range(1., 2., 0.3) -> [1, 1.3, 1.6, 1.9]
  Run r = RunOp("Range", {Tensor::Scalar<int32_t>(10), Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(-3)}, {});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{10, 7, 4});
  r = RunOp("Range", {Tensor::Scalar<double>(1), Tensor::Scalar<double>(2), Tensor::Scalar<double>(0.3)},
            {{"Tidx", TypeA(tf::DT_DOUBLE)}});
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].NumElements() == 4);
  CHECK(Values<double>(r.outputs[0])[3] == Approx(1.9));
  r = RunOp("Range", {Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(5), Tensor::Scalar<int64_t>(0)},
            {{"Tidx", TypeA(tf::DT_INT64)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Requires delta != 0"));
  r = RunOp("Range", {Tensor::Scalar<float>(5), Tensor::Scalar<float>(2), Tensor::Scalar<float>(1)},
            {{"Tidx", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Requires start <= limit when delta > 0: 5/2"));
}

TEMPLATE_TEST_CASE("GatherV2 along an axis, indices of any rank", "[array2]", float, double, int32_t, int64_t) {
  using T = TestType;
  // tf.gather(tf.reshape(tf.range(12.), [3,4]), [[2,0],[1,1]], axis=1)
  Tensor params = Tensor::FromVector<T>(Iota<T>(12), TensorShape({3, 4}));
  Tensor indices = Tensor::FromVector<int32_t>({2, 0, 1, 1}, TensorShape({2, 2}));
  Run r = RunOp("GatherV2", {params, indices, Tensor::Scalar<int32_t>(1)},
                {{"Tparams", TOf<T>()}, {"Tindices", Int32A()}, {"Taxis", Int32A()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 2, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{2, 0, 1, 1, 6, 4, 5, 5, 10, 8, 9, 9});
  r = RunOp("GatherV2", {params, Tensor::FromVector<int64_t>({2, 0}), Tensor::Scalar<int64_t>(0)},
            {{"Tparams", TOf<T>()}, {"Tindices", TypeA(tf::DT_INT64)}, {"Taxis", TypeA(tf::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{8, 9, 10, 11, 0, 1, 2, 3});
}

TEST_CASE("GatherV2 names an out-of-range index as TensorFlow does", "[array2]") {
  // tf.gather(tf.range(5), [0, 7]): "indices[1] = 7 is not in [0, 5)"
  Run r = RunOp("GatherV2", {Tensor::FromVector<int32_t>({0, 1, 2, 3, 4}), Tensor::FromVector<int32_t>({0, 7}),
                             Tensor::Scalar<int32_t>(0)},
                {{"Tparams", Int32A()}, {"Tindices", Int32A()}, {"Taxis", Int32A()}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("indices[1] = 7 is not in [0, 5)"));
  // tf.gather(tf.zeros([2, 0]), [7, 1]) -> shape [2, 0]: nothing is copied, nothing checked
  // (the segment ops' gradients gather such rows).
  r = RunOp("GatherV2", {Tensor(tf::DT_FLOAT, TensorShape({2, 0})), Tensor::FromVector<int32_t>({7, 1}),
                         Tensor::Scalar<int32_t>(0)},
            {{"Tparams", TypeA(tf::DT_FLOAT)}, {"Tindices", Int32A()}, {"Taxis", Int32A()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 0}));
}

TEST_CASE("OneHot puts on_value at each in-range index, along any axis", "[array2]") {
  // tf.one_hot([0,2,-1,5], 3, axis=0, on_value=5., off_value=-1.)
  Run r = RunOp("OneHot", {Tensor::FromVector<int64_t>({0, 2, -1, 5}), Tensor::Scalar<int32_t>(3),
                           Tensor::Scalar<float>(5), Tensor::Scalar<float>(-1)},
                {{"T", TypeA(tf::DT_FLOAT)}, {"axis", IntA(0)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 4}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{5, -1, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1});
  r = RunOp("OneHot", {Tensor::FromVector<int32_t>({1, 0}), Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(1),
                       Tensor::Scalar<int32_t>(0)},
            {{"T", Int32A()}, {"TI", Int32A()}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0, 1, 1, 0});
  r = RunOp("OneHot", {Tensor::FromVector<int64_t>({0}), Tensor::Scalar<int32_t>(-1), Tensor::Scalar<float>(1),
                       Tensor::Scalar<float>(0)},
            {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("depth must be non-negative, got: -1"));
}

TEMPLATE_TEST_CASE("Pad with zeros and PadV2 with a constant", "[array2]", float, double, int32_t, int64_t) {
  using T = TestType;
  // tf.pad([[1,2],[3,4]], [[1,0],[0,2]], constant_values=9)
  Tensor x = Tensor::FromVector<T>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor paddings = Tensor::FromVector<int32_t>({1, 0, 0, 2}, TensorShape({2, 2}));
  Run r = RunOp("PadV2", {x, paddings, Tensor::Scalar<T>(9)}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9});
  r = RunOp("Pad", {x, paddings}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0});
  r = RunOp("Pad", {x, Tensor::FromVector<int32_t>({-1, 0, 0, 0}, TensorShape({2, 2}))}, {{"T", TOf<T>()}});
  CHECK_THAT(r.status.message(), Catch::Contains("Paddings must be non-negative: -1 0"));
}

TEST_CASE("InvertPermutation inverts, and rejects what is no permutation", "[array2]") {
  Run r = RunOp("InvertPermutation", {Tensor::FromVector<int32_t>({2, 0, 1})}, {});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 2, 0});
  r = RunOp("InvertPermutation", {Tensor::FromVector<int64_t>({0, 0})}, {{"T", TypeA(tf::DT_INT64)}});
  CHECK_THAT(r.status.message(), Catch::Contains("0 is duplicated in the input."));
}

TEST_CASE("PlaceholderWithDefault passes its default on", "[array2]") {
  tf::AttrValue shape;
  shape.mutable_shape()->add_dim()->set_size(2);
  Run r = RunOp("PlaceholderWithDefault", {Tensor::FromVector<float>({1, 2})},
                {{"dtype", TypeA(tf::DT_FLOAT)}, {"shape", shape}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 2});
}

TEST_CASE("UnsortedSegmentSum adds rows by id and drops negative ids", "[array2]") {
  // tf.math.unsorted_segment_sum([[1.,2],[3,4],[5,6]], [1,-1,1], 3) -> [[0,0],[6,8],[0,0]]
  Tensor data = Tensor::FromVector<double>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Run r = RunOp("UnsortedSegmentSum", {data, Tensor::FromVector<int32_t>({1, -1, 1}), Tensor::Scalar<int32_t>(3)},
                {{"T", TypeA(tf::DT_DOUBLE)}, {"Tindices", Int32A()}});
  REQUIRE(r.status.ok());
  CHECK(Values<double>(r.outputs[0]) == std::vector<double>{0, 0, 6, 8, 0, 0});
  r = RunOp("UnsortedSegmentSum", {data, Tensor::FromVector<int32_t>({1, 3, 1}), Tensor::Scalar<int32_t>(3)},
            {{"T", TypeA(tf::DT_DOUBLE)}, {"Tindices", Int32A()}});
  CHECK_THAT(r.status.message(), Catch::Contains("segment_ids[1] = 3 is out of range [0, 3)"));
}

}  // namespace
}  // namespace tensoract
