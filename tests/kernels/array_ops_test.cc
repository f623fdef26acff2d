// Array kernels on the CPU (Reshape, Shape, ExpandDims, Squeeze, BroadcastGradientArgs,
// ZerosLike, OnesLike, Fill, StopGradient, PreventGradient, Snapshot, IdentityN, Transpose,
// ConcatV2, Pack): values against hand-computed or TensorFlow-printed results, errors.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::IntA;
using testing::TOf;

namespace tf = ::tensorflow;

using testing::BoolA;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;


tf::AttrValue IntsA(std::vector<int64_t> is) { tf::AttrValue v; for (auto i : is) v.mutable_list()->add_i(i); return v; }


TEMPLATE_TEST_CASE("Reshape, ExpandDims and Squeeze keep the elements and change the shape", "[array]", float, double,
                   int32_t, int64_t) {
  using T = TestType;
  Tensor x = Tensor::FromVector<T>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Run r = RunOp("Reshape", {x, Tensor::FromVector<int32_t>({3, -1})}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 2, 3, 4, 5, 6});
  r = RunOp("Reshape", {x, Tensor::FromVector<int64_t>({6})}, {{"T", TOf<T>()}, {"Tshape", TypeA(tf::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({6}));
  r = RunOp("ExpandDims", {x, Tensor::Scalar<int32_t>(-1)}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3, 1}));
  r = RunOp("ExpandDims", {x, Tensor::Scalar<int64_t>(0)}, {{"T", TOf<T>()}, {"Tdim", TypeA(tf::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 2, 3}));
  Tensor y = Tensor::FromVector<T>({1, 2, 3}, TensorShape({1, 3, 1}));
  r = RunOp("Squeeze", {y}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3}));
  r = RunOp("Squeeze", {y}, {{"T", TOf<T>()}, {"squeeze_dims", IntsA({-1})}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 3}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 2, 3});
}

TEST_CASE("Reshape, ExpandDims and Squeeze reject what TensorFlow rejects", "[array]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Run r = RunOp("Reshape", {x, Tensor::FromVector<int32_t>({4, -1})}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4"));
  r = RunOp("Reshape", {x, Tensor::FromVector<int32_t>({5})}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("requested shape has 5"));
  r = RunOp("Reshape", {x, Tensor::FromVector<int32_t>({-1, -1})}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Only one input size may be -1, not both 0 and 1"));
  r = RunOp("ExpandDims", {x, Tensor::Scalar<int32_t>(3)}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  r = RunOp("Squeeze", {x}, {{"T", TypeA(tf::DT_FLOAT)}, {"squeeze_dims", IntsA({0})}});
  CHECK_THAT(r.status.message(), Catch::Contains("Can not squeeze dim[0], expected a dimension of 1, got 2"));
}

TEST_CASE("Shape gives the dimensions as int32 or int64", "[array]") {
  Tensor x(tf::DT_FLOAT, TensorShape({2, 0, 5}));
  Run r = RunOp("Shape", {x}, {{"T", TypeA(tf::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{2, 0, 5});
  r = RunOp("Shape", {x}, {{"T", TypeA(tf::DT_FLOAT)}, {"out_type", TypeA(tf::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{2, 0, 5});
}

// Expected values printed by TensorFlow 2.21's tf.raw_ops.BroadcastGradientArgs.
TEST_CASE("BroadcastGradientArgs gives TensorFlow's reduction axes", "[array]") {
  struct Case {
    std::vector<int64_t> s0, s1, r0, r1;
  };
  const std::vector<Case> cases = {
      {{2, 3}, {2, 3}, {}, {}},         {{1}, {1}, {}, {}},
      {{2, 1}, {1, 3}, {1}, {0}},       {{2, 1}, {1}, {1}, {0, 1}},
      {{1}, {2, 1}, {0, 1}, {1}},       {{}, {2, 3}, {0, 1}, {}},
      {{3}, {2, 3}, {0}, {}},           {{1, 1}, {2, 1}, {0, 1}, {1}},
      {{2, 1, 3}, {1, 1, 3}, {1}, {0, 1}}, {{1, 2, 1}, {1}, {0, 2}, {0, 1, 2}},
      {{5, 1, 1}, {1, 1}, {1, 2}, {0, 1, 2}}, {{1, 1, 1}, {1, 1}, {0, 1, 2}, {0, 1, 2}},
  };
  for (const Case& c : cases) {
    INFO(TensorShape(c.s0).DebugString() << " vs " << TensorShape(c.s1).DebugString());
    Run r = RunOp("BroadcastGradientArgs", {Tensor::FromVector<int64_t>(c.s0), Tensor::FromVector<int64_t>(c.s1)},
                  {{"T", TypeA(tf::DT_INT64)}});
    REQUIRE(r.status.ok());
    CHECK(Values<int64_t>(r.outputs[0]) == c.r0);
    CHECK(Values<int64_t>(r.outputs[1]) == c.r1);
  }
  std::vector<int32_t> a = {2, 1}, b = {1, 3};
  Run r = RunOp("BroadcastGradientArgs", {Tensor::FromVector<int32_t>(a), Tensor::FromVector<int32_t>(b)}, {});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1});
  r = RunOp("BroadcastGradientArgs", {Tensor::FromVector<int32_t>({2, 3}), Tensor::FromVector<int32_t>({4, 3})}, {});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Incompatible shapes: [2,3] vs. [4,3]"));
}

TEMPLATE_TEST_CASE("ZerosLike, OnesLike and Fill", "[array]", float, double, int32_t, int64_t) {
  using T = TestType;
  Tensor x = Tensor::FromVector<T>({7, 8, 9, 10}, TensorShape({2, 2}));
  Run r = RunOp("ZerosLike", {x}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == x.shape());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>(4, T(0)));
  r = RunOp("OnesLike", {x}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>(4, T(1)));
  r = RunOp("Fill", {Tensor::FromVector<int32_t>({2, 3}), Tensor::Scalar<T>(T(5))}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>(6, T(5)));
  r = RunOp("Fill", {Tensor::FromVector<int64_t>({300, 400}), Tensor::Scalar<T>(T(3))},
            {{"T", TOf<T>()}, {"index_type", TypeA(tf::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>(120000, T(3)));
  r = RunOp("Fill", {Tensor::FromVector<int32_t>({2, -1}), Tensor::Scalar<T>(T(5))}, {{"T", TOf<T>()}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  r = RunOp("Fill", {Tensor::FromVector<int32_t>({2}), Tensor::FromVector<T>({1, 2})}, {{"T", TOf<T>()}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
}

TEST_CASE("StopGradient, PreventGradient and IdentityN forward; Snapshot copies", "[array]") {
  Tensor x = Tensor::FromVector<float>({1, 2});
  Tensor y = Tensor::FromVector<int32_t>({3});
  Run r = RunOp("StopGradient", {x}, {{"T", TypeA(tf::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].SharesBufferWith(x));
  r = RunOp("PreventGradient", {x}, {{"T", TypeA(tf::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].SharesBufferWith(x));
  tf::AttrValue types;
  types.mutable_list()->add_type(tf::DT_FLOAT);
  types.mutable_list()->add_type(tf::DT_INT32);
  r = RunOp("IdentityN", {x, y}, {{"T", types}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 2});
  CHECK(Values<int32_t>(r.outputs[1]) == std::vector<int32_t>{3});
  r = RunOp("Snapshot", {x}, {{"T", TypeA(tf::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(!r.outputs[0].SharesBufferWith(x));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 2});
}

TEMPLATE_TEST_CASE("Transpose permutes dimensions", "[array]", float, double, int32_t, int64_t) {
  using T = TestType;
  Tensor x = Tensor::FromVector<T>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Run r = RunOp("Transpose", {x, Tensor::FromVector<int32_t>({1, 0})}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 4, 2, 5, 3, 6});
  // A [2,3,4] tensor with perm (2,0,1): y[k,i,j] = x[i,j,k].
  std::vector<T> v(24);
  for (int i = 0; i < 24; ++i) v[i] = T(i);
  Tensor z = Tensor::FromVector<T>(v, TensorShape({2, 3, 4}));
  r = RunOp("Transpose", {z, Tensor::FromVector<int64_t>({2, 0, 1})}, {{"T", TOf<T>()}, {"Tperm", TypeA(tf::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({4, 2, 3}));
  std::vector<T> want;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(T((i * 3 + j) * 4 + k));
  CHECK(Values<T>(r.outputs[0]) == want);
  // Rank 6 with a full reversal takes the index loop.
  std::vector<T> w(64);
  for (int i = 0; i < 64; ++i) w[i] = T(i);
  Tensor big = Tensor::FromVector<T>(w, TensorShape({2, 2, 2, 2, 2, 2}));
  r = RunOp("Transpose", {big, Tensor::FromVector<int32_t>({5, 4, 3, 2, 1, 0})}, {{"T", TOf<T>()}});
  REQUIRE(r.status.ok());
  std::vector<T> rev;
  for (int o = 0; o < 64; ++o) {
    int in = 0;
    for (int b = 0; b < 6; ++b) in |= ((o >> b) & 1) << (5 - b);
    rev.push_back(T(in));
  }
  CHECK(Values<T>(r.outputs[0]) == rev);
}

TEST_CASE("Transpose rejects a bad permutation", "[array]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Run r = RunOp("Transpose", {x, Tensor::FromVector<int32_t>({0, 0})}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  r = RunOp("Transpose", {x, Tensor::FromVector<int32_t>({0, 1, 2})}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  r = RunOp("Transpose", {x, Tensor::FromVector<int32_t>({0, 2})}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
}

TEMPLATE_TEST_CASE("ConcatV2 and Pack join values along an axis", "[array]", float, double, int32_t, int64_t) {
  using T = TestType;
  Tensor a = Tensor::FromVector<T>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor b = Tensor::FromVector<T>({5, 6}, TensorShape({2, 1}));
  Run r = RunOp("ConcatV2", {a, b, Tensor::Scalar<int32_t>(1)}, {{"T", TOf<T>()}, {"N", IntA(2)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 2, 5, 3, 4, 6});
  r = RunOp("ConcatV2", {a, a, a, Tensor::Scalar<int64_t>(-2)},
            {{"T", TOf<T>()}, {"N", IntA(3)}, {"Tidx", TypeA(tf::DT_INT64)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({6, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4});
  r = RunOp("ConcatV2", {a, b, Tensor::Scalar<int32_t>(0)}, {{"T", TOf<T>()}, {"N", IntA(2)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("ConcatOp : Dimension 1 in both shapes must be equal"));
  r = RunOp("ConcatV2", {a, b, Tensor::Scalar<int32_t>(2)}, {{"T", TOf<T>()}, {"N", IntA(2)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);

  Tensor c = Tensor::FromVector<T>({1, 2});
  Tensor d = Tensor::FromVector<T>({3, 4});
  r = RunOp("Pack", {c, d}, {{"T", TOf<T>()}, {"N", IntA(2)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 2, 3, 4});
  r = RunOp("Pack", {c, d}, {{"T", TOf<T>()}, {"N", IntA(2)}, {"axis", IntA(-1)}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{1, 3, 2, 4});
  r = RunOp("Pack", {c, a}, {{"T", TOf<T>()}, {"N", IntA(2)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Shapes of all inputs must match"));
}

}  // namespace
}  // namespace tensoract
