// The element-wise math builder functions: the nodes they make, and the shapes TensorFlow's
// shape functions infer for them (broadcasting, Select's cases, AddN, Equal's escape hatch).
#include <catch2/catch.hpp>

#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Shape;

namespace tf = ::tensorflow;



TEST_CASE("binary math builders broadcast shapes and take T from x", "[cwise]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, tf::DT_FLOAT, Shape({-1, 3}));
  auto row = ops::Placeholder(root, tf::DT_FLOAT, Shape({3}));
  auto d = ops::Sub(root.WithOpName("d"), x, row);
  REQUIRE(root.ok());
  CHECK(d.node->type_string() == "Sub");
  CHECK(d.type() == tf::DT_FLOAT);
  CHECK(d.shape().DebugString() == "[?,3]");
  auto g = ops::Greater(root, x, 0.f);
  CHECK(g.type() == tf::DT_BOOL);
  CHECK(g.shape().DebugString() == "[?,3]");
  auto c = ops::Cast(root, g, tf::DT_INT32);
  CHECK(c.type() == tf::DT_INT32);
  auto sum = ops::AddN(root, {x, ops::Tanh(root, x), ops::Square(root, x)});
  CHECK(sum.shape().DebugString() == "[?,3]");
  auto grad = ops::TanhGrad(root, x, x);
  CHECK(grad.shape().DebugString() == "[?,3]");
  REQUIRE(root.ok());
}

TEST_CASE("shapes that cannot broadcast fail when the node is added", "[cwise]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, tf::DT_FLOAT, Shape({2}));
  auto b = ops::Placeholder(root, tf::DT_FLOAT, Shape({3}));
  ops::Maximum(root, a, b);
  CHECK_FALSE(root.ok());

  // Equal with incompatible_shape_error=false accepts them, with an unknown shape.
  Scope other = Scope::NewRootScope();
  auto a2 = ops::Placeholder(other, tf::DT_FLOAT, Shape({2}));
  auto b2 = ops::Placeholder(other, tf::DT_FLOAT, Shape({3}));
  auto eq = ops::Equal(other, a2, b2, {/*incompatible_shape_error=*/false});
  REQUIRE(other.ok());
  CHECK(eq.shape().unknown_rank());
}

TEST_CASE("Select's condition is a scalar, a vector over rows, or of t's shape; SelectV2 broadcasts", "[cwise]") {
  Scope root = Scope::NewRootScope();
  auto t = ops::Placeholder(root, tf::DT_FLOAT, Shape({4, 3}));
  auto rows = ops::Placeholder(root, tf::DT_BOOL, Shape({4}));
  auto s = ops::Select(root, rows, t, t);
  REQUIRE(root.ok());
  CHECK(s.type() == tf::DT_FLOAT);
  CHECK(s.shape().DebugString() == "[4,3]");
  auto col = ops::Placeholder(root, tf::DT_BOOL, Shape({4, 1}));
  auto v2 = ops::SelectV2(root, col, ops::Placeholder(root, tf::DT_FLOAT, Shape({3})), 0.f);
  REQUIRE(root.ok());
  CHECK(v2.shape().DebugString() == "[4,3]");
  auto bad_rows = ops::Placeholder(root, tf::DT_BOOL, Shape({5}));
  ops::Select(root, bad_rows, t, t);
  CHECK_FALSE(root.ok());
}

}  // namespace
}  // namespace tensoract
