// Kernels of the index ops: Where, v1 Gather, DynamicStitch and ParallelDynamicStitch,
// ListDiff, ConcatOffset, GatherNd and ScatterNd. Expected values and messages were printed by TensorFlow 2.21
// (python3, the tf.raw_ops call named in each comment, eagerly on the CPU) and pasted here.
#include <catch2/catch.hpp>
#include <Eigen/Core>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "kernels/denormal.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::IntA;
using testing::TOf;
using testing::I32;
using testing::Str;

namespace tf = ::tensorflow;

using Catch::Contains;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;


template <class T>
Tensor T2(std::vector<T> v, TensorShape shape) { return Tensor::FromVector<T>(v, shape); }

Run Where(const Tensor& x) { return RunOp("Where", {x}, {{"T", TypeA(x.dtype())}}); }

TEST_CASE("Where gives the coordinates of true elements, one row each, in row-major order", "[index]") {
  // tf.raw_ops.Where(condition=[[[True,False],[False,True]],[[True,True],[False,False]]])
  Run r = Where(T2<bool>({true, false, false, true, true, true, false, false}, {2, 2, 2}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].dtype() == tf::DT_INT64);
  CHECK(r.outputs[0].shape() == TensorShape({4, 3}));
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1});
  // Where(condition=tf.constant([[0,-3],[7,0]], tf.int8)): [[0,1],[1,0]]
  r = Where(T2<int8_t>({0, -3, 7, 0}, {2, 2}));
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{0, 1, 1, 0});
  // Where(condition=[0j, 1j, 0j, 1+0j]): [[1],[3]]
  r = Where(T2<complex64>({{0, 0}, {0, 1}, {0, 0}, {1, 0}}, {4}));
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{1, 3});
  // Where(condition=tf.zeros([2,0,3])): shape (0, 3)
  r = Where(Tensor(tf::DT_FLOAT, TensorShape({2, 0, 3})));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({0, 3}));
}

TEST_CASE("Where counts NaN as true and -0 and denormals as zero, as TensorFlow's kernels do", "[index]") {
  // Where(condition=[0., -0., nan, 1e-45, inf]): [[2],[4]]; kernels run with denormals
  // flushed (the executor's ScopedFlushDenormal, here taken by hand).
  ScopedFlushDenormal flush;
  Run r = Where(T2<float>({0.f, -0.f, NAN, 1e-45f, INFINITY}, {5}));
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{2, 4});
  // Where(condition=tf.constant([0, 5e-324], tf.float64)): shape (0, 1)
  r = Where(T2<double>({0.0, 5e-324}, {2}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({0, 1}));
}

TEST_CASE("Where on half and bfloat16, which TensorFlow's CPU kernel refuses for half", "[index]") {
  // Where(condition=tf.constant([0,-3,0.001,0], tf.bfloat16)): [[1],[2]]; for float16
  // TensorFlow answers Unimplemented ("No WhereOp available for float16/half type on CPU").
  std::vector<Eigen::half> h{Eigen::half(0.f), Eigen::half(-3.f), Eigen::half(0.001f), Eigen::half(0.f)};
  Run r = Where(T2<Eigen::half>(h, {4}));
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{1, 2});
  std::vector<Eigen::bfloat16> b{Eigen::bfloat16(0.f), Eigen::bfloat16(-3.f), Eigen::bfloat16(0.001f),
                                 Eigen::bfloat16(0.f)};
  r = Where(T2<Eigen::bfloat16>(b, {4}));
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{1, 2});
}

TEST_CASE("Where refuses scalars and ranks above 8 with TensorFlow's message", "[index]") {
  // Where(condition=tf.constant(3.0)): "WhereOp : Unhandled input dimensions: 0"
  Run r = Where(Tensor::Scalar<float>(3.f));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("node 'n'") && Contains("WhereOp : Unhandled input dimensions: 0"));
  r = Where(Tensor(tf::DT_FLOAT, TensorShape(std::vector<int64_t>(9, 1))));
  CHECK_THAT(r.status.message(), Contains("WhereOp : Unhandled input dimensions: 9"));
}

Run Gather(const Tensor& params, const Tensor& indices) {
  return RunOp("Gather", {params, indices}, {{"Tparams", TypeA(params.dtype())}, {"Tindices", TypeA(indices.dtype())}});
}

TEST_CASE("v1 Gather takes rows on axis 0 for indices of any rank", "[index]") {
  // tf.raw_ops.Gather(params=[[1.,2,3],[4,5,6]], indices=[[1,0],[1,1]])
  Run r = Gather(T2<float>({1, 2, 3, 4, 5, 6}, {2, 3}), T2<int64_t>({1, 0, 1, 1}, {2, 2}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2, 3}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{4, 5, 6, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  r = Gather(Tensor::FromVector<std::string>({"a", "b", "c"}), I32({2, 2, 0}));
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == std::vector<std::string>{"c", "c", "a"});
}

TEST_CASE("v1 Gather refuses scalar params and indices out of range", "[index]") {
  // Gather(params=tf.constant(1.), indices=[0]): "params must be at least 1 dimensional"
  Run r = Gather(Tensor::Scalar<float>(1.f), I32({0}));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("params must be at least 1 dimensional"));
  // Gather(params=x, indices=[[0,2]]): "indices[0,1] = 2 is not in [0, 2)"
  r = Gather(T2<float>({1, 2, 3, 4, 5, 6}, {2, 3}), T2<int32_t>({0, 2}, {1, 2}));
  CHECK_THAT(r.status.message(), Contains("indices[0,1] = 2 is not in [0, 2)"));
  // Gather(params=x, indices=[-1]): "indices[0] = -1 is not in [0, 2)"
  r = Gather(T2<float>({1, 2, 3, 4, 5, 6}, {2, 3}), I32({-1}));
  CHECK_THAT(r.status.message(), Contains("indices[0] = -1 is not in [0, 2)"));
}

Run Stitch(const std::string& op, std::vector<Tensor> indices, const std::vector<Tensor>& data) {
  const int64_t n = static_cast<int64_t>(indices.size());
  const DataType t = data[0].dtype();
  indices.insert(indices.end(), data.begin(), data.end());
  return RunOp(op, indices, {{"N", IntA(n)}, {"T", TypeA(t)}});
}

TEST_CASE("DynamicStitch places rows by index, a later index winning, and zeros rows no index names", "[index]") {
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    INFO(op);
    // tf.raw_ops.DynamicStitch(indices=[[0,2],[1,2]], data=[[1.,2],[3.,4]]): [1, 3, 4]
    Run r = Stitch(op, {I32({0, 2}), I32({1, 2})}, {T2<float>({1, 2}, {2}), T2<float>({3, 4}, {2})});
    REQUIRE(r.status.ok());
    CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 3, 4});
    // DynamicStitch(indices=[tf.constant(1), tf.constant([0])], data=[[1.,2], [[3.,4]]]): [[3,4],[1,2]]
    r = Stitch(op, {Tensor::Scalar<int32_t>(1), I32({0})}, {T2<float>({1, 2}, {2}), T2<float>({3, 4}, {1, 2})});
    REQUIRE(r.status.ok());
    CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
    CHECK(Values<float>(r.outputs[0]) == std::vector<float>{3, 4, 1, 2});
    // DynamicStitch(indices=[[0,3]], data=[[1.,2]]): [1, 0, 0, 2]
    r = Stitch(op, {I32({0, 3})}, {T2<float>({1, 2}, {2})});
    REQUIRE(r.status.ok());
    CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 0, 0, 2});
    // DynamicStitch(indices=[tf.zeros([0], tf.int32)], data=[tf.zeros([0,3])]): shape (0, 3)
    r = Stitch(op, {Tensor(tf::DT_INT32, TensorShape({0}))}, {Tensor(tf::DT_FLOAT, TensorShape({0, 3}))});
    REQUIRE(r.status.ok());
    CHECK(r.outputs[0].shape() == TensorShape({0, 3}));
    r = Stitch(op, {I32({1, 0})}, {Tensor::FromVector<std::string>({"a", "b"})});
    REQUIRE(r.status.ok());
    CHECK(Values<std::string>(r.outputs[0]) == std::vector<std::string>{"b", "a"});
  }
}

TEST_CASE("DynamicStitch refuses negative indices and data whose shapes do not fit, in TensorFlow's words",
          "[index]") {
  // DynamicStitch(indices=[[0,-1]], data=[[1.,2]]): "indices[1] is out of range"
  Run r = Stitch("DynamicStitch", {I32({0, -1})}, {T2<float>({1, 2}, {2})});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("indices[1] is out of range"));
  // DynamicStitch(indices=[[0,1]], data=[[1.,2,3]])
  r = Stitch("DynamicStitch", {I32({0, 1})}, {T2<float>({1, 2, 3}, {3})});
  CHECK_THAT(r.status.message(), Contains("data[0].shape = [3] does not start with indices[0].shape = [2]"));
  // DynamicStitch(indices=[[0,1],[2]], data=[[[1.,2],[3,4]], [[5.,6,7]]])
  r = Stitch("DynamicStitch", {I32({0, 1}), I32({2})}, {T2<float>({1, 2, 3, 4}, {2, 2}), T2<float>({5, 6, 7}, {1, 3})});
  CHECK_THAT(r.status.message(),
             Contains("Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [2,2], data[1].shape = [1,3], "
                      "indices[0].shape = [2], indices[1].shape = [1]"));
}

TEST_CASE("ListDiff keeps x's elements missing from y, in order, with their positions", "[index]") {
  // tf.raw_ops.ListDiff(x=[1,2,3,4,3,6], y=[3,5,1]): [2,4,6], [1,3,5]
  Run r = RunOp("ListDiff", {I32({1, 2, 3, 4, 3, 6}), I32({3, 5, 1})}, {{"T", TOf<int32_t>()}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{2, 4, 6});
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{1, 3, 5});
  // ListDiff(x=["a","b","a"], y=["b"], out_idx=tf.int64): [b'a', b'a'], [0, 2]
  r = RunOp("ListDiff", {Tensor::FromVector<std::string>({"a", "b", "a"}), Tensor::FromVector<std::string>({"b"})},
            {{"T", TOf<std::string>()}, {"out_idx", TOf<int64_t>()}});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == std::vector<std::string>{"a", "a"});
  CHECK(Values<int64_t>(r.outputs[1]) == std::vector<int64_t>{0, 2});
  // ListDiff(x=[0., nan, 1., -0., 2.], y=[-0., nan, 2.]): [nan, 1.], [1, 2]: -0 is 0, NaN is no value
  r = RunOp("ListDiff", {Tensor::FromVector<float>({0.f, NAN, 1.f, -0.f, 2.f}), Tensor::FromVector<float>({-0.f, NAN, 2.f})},
            {{"T", TOf<float>()}});
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].NumElements() == 2);
  CHECK(std::isnan(Values<float>(r.outputs[0])[0]));
  CHECK(Values<float>(r.outputs[0])[1] == 1.f);
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{1, 2});
  // ListDiff(x=[[1,2]], y=[3]): "x should be a 1D vector."
  r = RunOp("ListDiff", {T2<int32_t>({1, 2}, {1, 2}), I32({3})}, {{"T", TOf<int32_t>()}});
  CHECK_THAT(r.status.message(), Contains("x should be a 1D vector."));
  r = RunOp("ListDiff", {I32({1, 2}), T2<int32_t>({3}, {1, 1})}, {{"T", TOf<int32_t>()}});
  CHECK_THAT(r.status.message(), Contains("y should be a 1D vector."));
}

template <class T>
Run ConcatOffset(int32_t dim, const std::vector<std::vector<T>>& shapes) {
  std::vector<Tensor> inputs{Tensor::Scalar<int32_t>(dim)};
  for (const auto& s : shapes) inputs.push_back(Tensor::FromVector<T>(s));
  return RunOp("ConcatOffset", inputs, {{"N", IntA(static_cast<int64_t>(shapes.size()))}, {"shape_type", TOf<T>()}});
}

TEST_CASE("ConcatOffset gives where each input starts in the concatenation", "[index]") {
  // tf.raw_ops.ConcatOffset(concat_dim=1, shape=[[2,3,5],[2,7,5],[2,1,5]])
  Run r = ConcatOffset<int32_t>(1, {{2, 3, 5}, {2, 7, 5}, {2, 1, 5}});
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs.size() == 3);
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0, 0, 0});
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{0, 3, 0});
  CHECK(Values<int32_t>(r.outputs[2]) == std::vector<int32_t>{0, 10, 0});
  // ConcatOffset(concat_dim=-2, shape=[[2,3,5],[2,7,5]]): [0,0,0], [0,3,0]
  r = ConcatOffset<int64_t>(-2, {{2, 3, 5}, {2, 7, 5}});
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[1]) == std::vector<int64_t>{0, 3, 0});
}

TEST_CASE("ConcatOffset refuses what TensorFlow refuses, in its words", "[index]") {
  // ConcatOffset(concat_dim=3, ...): "Concat dim is out of range: 3 vs. 3"
  CHECK_THAT(ConcatOffset<int32_t>(3, {{2, 3, 5}, {2, 7, 5}}).status.message(),
             Contains("Concat dim is out of range: 3 vs. 3"));
  CHECK_THAT(ConcatOffset<int32_t>(-4, {{2, 3, 5}, {2, 7, 5}}).status.message(),
             Contains("Concat dim is out of range: -4 vs. 3"));
  // ConcatOffset(concat_dim=0, shape=[[2,3],[2,7,5]]): "input 1 should contain 2 elements, but got 3"
  CHECK_THAT(ConcatOffset<int32_t>(0, {{2, 3}, {2, 7, 5}}).status.message(),
             Contains("input 1 should contain 2 elements, but got 3"));
  // ConcatOffset(concat_dim=1, shape=[[2,3,5],[3,7,5]])
  CHECK_THAT(ConcatOffset<int32_t>(1, {{2, 3, 5}, {3, 7, 5}}).status.message(),
             Contains("All dimensions except 1 must match. Input 1 has shape [3 7 5] and doesn't match input 0 with "
                      "shape [2 3 5]."));
  // ConcatOffset(concat_dim=[1], ...): "Concat dim tensor should be a scalar integer, but got shape [1]"
  Run r = RunOp("ConcatOffset", {I32({1}), I32({2, 3}), I32({2, 3})}, {{"N", IntA(2)}});
  CHECK_THAT(r.status.message(), Contains("Concat dim tensor should be a scalar integer, but got shape [1]"));
  // ConcatOffset(concat_dim=1, shape=[[[2,3,5]],[[2,7,5]]]): "input 1 should be a vector, but got shape [1,3]"
  r = RunOp("ConcatOffset", {Tensor::Scalar<int32_t>(1), T2<int32_t>({2, 3, 5}, {1, 3}), T2<int32_t>({2, 7, 5}, {1, 3})},
            {{"N", IntA(2)}});
  CHECK_THAT(r.status.message(), Contains("input 1 should be a vector, but got shape [1,3]"));
}


Run GatherNd(const Tensor& params, const Tensor& indices, const std::string& policy = "") {
  return RunOp("GatherNd", {params, indices},
               {{"Tparams", TypeA(params.dtype())}, {"Tindices", TypeA(indices.dtype())},
                {"bad_indices_policy", Str(policy)}});
}
Run ScatterNd(const Tensor& indices, const Tensor& updates, std::vector<int32_t> shape, const std::string& policy = "") {
  return RunOp("ScatterNd", {indices, updates, I32(shape)},
               {{"T", TypeA(updates.dtype())}, {"Tindices", TypeA(indices.dtype())}, {"bad_indices_policy", Str(policy)}});
}
const Tensor kP32 = T2<float>({1, 2, 3, 4, 5, 6}, {3, 2});

TEST_CASE("GatherNd reads the slices its index tuples address", "[index]") {
  // tf.raw_ops.GatherNd(params=[[1.,2],[3,4],[5,6]], indices=[[2],[0]]): [[5,6],[1,2]]
  Run r = GatherNd(kP32, T2<int32_t>({2, 0}, {2, 1}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{5, 6, 1, 2});
  // GatherNd(params=..., indices=[[2,1],[0,0]]): [6, 1]
  r = GatherNd(kP32, T2<int64_t>({2, 1, 0, 0}, {2, 2}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{6, 1});
  // GatherNd(params=..., indices=tf.zeros([2,0], tf.int32)): params twice, shape (2, 3, 2)
  r = GatherNd(kP32, Tensor(tf::DT_INT32, TensorShape({2, 0})));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3, 2}));
  // GatherNd(params=["a","b"], indices=[[1],[0]]): [b'b', b'a']
  r = GatherNd(Tensor::FromVector<std::string>({"a", "b"}), T2<int32_t>({1, 0}, {2, 1}));
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == std::vector<std::string>{"b", "a"});
  // GatherNd(..., indices=[[2,1],[0,2]], bad_indices_policy="IGNORE"): [6, 0]
  r = GatherNd(kP32, T2<int32_t>({2, 1, 0, 2}, {2, 2}), "IGNORE");
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{6, 0});
}

TEST_CASE("GatherNd refuses what TensorFlow refuses, in its words", "[index]") {
  // GatherNd(params=..., indices=[[2,1],[0,2]])
  CHECK_THAT(GatherNd(kP32, T2<int32_t>({2, 1, 0, 2}, {2, 2})).status.message(),
             Contains("indices[1] = [0, 2] does not index into param shape [3,2], node name: n"));
  // GatherNd(params=[1.,2,3], indices=[5]): "indices = [5] does not index into param shape [3]"
  CHECK_THAT(GatherNd(Tensor::FromVector<float>({1, 2, 3}), I32({5})).status.message(),
             Contains("indices = [5] does not index into param shape [3]"));
  // GatherNd(params=[[1.,2],[3,4]], indices=[[[0,0],[1,1]],[[0,1],[2,0]]])
  CHECK_THAT(GatherNd(T2<float>({1, 2, 3, 4}, {2, 2}), T2<int32_t>({0, 0, 1, 1, 0, 1, 2, 0}, {2, 2, 2})).status.message(),
             Contains("indices[1,1] = [2, 0] does not index into param shape [2,2]"));
  CHECK_THAT(GatherNd(kP32, T2<int32_t>({2, 1, 0}, {1, 3})).status.message(),
             Contains("index innermost dimension length must be <= params rank; saw: 3 vs. 2"));
  CHECK_THAT(GatherNd(kP32, Tensor::Scalar<int32_t>(1)).status.message(), Contains("indices must be at least a vector"));
  CHECK_THAT(GatherNd(Tensor::Scalar<float>(1), Tensor(tf::DT_INT32, TensorShape({2, 0}))).status.message(),
             Contains("params must be at least a vector"));
  CHECK_THAT(GatherNd(Tensor(tf::DT_FLOAT, TensorShape({0, 3})), T2<int32_t>({0}, {1, 1})).status.message(),
             Contains("Requested more than 0 entries, but params is empty.  Params shape: [0,3]"));
}

TEST_CASE("ScatterNd adds each update at its tuple into zeros, repeated tuples adding up", "[index]") {
  // tf.raw_ops.ScatterNd(indices=[[4],[3],[1],[7],[1]], updates=[9.,10,11,12,13], shape=[8])
  Run r = ScatterNd(T2<int32_t>({4, 3, 1, 7, 1}, {5, 1}), Tensor::FromVector<float>({9, 10, 11, 12, 13}), {8});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 24, 0, 10, 9, 0, 0, 12});
  // ScatterNd(indices=[[0],[2]], updates=[[1.,2],[3,4]], shape=[3,2]): [[1,2],[0,0],[3,4]]
  r = ScatterNd(T2<int64_t>({0, 2}, {2, 1}), T2<float>({1, 2, 3, 4}, {2, 2}), {3, 2});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 2, 0, 0, 3, 4});
  // ScatterNd(indices=[[1],[1]], updates=tf.constant([2147483647, 1]), shape=[3]): [0, -2147483648, 0]
  r = ScatterNd(T2<int32_t>({1, 1}, {2, 1}), I32({2147483647, 1}), {3});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0, -2147483647 - 1, 0});
  // ScatterNd(indices=[[1],[1]], updates=["a","b"], shape=[3]): [b'', b'ab', b'']
  r = ScatterNd(T2<int32_t>({1, 1}, {2, 1}), Tensor::FromVector<std::string>({"a", "b"}), {3});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == std::vector<std::string>{"", "ab", ""});
  // ScatterNd(indices=[[4],[8]], updates=[1.,2], shape=[8], bad_indices_policy="IGNORE")
  r = ScatterNd(T2<int32_t>({4, 8}, {2, 1}), Tensor::FromVector<float>({1, 2}), {8}, "IGNORE");
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 0, 0, 0, 1, 0, 0, 0});
  // ScatterNd(indices=tf.zeros([0,1], tf.int32), updates=tf.zeros([0]), shape=[3]): zeros
  r = ScatterNd(Tensor(tf::DT_INT32, TensorShape({0, 1})), Tensor(tf::DT_FLOAT, TensorShape({0})), {3});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 0, 0});
}

TEST_CASE("ScatterNd refuses what TensorFlow refuses, in its words, and where TensorFlow crashes", "[index]") {
  const Tensor one = Tensor::FromVector<float>({1});
  CHECK_THAT(ScatterNd(T2<int32_t>({4, 8}, {2, 1}), Tensor::FromVector<float>({1, 2}), {8}).status.message(),
             Contains("indices[1] = [8] does not index into shape [8]"));
  CHECK_THAT(ScatterNd(T2<int32_t>({0, 1, 3, 0}, {1, 2, 2}), T2<float>({1, 2}, {1, 2}), {3, 2}).status.message(),
             Contains("indices[0,1] = [3, 0] does not index into shape [3,2]"));
  CHECK_THAT(ScatterNd(T2<int32_t>({0, 1}, {2, 1}), Tensor::FromVector<float>({1, 2, 3}), {8}).status.message(),
             Contains("Dimensions [0,1) of indices[shape=[2,1]] must match dimensions [0,1) of updates[shape=[3]]"));
  CHECK_THAT(ScatterNd(T2<int32_t>({0, 1}, {2, 1}), T2<float>({1, 2, 3, 1, 2, 3}, {2, 3}), {8, 2}).status.message(),
             Contains("Dimensions [1,2) of input[shape=[8,2]] must match dimensions [1,2) of updates[shape=[2,3]]"));
  CHECK_THAT(ScatterNd(T2<int32_t>({0, 1, 2}, {1, 3}), one, {8, 2}).status.message(),
             Contains("Dimensions [3,2) of input[shape=[8,2]] must match dimensions [1,1) of updates[shape=[1]]"));
  // ScatterNd(indices=[[[1]]], updates=[1.], shape=[3]) ends TensorFlow 2.21's process (a CHECK).
  CHECK_THAT(ScatterNd(T2<int32_t>({1}, {1, 1, 1}), one, {3}).status.message(),
             Contains("Dimensions [0,2) of indices[shape=[1,1,1]] must match dimensions [0,2) of updates[shape=[1]]"));
  CHECK_THAT(ScatterNd(Tensor::Scalar<int32_t>(0), one, {8}).status.message(),
             Contains("Indices shape must have rank at least one. Found:[]"));
  CHECK_THAT(ScatterNd(T2<int32_t>({1}, {1, 1}), Tensor::Scalar<float>(1), {3}).status.message(),
             Contains("Updates shape must have rank at least one. Found:[]"));
  CHECK_THAT(ScatterNd(T2<int32_t>({0}, {1, 1}), one, {-8}).status.message(), Contains("Dimension -8 must be >= 0"));
  CHECK_THAT(ScatterNd(T2<int32_t>({0}, {1, 1}), one, {0}).status.message(),
             Contains("Indices and updates specified for empty output.  indices shape: [1,1]"));
  CHECK_THAT(ScatterNd(Tensor(tf::DT_INT32, TensorShape({2, 0})), T2<float>({1, 2, 3, 4}, {2, 2}), {2}).status.message(),
             Contains("Indices and updates specified for empty output shape"));
  Run r = RunOp("ScatterNd", {T2<int32_t>({0}, {1, 1}), one, T2<int32_t>({8}, {1, 1})},
                {{"T", TOf<float>()}, {"Tindices", TOf<int32_t>()}});
  CHECK_THAT(r.status.message(), Contains("Shape must be a vector"));
}

}  // namespace
}  // namespace tensoract
