// Kernels of ReverseV2, MirrorPad, MirrorPadGrad, Cumsum, Cumprod, TopKV2 and ClipByValue.
// Expected values and messages were printed by TensorFlow 2.21 (python3, the tf.raw_ops call
// named in each comment, eagerly on the CPU) and pasted here.
#include <catch2/catch.hpp>
#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::Iota;

using testing::TOf;
using testing::Str;

namespace tf = ::tensorflow;

using Catch::Contains;
using testing::BoolA;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;


template <class T>
Tensor ScanT2(std::vector<T> v, TensorShape shape) { return Tensor::FromVector<T>(v, shape); }
const Tensor kScanX = ScanT2<float>({1, 2, 3, 4, 5, 6}, {2, 3});

Run Reverse(const Tensor& x, const Tensor& axis) {
  return RunOp("ReverseV2", {x, axis}, {{"T", TypeA(x.dtype())}, {"Tidx", TypeA(axis.dtype())}});
}

TEST_CASE("ReverseV2 reverses the named axes, negative ones counted from the end", "[mirror]") {
  // tf.raw_ops.ReverseV2(tensor=x, axis=[-1]): [[3,2,1],[6,5,4]]
  Run r = Reverse(kScanX, Tensor::FromVector<int32_t>({-1}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{3, 2, 1, 6, 5, 4});
  // ReverseV2(tensor=tf.reshape(tf.range(24),[2,3,4]), axis=[0,2])
  r = Reverse(ScanT2<int32_t>(Iota<int32_t>(24), {2, 3, 4}), Tensor::FromVector<int64_t>({0, 2}));
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) ==
        std::vector<int32_t>{15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
  r = Reverse(ScanT2<std::string>({"a", "b", "c", "d"}, {2, 2}), Tensor::FromVector<int32_t>({0}));
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == std::vector<std::string>{"c", "d", "a", "b"});
  // ReverseV2(tensor=tf.constant(1.), axis=[0]): 1.0, the axes unread for a scalar
  r = Reverse(Tensor::Scalar<float>(1.f), Tensor::FromVector<int32_t>({0}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1});
}

TEST_CASE("ReverseV2 refuses bad axes and ranks above 8 in TensorFlow's words", "[mirror]") {
  // ReverseV2(tensor=x, axis=[0,-2]): "axis 0 specified more than once."
  CHECK_THAT(Reverse(kScanX, Tensor::FromVector<int32_t>({0, -2})).status.message(),
             Contains("node 'n'") && Contains("axis 0 specified more than once."));
  // ReverseV2(tensor=x, axis=[2]): "'axis'[0] = 2 is out of valid range [0, 1" (sic)
  CHECK_THAT(Reverse(kScanX, Tensor::FromVector<int32_t>({2})).status.message(),
             Contains("'axis'[0] = 2 is out of valid range [0, 1"));
  CHECK_THAT(Reverse(kScanX, Tensor::FromVector<int32_t>({-3})).status.message(),
             Contains("'axis'[0] = -3 is out of valid range [0, 1"));
  // ReverseV2(tensor=x, axis=[[0]]): "'dims' must be 1-dimension, not 2"
  CHECK_THAT(Reverse(kScanX, ScanT2<int32_t>({0}, {1, 1})).status.message(), Contains("'dims' must be 1-dimension, not 2"));
  // ReverseV2(tensor=tf.zeros([1]*9), axis=[0]): Unimplemented
  Run r = Reverse(Tensor(tf::DT_FLOAT, TensorShape(std::vector<int64_t>(9, 1))), Tensor::FromVector<int32_t>({0}));
  CHECK(r.status.code() == error::UNIMPLEMENTED);
  CHECK_THAT(r.status.message(), Contains("reverse is not implemented for tensors of rank > 8."));
}

Run MirrorPad(const char* op, const Tensor& x, const Tensor& paddings, const char* mode) {
  return RunOp(op, {x, paddings}, {{"T", TypeA(x.dtype())}, {"Tpaddings", TypeA(paddings.dtype())}, {"mode", Str(mode)}});
}
Tensor Paddings(std::vector<int32_t> v) { return ScanT2<int32_t>(v, {static_cast<int64_t>(v.size() / 2), 2}); }

TEST_CASE("MirrorPad reflects without the edge (REFLECT) or with it (SYMMETRIC)", "[mirror]") {
  // tf.raw_ops.MirrorPad(input=x, paddings=[[1,1],[2,2]], mode="REFLECT")
  Run r = MirrorPad("MirrorPad", kScanX, Paddings({1, 1, 2, 2}), "REFLECT");
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({4, 7}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1,
                                                          6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1});
  // MirrorPad(input=x, paddings=[[1,2],[3,1]], mode="SYMMETRIC")
  r = MirrorPad("MirrorPad", kScanX, Paddings({1, 2, 3, 1}), "SYMMETRIC");
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({5, 7}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{3, 2, 1, 1, 2, 3, 3, 3, 2, 1, 1, 2, 3, 3, 6, 5, 4, 4,
                                                          5, 6, 6, 6, 5, 4, 4, 5, 6, 6, 3, 2, 1, 1, 2, 3, 3});
  // MirrorPad(input=tf.reshape(tf.range(1,13),[2,3,2]), paddings=[[1,1],[0,2],[1,0]], mode="REFLECT")
  r = MirrorPad("MirrorPad", ScanT2<int32_t>(Iota<int32_t>(12, 1), {2, 3, 2}), Paddings({1, 1, 0, 2, 1, 0}), "REFLECT");
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({4, 5, 3}));
  CHECK(Values<int32_t>(r.outputs[0]) ==
        std::vector<int32_t>{8, 7, 8, 10, 9, 10, 12, 11, 12, 10, 9, 10, 8, 7, 8, 2, 1, 2, 4, 3, 4, 6, 5, 6, 4, 3, 4, 2, 1, 2,
                             8, 7, 8, 10, 9, 10, 12, 11, 12, 10, 9, 10, 8, 7, 8, 2, 1, 2, 4, 3, 4, 6, 5, 6, 4, 3, 4, 2, 1, 2});
  // MirrorPad(input=[["a","b","c"]], paddings=[[1,0],[2,3]], mode="SYMMETRIC")
  r = MirrorPad("MirrorPad", ScanT2<std::string>({"a", "b", "c"}, {1, 3}), Paddings({1, 0, 2, 3}), "SYMMETRIC");
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) ==
        std::vector<std::string>{"b", "a", "a", "b", "c", "c", "b", "a", "b", "a", "a", "b", "c", "c", "b", "a"});
  // MirrorPad(input=tf.constant(1.), paddings=tf.zeros([0,2],tf.int32), mode="SYMMETRIC"): 1.0
  r = MirrorPad("MirrorPad", Tensor::Scalar<float>(1.f), Tensor(tf::DT_INT32, TensorShape({0, 2})), "SYMMETRIC");
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1});
}

TEST_CASE("MirrorPad refuses paddings its mode cannot mirror, in TensorFlow's words", "[mirror]") {
  // MirrorPad(input=x, paddings=[[1,2],[0,0]], mode="REFLECT")
  CHECK_THAT(MirrorPad("MirrorPad", kScanX, Paddings({1, 2, 0, 0}), "REFLECT").status.message(),
             Contains("paddings must be less than the dimension size: 1, 2 not less than 2"));
  // MirrorPad(input=x, paddings=[[1,3],[0,0]], mode="SYMMETRIC")
  CHECK_THAT(MirrorPad("MirrorPad", kScanX, Paddings({1, 3, 0, 0}), "SYMMETRIC").status.message(),
             Contains("paddings must be no greater than the dimension size: 1, 3 greater than 2"));
  CHECK_THAT(MirrorPad("MirrorPad", kScanX, Paddings({-1, 0, 0, 0}), "SYMMETRIC").status.message(),
             Contains("paddings must be non-negative: -1 0"));
  CHECK_THAT(MirrorPad("MirrorPad", kScanX, Paddings({1, 0}), "SYMMETRIC").status.message(),
             Contains("The first dimension of paddings must be the rank of inputs[1,2], [2,3]"));
  CHECK_THAT(MirrorPad("MirrorPad", kScanX, ScanT2<int32_t>({1, 0, 0, 0, 0, 0}, {2, 3}), "SYMMETRIC").status.message(),
             Contains("paddings must be a matrix with 2 columns: [2,3]"));
  Run r = MirrorPad("MirrorPad", Tensor(tf::DT_FLOAT, TensorShape(std::vector<int64_t>(6, 1))),
                    Tensor(tf::DT_INT32, TensorShape({6, 2})), "SYMMETRIC");
  CHECK(r.status.code() == error::UNIMPLEMENTED);
  CHECK_THAT(r.status.message(), Contains("inputs rank not in [0,5]: 6"));
}

TEST_CASE("MirrorPadGrad adds each padded element's gradient onto the element it copied", "[mirror]") {
  // tf.raw_ops.MirrorPadGrad(input=tf.reshape(tf.range(1.,21.),[4,5]), paddings=[[1,1],[2,1]], mode="SYMMETRIC")
  Run r = MirrorPad("MirrorPadGrad", ScanT2<float>(Iota<float>(20, 1), {4, 5}), Paddings({1, 1, 2, 1}), "SYMMETRIC");
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{20, 35, 60, 95});
  // MirrorPadGrad(input=tf.reshape(tf.range(1.,29.),[4,7]), paddings=[[1,1],[2,2]], mode="REFLECT")
  r = MirrorPad("MirrorPadGrad", ScanT2<double>(Iota<double>(28, 1), {4, 7}), Paddings({1, 1, 2, 2}), "REFLECT");
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3}));
  CHECK(Values<double>(r.outputs[0]) == std::vector<double>{76, 108, 68, 48, 66, 40});
}

TEST_CASE("MirrorPadGrad refuses paddings that leave no output, in TensorFlow's words", "[mirror]") {
  // MirrorPadGrad(input=x, paddings=[[1,1],[0,0]], mode="REFLECT")
  CHECK_THAT(MirrorPad("MirrorPadGrad", kScanX, Paddings({1, 1, 0, 0}), "REFLECT").status.message(),
             Contains("Total paddings must be less than the input dimension size: 2 was not less than 2"));
  // MirrorPadGrad(input=tf.zeros([5,3]), paddings=[[2,1],[0,0]], mode="REFLECT")
  CHECK_THAT(MirrorPad("MirrorPadGrad", Tensor(tf::DT_FLOAT, TensorShape({5, 3})), Paddings({2, 1, 0, 0}), "REFLECT")
                 .status.message(),
             Contains("paddings must be less than the output dimension size: 2, 1 not less than 2"));
  CHECK_THAT(MirrorPad("MirrorPadGrad", kScanX, Paddings({-1, 0, 0, 0}), "SYMMETRIC").status.message(),
             Contains("Paddings must be non-negative: -1, 0"));
}

Run Scan(const char* op, const Tensor& x, int32_t axis, bool exclusive = false, bool reverse = false) {
  return RunOp(op, {x, Tensor::Scalar<int32_t>(axis)},
               {{"T", TypeA(x.dtype())}, {"exclusive", BoolA(exclusive)}, {"reverse", BoolA(reverse)}});
}

TEST_CASE("Cumsum and Cumprod run along an axis, exclusive and reversed as asked", "[scan]") {
  struct Case {
    int axis;
    bool exclusive, reverse;
    std::vector<float> sum, prod;
  };
  // tf.raw_ops.Cumsum / Cumprod(x=[[1.,2,3],[4,5,6]], axis=a, exclusive=e, reverse=r)
  const std::vector<Case> cases = {
      {0, false, false, {1, 2, 3, 5, 7, 9}, {1, 2, 3, 4, 10, 18}},
      {0, false, true, {5, 7, 9, 4, 5, 6}, {4, 10, 18, 4, 5, 6}},
      {0, true, false, {0, 0, 0, 1, 2, 3}, {1, 1, 1, 1, 2, 3}},
      {0, true, true, {4, 5, 6, 0, 0, 0}, {4, 5, 6, 1, 1, 1}},
      {1, false, false, {1, 3, 6, 4, 9, 15}, {1, 2, 6, 4, 20, 120}},
      {1, false, true, {6, 5, 3, 15, 11, 6}, {6, 6, 3, 120, 30, 6}},
      {1, true, false, {0, 1, 3, 0, 4, 9}, {1, 1, 2, 1, 4, 20}},
      {-1, true, true, {5, 3, 0, 11, 6, 0}, {6, 3, 1, 30, 6, 1}},
  };
  for (const Case& c : cases) {
    INFO("axis " << c.axis << " exclusive " << c.exclusive << " reverse " << c.reverse);
    Run r = Scan("Cumsum", kScanX, c.axis, c.exclusive, c.reverse);
    REQUIRE(r.status.ok());
    CHECK(Values<float>(r.outputs[0]) == c.sum);
    r = Scan("Cumprod", kScanX, c.axis, c.exclusive, c.reverse);
    REQUIRE(r.status.ok());
    CHECK(Values<float>(r.outputs[0]) == c.prod);
  }
  // Cumsum(x=tf.reshape(tf.range(24),[2,3,4]), axis=1, reverse=True, exclusive=True)
  Run r = Scan("Cumsum", ScanT2<int32_t>(Iota<int32_t>(24), {2, 3, 4}), 1, true, true);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{12, 14, 16, 18, 8, 9, 10, 11, 0, 0, 0, 0,
                                                              36, 38, 40, 42, 20, 21, 22, 23, 0, 0, 0, 0});
}

TEST_CASE("Cumsum rounds as TensorFlow does: in order, in the element type; integers wrap", "[scan]") {
  // tf.bitcast(Cumsum(x=tf.constant([0.1,0.2,0.3,1e8,-1e8,0.7,1e-3]), axis=0), tf.int32)
  Run r = Scan("Cumsum", Tensor::FromVector<float>({0.1f, 0.2f, 0.3f, 1e8f, -1e8f, 0.7f, 1e-3f}), 0);
  REQUIRE(r.status.ok());
  std::vector<int32_t> bits(7);
  std::memcpy(bits.data(), r.outputs[0].data(), sizeof(float) * 7);
  CHECK(bits == std::vector<int32_t>{1036831949, 1050253722, 1058642330, 1287568416, 0, 1060320051, 1060336828});
  // Cumsum(x=tf.constant([0.1,0.2,0.3,1000,0.7,1e-3], tf.float16), axis=0)
  std::vector<Eigen::half> h;
  for (float f : {0.1f, 0.2f, 0.3f, 1000.f, 0.7f, 1e-3f}) h.push_back(Eigen::half(f));
  r = Scan("Cumsum", Tensor::FromVector<Eigen::half>(h), 0);
  REQUIRE(r.status.ok());
  std::vector<float> got;
  for (Eigen::half v : Values<Eigen::half>(r.outputs[0])) got.push_back(static_cast<float>(v));
  CHECK(got == std::vector<float>{0.0999755859375f, 0.2998046875f, 0.599609375f, 1000.5f, 1001.f, 1001.f});
  // Cumsum(x=tf.constant([100,100,-100,-100,-100], tf.int8), axis=0): [100,-56,100,0,-100]
  r = Scan("Cumsum", Tensor::FromVector<int8_t>({100, 100, -100, -100, -100}), 0);
  REQUIRE(r.status.ok());
  CHECK(Values<int8_t>(r.outputs[0]) == std::vector<int8_t>{100, -56, 100, 0, -100});
  // Cumprod(x=tf.constant([65536,65536,3]), axis=0): [65536, 0, 0]
  r = Scan("Cumprod", Tensor::FromVector<int32_t>({65536, 65536, 3}), 0);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{65536, 0, 0});
  // Cumprod(x=tf.constant([300,300,7], tf.uint16), axis=0): [300, 24464, 40176]
  r = Scan("Cumprod", Tensor::FromVector<uint16_t>({300, 300, 7}), 0);
  REQUIRE(r.status.ok());
  CHECK(Values<uint16_t>(r.outputs[0]) == std::vector<uint16_t>{300, 24464, 40176});
}

TEST_CASE("Cumsum refuses a bad axis in TensorFlow's words, naming the axis after adding the rank", "[scan]") {
  // Cumsum(x=x, axis=[0]): "ScanOp: axis must be a scalar, not [1]"
  Run r = RunOp("Cumsum", {kScanX, Tensor::FromVector<int32_t>({0})}, {{"T", TOf<float>()}});
  CHECK_THAT(r.status.message(), Contains("ScanOp: axis must be a scalar, not [1]"));
  // Cumsum(x=x, axis=2) and axis=-3: "... in the range [-2, 2), but got 2" and "but got -1"
  CHECK_THAT(Scan("Cumsum", kScanX, 2).status.message(), Contains("ScanOp: Expected scan axis in the range [-2, 2), but got 2"));
  CHECK_THAT(Scan("Cumprod", kScanX, -3).status.message(),
             Contains("ScanOp: Expected scan axis in the range [-2, 2), but got -1"));
  // Cumsum(x=tf.constant(2.), axis=0)
  CHECK_THAT(Scan("Cumsum", Tensor::Scalar<float>(2.f), 0).status.message(),
             Contains("ScanOp: Expected scan axis in the range [0, 0), but got 0"));
}

Run TopK(const Tensor& x, int32_t k, DataType index_type = tf::DT_INT32) {
  return RunOp("TopKV2", {x, Tensor::Scalar<int32_t>(k)}, {{"T", TypeA(x.dtype())}, {"index_type", TypeA(index_type)}});
}

TEST_CASE("TopKV2 gives each row's k largest, largest first, equal ones by position", "[topk]") {
  // tf.raw_ops.TopKV2(input=[3,1,3,2,3,1], k=4): [3,3,3,2], [0,2,4,3]
  Run r = TopK(Tensor::FromVector<int32_t>({3, 1, 3, 2, 3, 1}), 4);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{3, 3, 3, 2});
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{0, 2, 4, 3});
  // TopKV2(input=[[0.5,-1,2.5,2.5,0],[3,3,-2,7,1]], k=3)
  r = TopK(ScanT2<float>({0.5f, -1, 2.5f, 2.5f, 0, 3, 3, -2, 7, 1}, {2, 5}), 3);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2.5f, 2.5f, 0.5f, 7, 3, 3});
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{2, 3, 0, 3, 0, 1});
  // TopKV2(input=tf.constant([5,1,5,9], tf.int64), k=2, index_type=tf.int64): [9,5], [3,0]
  r = TopK(Tensor::FromVector<int64_t>({5, 1, 5, 9}), 2, tf::DT_INT64);
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{9, 5});
  CHECK(Values<int64_t>(r.outputs[1]) == std::vector<int64_t>{3, 0});
  // TopKV2(input=tf.constant([[200,3,255,0]], tf.uint8), k=4)
  r = TopK(ScanT2<uint8_t>({200, 3, 255, 0}, {1, 4}), 4);
  REQUIRE(r.status.ok());
  CHECK(Values<uint8_t>(r.outputs[0]) == std::vector<uint8_t>{255, 200, 3, 0});
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{2, 0, 1, 3});
  // TopKV2(input=x, k=0): shapes (2, 0)
  r = TopK(kScanX, 0);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 0}));
}

TEST_CASE("TopKV2 refuses what TensorFlow refuses, in its words", "[topk]") {
  CHECK_THAT(TopK(kScanX, 5).status.message(), Contains("input must have at least k columns. Had 3, needed 5"));
  CHECK_THAT(TopK(kScanX, -1).status.message(), Contains("Need k >= 0, got -1"));
  CHECK_THAT(TopK(Tensor::Scalar<float>(1.f), 1).status.message(), Contains("input must be >= 1-D, got shape []"));
  Run r = RunOp("TopKV2", {kScanX, Tensor::FromVector<int32_t>({1})}, {{"T", TOf<float>()}});
  CHECK_THAT(r.status.message(), Contains("k must be scalar, got shape [1]"));
}

Run Clip(const Tensor& t, const Tensor& lo, const Tensor& hi) {
  return RunOp("ClipByValue", {t, lo, hi}, {{"T", TypeA(t.dtype())}});
}

TEST_CASE("ClipByValue clips to scalar or element-wise bounds, as TensorFlow's corner cases go", "[clip]") {
  // tf.raw_ops.ClipByValue(t=x, clip_value_min=2., clip_value_max=5.)
  Run r = Clip(kScanX, Tensor::Scalar<float>(2), Tensor::Scalar<float>(5));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2, 2, 3, 4, 5, 5});
  // ClipByValue(t=x, clip_value_min=[[0.,3,3],[0,0,7]], clip_value_max=[[1.,4,4],[8,8,8]])
  r = Clip(kScanX, ScanT2<float>({0, 3, 3, 0, 0, 7}, {2, 3}), ScanT2<float>({1, 4, 4, 8, 8, 8}, {2, 3}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 3, 3, 4, 5, 7});
  // ClipByValue(t=[-5,0,5,10], clip_value_min=-1, clip_value_max=[1,2,3,4]): [-1,0,3,4]
  r = Clip(Tensor::FromVector<int32_t>({-5, 0, 5, 10}), Tensor::Scalar<int32_t>(-1),
           Tensor::FromVector<int32_t>({1, 2, 3, 4}));
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{-1, 0, 3, 4});
  // A minimum above the maximum wins: ClipByValue(t=x, clip_value_min=5., clip_value_max=2.) is all 5.
  r = Clip(kScanX, Tensor::Scalar<float>(5), Tensor::Scalar<float>(2));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{5, 5, 5, 5, 5, 5});
  // ClipByValue(t=[1.,3.,6.,nan,-0.], clip_value_min=fill(nan), clip_value_max=fill(2.)): [1,2,2,nan,-0]
  const float nan = std::nanf("");
  r = Clip(Tensor::FromVector<float>({1, 3, 6, nan, -0.f}), Tensor::FromVector<float>({nan, nan, nan, nan, nan}),
           Tensor::FromVector<float>({2, 2, 2, 2, 2}));
  REQUIRE(r.status.ok());
  std::vector<float> got = Values<float>(r.outputs[0]);
  CHECK(got[0] == 1);
  CHECK(got[1] == 2);
  CHECK(got[2] == 2);
  CHECK(std::isnan(got[3]));
  CHECK(std::signbit(got[4]));
  // ClipByValue(t=[1.,3.,6.,nan,-0.], clip_value_min=0., clip_value_max=nan): t unchanged
  r = Clip(Tensor::FromVector<float>({1, 3, 6, nan, -0.f}), Tensor::Scalar<float>(0), Tensor::Scalar<float>(nan));
  REQUIRE(r.status.ok());
  got = Values<float>(r.outputs[0]);
  CHECK((got[0] == 1 && got[1] == 3 && got[2] == 6 && std::isnan(got[3]) && std::signbit(got[4])));
}

TEST_CASE("ClipByValue clips complex numbers part by part, as TensorFlow's CPU kernel does", "[clip]") {
  const float nan = std::nanf("");
  const std::vector<complex64> x{{1, 5}, {-2, -1}, {2.5f, 5}, {nan, -3}, {-0.f, 0.5f}};
  // tf.raw_ops.ClipByValue(t=x, clip_value_min=0+1j, clip_value_max=3+2j), complex64:
  // [1+2j, 0+1j, 2.5+2j, nan+1j, -0+1j]
  Run r = Clip(Tensor::FromVector<complex64>(x), Tensor::Scalar<complex64>({0, 1}), Tensor::Scalar<complex64>({3, 2}));
  REQUIRE(r.status.ok());
  std::vector<complex64> got = Values<complex64>(r.outputs[0]);
  CHECK(got[0] == complex64(1, 2));
  CHECK(got[1] == complex64(0, 1));
  CHECK(got[2] == complex64(2.5f, 2));
  CHECK((std::isnan(got[3].real()) && got[3].imag() == 1));
  CHECK((got[4] == complex64(0, 1) && std::signbit(got[4].real())));
  // The same x in complex128, clip_value_min=zeros, clip_value_max=[1j, 1j, 1j, 1j, nan+1j]:
  // [0+1j, 0+0j, 0+1j, nan+0j, -0+0.5j] (a NaN part of a bound clips nothing)
  std::vector<complex128> x2(x.begin(), x.end());
  const double dnan = std::nan("");
  r = Clip(Tensor::FromVector<complex128>(x2), Tensor::FromVector<complex128>(std::vector<complex128>(5)),
           Tensor::FromVector<complex128>({{0, 1}, {0, 1}, {0, 1}, {0, 1}, {dnan, 1}}));
  REQUIRE(r.status.ok());
  std::vector<complex128> got2 = Values<complex128>(r.outputs[0]);
  CHECK(got2[0] == complex128(0, 1));
  CHECK(got2[1] == complex128(0, 0));
  CHECK(got2[2] == complex128(0, 1));
  CHECK((std::isnan(got2[3].real()) && got2[3].imag() == 0));
  CHECK((got2[4] == complex128(0, 0.5) && std::signbit(got2[4].real())));
}

TEST_CASE("ClipByValue refuses bounds of another shape than t's, in TensorFlow's words", "[clip]") {
  // ClipByValue(t=x, clip_value_min=[0.,1.], clip_value_max=3.)
  Run r = Clip(kScanX, Tensor::FromVector<float>({0, 1}), Tensor::Scalar<float>(3));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(),
             Contains("clip_value_min and clip_value_max must be either of the same shape as input, or a scalar. "
                      "input shape: [2,3]clip_value_min shape: [2]clip_value_max shape: []"));
}

}  // namespace
}  // namespace tensoract
