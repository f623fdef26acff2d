// The shape functions of the segment reductions and of Einsum, as TensorFlow 2.21's: the
// shapes TensorFlow printed for these placeholders (tf.compat.v1 graph mode), and what it
// refuses when the graph is built.
#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/segment_ops.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kFloat;

using testing::ShapeOf;
using testing::ShapeText;

const DataType kInt = tensorflow::DT_INT32;


Output Ph(const Scope& s, DataType t, std::vector<int64_t> dims) {
  return ops::Placeholder(s, t, PartialTensorShape(dims));
}

TEST_CASE("segment reductions' shapes: [?] + data[1:] sorted, [num_segments] + data[ids rank:] unsorted",
          "[segment][shape]") {
  Scope root = Scope::NewRootScope();
  CHECK(ShapeOf(root, ops::SegmentSum(root, Ph(root, kFloat, {4, 2}), Ph(root, kInt, {4}))) == ShapeText({-1, 2}));
  // The ids' length is the kernel's to check (TensorFlow's shape function does not merge it).
  CHECK(ShapeOf(root, ops::SegmentMax(root, Ph(root, kFloat, {4}), Ph(root, kInt, {3}))) == ShapeText({-1}));
  CHECK(ShapeOf(root, ops::UnsortedSegmentMax(root, Ph(root, kFloat, {4, 3, 2}), Ph(root, kInt, {4, 3}), 7)) ==
        ShapeText({7, 2}));
  CHECK(ShapeOf(root, ops::UnsortedSegmentProd(root, Ph(root, kFloat, {4, 2}), Ph(root, kInt, {4}),
                                               Ph(root, kInt, {}))) == ShapeText({-1, 2}));
  CHECK(ShapeOf(root, ops::UnsortedSegmentSum(root, Ph(root, kFloat, {4, 2}),
                                              ops::Placeholder(root, kInt, PartialTensorShape()), 2)) ==
        PartialTensorShape().DebugString());
}

TEST_CASE("segment reductions refuse at build time what TensorFlow's shape functions refuse", "[segment][shape]") {
  auto status = [](auto build) {
    Scope root = Scope::NewRootScope();
    build(root);
    return root.status();
  };
  Status s = status([](const Scope& r) { ops::SegmentSum(r, Ph(r, kFloat, {}), Ph(r, kInt, {4})); });
  CHECK_THAT(s.message(), Catch::Contains("must be at least rank 1"));
  s = status([](const Scope& r) { ops::SegmentMin(r, Ph(r, kFloat, {4}), Ph(r, kInt, {2, 2})); });
  CHECK_THAT(s.message(), Catch::Contains("must be rank 1"));
  s = status([](const Scope& r) { ops::UnsortedSegmentMax(r, Ph(r, kFloat, {4, 2}), Ph(r, kInt, {4}), -1); });
  CHECK_THAT(s.message(), Catch::Contains("Dimension size, given by scalar input 2, must be non-negative but is -1"));
  s = status([](const Scope& r) { ops::UnsortedSegmentMin(r, Ph(r, kFloat, {4, 2}), Ph(r, kInt, {3}), 2); });
  CHECK(s.code() == error::INVALID_ARGUMENT);
  s = status([](const Scope& r) { ops::UnsortedSegmentProd(r, Ph(r, kFloat, {4, 2}), Ph(r, kInt, {4, 2, 1}), 2); });
  CHECK(s.code() == error::INVALID_ARGUMENT);
  s = status([](const Scope& r) { ops::UnsortedSegmentSum(r, Ph(r, kFloat, {4, 2}), Ph(r, kInt, {4}), Input({2})); });
  CHECK_THAT(s.message(), Catch::Contains("rank 0"));
}

TEST_CASE("Einsum's shapes: labels' sizes, ellipses broadcast", "[einsum][shape]") {
  Scope root = Scope::NewRootScope();
  CHECK(ShapeOf(root, ops::Einsum(root, {Ph(root, kFloat, {2, 3}), Ph(root, kFloat, {3, 4})}, "ij,jk->ik")) ==
        ShapeText({2, 4}));
  CHECK(ShapeOf(root, ops::Einsum(root, {Ph(root, kFloat, {5, 2, 3}), Ph(root, kFloat, {1, 3, 4})},
                                  "...ij,...jk->...ik")) == ShapeText({5, 2, 4}));
  CHECK(ShapeOf(root, ops::Einsum(root, {Ph(root, kFloat, {-1, 3})}, "ij->ji")) == ShapeText({3, -1}));
  CHECK(ShapeOf(root, ops::Einsum(root, {Ph(root, kFloat, {4, -1})}, "ii->i")) == ShapeText({4}));
  CHECK(ShapeOf(root, ops::Einsum(root, {Ph(root, kFloat, {3})}, "i->ii")) == ShapeText({3, 3}));
  CHECK(ShapeOf(root, ops::Einsum(root, {ops::Placeholder(root, kFloat, PartialTensorShape())}, "...i->...")) ==
        PartialTensorShape().DebugString());
}

TEST_CASE("Einsum refuses at build time what TensorFlow's shape function refuses", "[einsum][shape]") {
  auto message = [](const char* eq, std::vector<std::vector<int64_t>> shapes) {
    Scope root = Scope::NewRootScope();
    std::vector<Input> xs;
    for (auto& s : shapes) xs.push_back(s.empty() ? ops::Placeholder(root, kFloat, PartialTensorShape()) : Ph(root, kFloat, s));
    ops::Einsum(root, xs, eq);
    REQUIRE(!root.status().ok());
    CHECK(root.status().code() == error::INVALID_ARGUMENT);
    return root.status().message();
  };
  CHECK_THAT(message("ij,jk", {{}, {}}), Catch::Contains("Expecting exactly one '->' in einsum equation: ij,jk"));
  CHECK_THAT(message("ij,jk,kl->il", {{}, {}}),
             Catch::Contains("Expecting 1 or 2 input subscripts in equation 'ij,jk,kl->il' but got: 3"));
  CHECK_THAT(message("ij->ij", {{}, {}}), Catch::Contains("Expected 1 inputs"));
  CHECK_THAT(message("i.j->ij", {{}}), Catch::Contains("Expected at most one ellipsis (...), but found 1 periods"));
  CHECK_THAT(message("..i.->i", {{}}), Catch::Contains("Periods found outside of ellipsis in subscript: ..i."));
  CHECK_THAT(message("ij->k", {{}}),
             Catch::Contains("Einsum output subscripts for equation 'ij->k' has label 'k' which is not present"));
  CHECK_THAT(message("ij,jk->ik", {{2, 3}, {4, 5}}), Catch::Contains("must be equal, but are 3 and 4"));
  CHECK_THAT(message("ij,jk->ik", {{2, 3, 4}, {3, 4}}), Catch::Contains("for 0th input and equation: ij,jk->ik"));
  CHECK_THAT(message("...ij,jk->ik", {{2, 3, 4}, {4, 5}}),
             Catch::Contains("without ellipsis (...) in the output subscripts"));
  CHECK_THAT(message("...ij,...jk->...ik", {{5, 2, 3}, {2, 3, 4}}), Catch::Contains("5"));
}

}  // namespace
}  // namespace tensoract
