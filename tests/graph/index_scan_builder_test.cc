// The builders of Where, Gather, DynamicStitch, ListDiff, ConcatOffset, GatherNd, ScatterNd,
// ReverseV2, MirrorPad(Grad), Cumsum, Cumprod, TopKV2 and ClipByValue: the nodes they make and the
// shapes their shape functions infer. Expected shapes and refusals are TensorFlow 2.21's,
// printed by building the same nodes with tf.raw_ops in a tf.Graph (the call in each comment).
#include <catch2/catch.hpp>
#include <functional>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Inferred;
using testing::P;

using testing::Shape;

namespace tf = ::tensorflow;
using Catch::Contains;




TEST_CASE("Where's shape is [?, rank]; Gather's is indices' shape then params' rest", "[index]") {
  // tf.raw_ops.Where(condition=placeholder([2,None,3])): (None, 3); of unknown rank: (None, None)
  CHECK(Inferred([](const Scope& s) { return ops::Where(s, P(s, Shape({2, -1, 3}))); }) == "[?,3]");
  CHECK(Inferred([](const Scope& s) { return ops::Where(s, P(s, PartialTensorShape())); }) == "[?,?]");
  CHECK(Inferred([](const Scope& s) { return ops::Where(s, P(s, Shape({}))); }) == "[?,0]");
  // tf.raw_ops.Gather(params=placeholder([5,3]), indices=placeholder(int32, [2,None])): (2, None, 3)
  CHECK(Inferred([](const Scope& s) {
          return ops::Gather(s, P(s, Shape({5, 3})), P(s, Shape({2, -1}), tf::DT_INT32));
        }) == "[2,?,3]");
  CHECK_THAT(Inferred([](const Scope& s) { return ops::Gather(s, P(s, Shape({})), {0}); }),
             Contains("refused") && Contains("rank"));
}

TEST_CASE("DynamicStitch's rows are max index + 1 when the indices are constant", "[index]") {
  // DynamicStitch(indices=[[0,2],[1,2]], data=[placeholder([2,4]), placeholder([2,None])]): (3, 4)
  CHECK(Inferred([](const Scope& s) {
          return ops::DynamicStitch(s, {Input({0, 2}), Input({1, 2})}, {P(s, Shape({2, 4})), P(s, Shape({2, -1}))});
        }) == "[3,4]");
  // ... with indices[0] a placeholder: (None, 4)
  CHECK(Inferred([](const Scope& s) {
          return ops::ParallelDynamicStitch(s, {P(s, Shape({2}), tf::DT_INT32), Input({1, 2})},
                                            {P(s, Shape({2, 4})), P(s, Shape({2, -1}))});
        }) == "[?,4]");
  // DynamicStitch(indices=[[0,-2]], data=[placeholder([2,4])]): (1, 4)
  CHECK(Inferred([](const Scope& s) { return ops::DynamicStitch(s, {Input({0, -2})}, {P(s, Shape({2, 4}))}); }) ==
        "[1,4]");
  // data [2,4] and [2,5]: refused, the rows disagree; data [3,4] for indices [2]: refused
  CHECK_THAT(Inferred([](const Scope& s) {
               return ops::DynamicStitch(s, {Input({0, 2}), Input({1, 2})}, {P(s, Shape({2, 4})), P(s, Shape({2, 5}))});
             }),
             Contains("refused"));
  CHECK_THAT(Inferred([](const Scope& s) {
               return ops::DynamicStitch(s, {Input({0, 2}), Input({1, 2})}, {P(s, Shape({3, 4})), P(s, Shape({2, 4}))});
             }),
             Contains("refused"));
}

TEST_CASE("ListDiff gives two vectors of unknown length; ConcatOffset the shapes it was given", "[index]") {
  Scope root = Scope::NewRootScope();
  ops::ListDiffOutputs d = ops::ListDiff(root, P(root, Shape({-1})), P(root, Shape({3})), tf::DT_INT64);
  REQUIRE(root.ok());
  CHECK(d.out.shape().DebugString() == "[?]");
  CHECK(d.idx.type() == tf::DT_INT64);
  OutputList offsets = ops::ConcatOffset(root, 1, {P(root, Shape({3}), tf::DT_INT32), P(root, Shape({-1}), tf::DT_INT32)});
  REQUIRE(root.ok());
  REQUIRE(offsets.size() == 2);
  CHECK(offsets[0].shape().DebugString() == "[3]");
  CHECK(offsets[1].shape().DebugString() == "[?]");
  // ListDiff(x=placeholder([2,3]), ...): "Shape must be rank 1 but is rank 2"
  CHECK_THAT(Inferred([](const Scope& s) { return ops::ListDiff(s, P(s, Shape({2, 3})), P(s, Shape({3}))).out; }),
             Contains("refused"));
}

TEST_CASE("GatherNd's shape is indices' outer shape then params' rest; ScatterNd's is its shape input", "[index]") {
  // tf.raw_ops.GatherNd(params=placeholder([5,None,3]), indices=placeholder(int32, [4,None,2])): (4, None, 3)
  CHECK(Inferred([](const Scope& s) {
          return ops::GatherNd(s, P(s, Shape({5, -1, 3})), P(s, Shape({4, -1, 2}), tf::DT_INT32));
        }) == "[4,?,3]");
  CHECK(Inferred([](const Scope& s) {
          return ops::GatherNd(s, P(s, Shape({5, 3})), P(s, Shape({4, -1}), tf::DT_INT32));
        }) == "<unknown>");
  CHECK_THAT(Inferred([](const Scope& s) { return ops::GatherNd(s, P(s, Shape({5, 3})), {{1, 2, 0}}); }),
             Contains("indices.shape[-1] must be <= params.rank"));
  // ScatterNd(indices=[[0],[2]], updates=placeholder([2,3]), shape=[4,3]): (4, 3)
  CHECK(Inferred([](const Scope& s) { return ops::ScatterNd(s, {{0}, {2}}, P(s, Shape({2, 3})), {4, 3}); }) == "[4,3]");
  CHECK(Inferred([](const Scope& s) {
          return ops::ScatterNd(s, {{0}, {2}}, P(s, Shape({2, 3})), P(s, Shape({2}), tf::DT_INT32));
        }) == "[?,?]");
  CHECK_THAT(Inferred([](const Scope& s) { return ops::ScatterNd(s, {{0}, {2}}, P(s, Shape({2, 5})), {4, 3}); }),
             Contains("refused"));
}

TEST_CASE("ReverseV2 keeps the shape and checks constant axes as TensorFlow does", "[mirror]") {
  CHECK(Inferred([](const Scope& s) { return ops::ReverseV2(s, P(s, Shape({2, 3})), {0}); }) == "[2,3]");
  // ReverseV2(tensor=placeholder([2,3]), axis=[5]): "'axis'[0] = 5 is out of valid range [0, 1"
  CHECK_THAT(Inferred([](const Scope& s) { return ops::ReverseV2(s, P(s, Shape({2, 3})), {5}); }),
             Contains("'axis'[0] = 5 is out of valid range [0, 1"));
  CHECK_THAT(Inferred([](const Scope& s) { return ops::ReverseV2(s, P(s, Shape({2, 3})), {1, -1}); }),
             Contains("axis 1 specified more than once."));
  // ReverseV2(tensor=placeholder([1]*9), axis=[0])
  CHECK_THAT(Inferred([](const Scope& s) {
               return ops::ReverseV2(s, P(s, PartialTensorShape(std::vector<int64_t>(9, 1))), {0});
             }),
             Contains("reverse does not work on tensors with more than 8 dimensions"));
}

TEST_CASE("MirrorPad adds the paddings to each dimension, MirrorPadGrad takes them off", "[mirror]") {
  // MirrorPad(input=placeholder([2,3]), paddings=[[1,1],[2,2]], mode="REFLECT"): (4, 7)
  CHECK(Inferred([](const Scope& s) { return ops::MirrorPad(s, P(s, Shape({2, 3})), {{1, 1}, {2, 2}}, "REFLECT"); }) ==
        "[4,7]");
  // ... of placeholder([2,None]): (4, None); with unknown paddings: (None, None)
  CHECK(Inferred([](const Scope& s) { return ops::MirrorPad(s, P(s, Shape({2, -1})), {{1, 1}, {2, 2}}, "REFLECT"); }) ==
        "[4,?]");
  CHECK(Inferred([](const Scope& s) {
          return ops::MirrorPad(s, P(s, Shape({2, -1})), P(s, Shape({2, 2}), tf::DT_INT32), "SYMMETRIC");
        }) == "[?,?]");
  CHECK(Inferred([](const Scope& s) {
          return ops::MirrorPad(s, P(s, PartialTensorShape()), P(s, Shape({3, 2}), tf::DT_INT32), "SYMMETRIC");
        }) == "[?,?,?]");
  CHECK_THAT(Inferred([](const Scope& s) { return ops::MirrorPad(s, P(s, Shape({2, 3})), {{-1, 1}, {2, 2}}, "REFLECT"); }),
             Contains("Paddings must be non-negative"));
  // MirrorPad(input=placeholder([2,3]), paddings=[[1,1]]): "Shape must be rank 1 but is rank 2"
  CHECK_THAT(Inferred([](const Scope& s) { return ops::MirrorPad(s, P(s, Shape({2, 3})), {{1, 1}}, "REFLECT"); }),
             Contains("refused"));
  // MirrorPadGrad(input=placeholder([6,7]), paddings=[[1,1],[2,2]], mode="REFLECT"): (4, 3)
  CHECK(Inferred([](const Scope& s) {
          return ops::MirrorPadGrad(s, P(s, Shape({6, 7})), {{1, 1}, {2, 2}}, "REFLECT");
        }) == "[4,3]");
  CHECK(Inferred([](const Scope& s) {
          return ops::MirrorPadGrad(s, P(s, Shape({6, -1})), {{1, 1}, {2, 2}}, "REFLECT");
        }) == "[4,?]");
  // MirrorPadGrad(input=placeholder([2,7]), paddings=[[1,2],[2,2]]): "Negative dimension size caused by subtracting 3 from 2"
  CHECK_THAT(Inferred([](const Scope& s) {
               return ops::MirrorPadGrad(s, P(s, Shape({2, 7})), {{1, 2}, {2, 2}}, "REFLECT");
             }),
             Contains("Negative dimension size caused by subtracting 3 from 2"));
  // An unknown mode is refused by the OpDef.
  CHECK_THAT(Inferred([](const Scope& s) { return ops::MirrorPad(s, P(s, Shape({2, 3})), {{1, 1}, {1, 1}}, "EDGE"); }),
             Contains("refused"));
}

TEST_CASE("Cumsum, Cumprod and ClipByValue keep the shape; TopKV2 puts k last", "[scan]") {
  CHECK(Inferred([](const Scope& s) { return ops::Cumsum(s, P(s, Shape({2, -1})), 1, {true, true}); }) == "[2,?]");
  CHECK(Inferred([](const Scope& s) { return ops::Cumprod(s, P(s, Shape({})), 0); }) == "[]");
  CHECK(Inferred([](const Scope& s) { return ops::ClipByValue(s, P(s, Shape({2, 3})), 0.f, 1.f); }) == "[2,3]");
  // TopKV2(input=placeholder([2,None]), k=3): (2, 3) twice
  Scope root = Scope::NewRootScope();
  ops::TopKV2Outputs top = ops::TopKV2(root, P(root, Shape({2, -1})), 3, {true, tf::DT_INT64});
  REQUIRE(root.ok());
  CHECK(top.values.shape().DebugString() == "[2,3]");
  CHECK(top.indices.shape().DebugString() == "[2,3]");
  CHECK(top.indices.type() == tf::DT_INT64);
  // ... with an unknown k: (2, None)
  CHECK(Inferred([](const Scope& s) {
          return ops::TopKV2(s, P(s, Shape({2, 3})), P(s, Shape({}), tf::DT_INT32)).values;
        }) == "[2,?]");
  // TopKV2(input=placeholder([2,3]), k=5): "input must have last dimension >= k = 5 but is 3"
  CHECK_THAT(Inferred([](const Scope& s) { return ops::TopKV2(s, P(s, Shape({2, 3})), 5).values; }),
             Contains("input must have last dimension >= k = 5 but is 3"));
  CHECK_THAT(Inferred([](const Scope& s) { return ops::TopKV2(s, P(s, Shape({2, 3})), -1).values; }),
             Contains("Dimension size, given by scalar input 1, must be non-negative but is -1"));
  CHECK_THAT(Inferred([](const Scope& s) { return ops::TopKV2(s, P(s, Shape({})), 1).values; }), Contains("refused"));
  CHECK_THAT(Inferred([](const Scope& s) { return ops::TopKV2(s, P(s, Shape({2, 3})), {1}).values; }),
             Contains("Input must be scalar but has rank 1"));
}

}  // namespace
}  // namespace tensoract
