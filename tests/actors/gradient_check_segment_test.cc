// Numeric checks (central differences through a Session, client/gradient_checker.h) of the
// gradients of the segment reductions, Expm1 and Einsum, in double: empty segments,
// negative (dropped) ids, a segment's single zero and two zeros for the products, and
// Einsum's contractions, diagonals, reduced labels and broadcast ellipses.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/segment_ops.h"
#include "graph/gradients/gradients.h"
#include "tests/actors/gradient_check_util.h"

namespace tensoract {
namespace {

using testing::kDouble;
using testing::Values;
using testing::kTolerance;


// Distinct values (no ties for Max/Min), none near 0 but the zeros placed on purpose.
const Tensor kData = Values({1.5, -2, 0.75, 3, -1.25, 2.5, 0.5, -0.6, 1.1, 4, -3.5, 2.2}, {6, 2});

template <class F>
void CheckSegmentGradient(const char* what, F f, const Tensor& value = kData) {
  INFO(what);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape(value.shape().dim_sizes()));
  Output y = f(root, x);
  REQUIRE(root.ok());
  auto err = MaxGradientError(root, {x}, {value}, y);
  INFO(err.status().ToString());
  REQUIRE(err.ok());
  INFO("max error " << err.value());
  CHECK(err.value() < kTolerance);
}

TEST_CASE("gradients of the unsorted segment reductions", "[gradients]") {
  // Segment 2 is empty; ids -1 drop their rows.
  const Input ids = Input({0, -1, 1, 3, 1, -1});
  CheckSegmentGradient("UnsortedSegmentSum", [&](const Scope& s, Output x) { return ops::UnsortedSegmentSum(s, x, ids, 4); });
  CheckSegmentGradient("UnsortedSegmentMax", [&](const Scope& s, Output x) {
    // Its empty segment is lowest(): squared, it would overflow the differences, so it is dropped.
    return ops::Slice(s, ops::UnsortedSegmentMax(s, x, ids, 4), {0, 0}, {2, -1});
  });
  CheckSegmentGradient("UnsortedSegmentMin", [&](const Scope& s, Output x) {
    return ops::Slice(s, ops::UnsortedSegmentMin(s, x, ids, 4), {0, 0}, {2, -1});
  });
  CheckSegmentGradient("UnsortedSegmentProd", [&](const Scope& s, Output x) { return ops::UnsortedSegmentProd(s, x, ids, 4); });
  // A single zero in a segment, and a segment with two.
  CheckSegmentGradient("UnsortedSegmentProd with zeros",
           [&](const Scope& s, Output x) { return ops::UnsortedSegmentProd(s, x, Input({0, 0, 1, 1, 1, 2}), 3); },
           Values({0, 2, 3, 0, 1.5, -2, 0, 0.5, 0, 1.25, 2, 3}, {6, 2}));
  CheckSegmentGradient("UnsortedSegmentSum, ids of two dimensions", [&](const Scope& s, Output x) {
    return ops::UnsortedSegmentSum(s, x, Input({{0, 2}, {1, 0}, {-1, 2}}), 3);
  }, Values({1, 2, 3, 4, 5, 6}, {3, 2}));
}

TEST_CASE("gradients of the sorted segment reductions", "[gradients]") {
  const Input ids = Input({0, 0, 2, 2, 2, 3});  // segment 1 is empty
  CheckSegmentGradient("SegmentSum", [&](const Scope& s, Output x) { return ops::SegmentSum(s, x, ids); });
  CheckSegmentGradient("SegmentMean", [&](const Scope& s, Output x) { return ops::SegmentMean(s, x, ids); });
  CheckSegmentGradient("SegmentMax", [&](const Scope& s, Output x) { return ops::SegmentMax(s, x, ids); });
  CheckSegmentGradient("SegmentMin", [&](const Scope& s, Output x) { return ops::SegmentMin(s, x, ids); });
  CheckSegmentGradient("SegmentProd", [&](const Scope& s, Output x) { return ops::SegmentProd(s, x, ids); });
  CheckSegmentGradient("SegmentProd with zeros", [&](const Scope& s, Output x) { return ops::SegmentProd(s, x, ids); },
           Values({0, 2, 3, 0, 1.5, -2, 0, 0.5, 0, 1.25, 2, 3}, {6, 2}));
}

TEST_CASE("the gradient of Expm1", "[gradients]") {
  CheckSegmentGradient("Expm1", [](const Scope& s, Output x) { return ops::Expm1(s, x); });
  CheckSegmentGradient("Expm1 near 0", [](const Scope& s, Output x) { return ops::Expm1(s, ops::Mul(s, x, x)); },
           Values({1e-3, -2e-4, 0.1, -0.05}, {4}));
}

TEST_CASE("gradients of Einsum", "[gradients]") {
  auto two = [](const char* eq, TensorShape sa, TensorShape sb) {
    INFO(eq);
    Scope root = Scope::NewRootScope();
    auto a = ops::Placeholder(root.WithOpName("a"), kDouble, PartialTensorShape(sa.dim_sizes()));
    auto b = ops::Placeholder(root.WithOpName("b"), kDouble, PartialTensorShape(sb.dim_sizes()));
    Output y = ops::Einsum(root, {a, b}, eq);
    REQUIRE(root.ok());
    std::vector<double> va(sa.num_elements()), vb(sb.num_elements());
    for (size_t i = 0; i < va.size(); ++i) va[i] = 0.3 * static_cast<double>(i % 7) - 0.8;
    for (size_t i = 0; i < vb.size(); ++i) vb[i] = 0.25 * static_cast<double>(i % 5) - 0.4;
    auto err = MaxGradientError(root, {a, b}, {Values(va, sa), Values(vb, sb)}, y);
    INFO(err.status().ToString());
    REQUIRE(err.ok());
    CHECK(err.value() < kTolerance);
  };
  two("ij,jk->ik", {2, 3}, {3, 4});
  two("bij,bkj->bik", {2, 3, 4}, {2, 5, 4});
  two("...ij,...jk->...ik", {2, 1, 2, 3}, {3, 3, 2});
  two("ijk,k->i", {2, 3, 4}, {4});
  two("i,j->ij", {3}, {4});
  two("ij,ij->i", {3, 4}, {3, 4});
  CheckSegmentGradient("ii->i", [](const Scope& s, Output x) { return ops::Einsum(s, {x}, "ii->i"); },
           Values({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3}));
  CheckSegmentGradient("bii->b", [](const Scope& s, Output x) { return ops::Einsum(s, {x}, "bii->b"); },
           Values({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}));
  CheckSegmentGradient("ij->", [](const Scope& s, Output x) { return ops::Einsum(s, {x}, "ij->"); });
  CheckSegmentGradient("ij->ji", [](const Scope& s, Output x) { return ops::Einsum(s, {x}, "ij->ji"); });
  CheckSegmentGradient("i->ii", [](const Scope& s, Output x) { return ops::Einsum(s, {x}, "i->ii"); },
           Values({1, 2, 3}, {3}));
  CheckSegmentGradient("...j->...", [](const Scope& s, Output x) { return ops::Einsum(s, {x}, "...j->..."); });
}

}  // namespace
}  // namespace tensoract
