// Numeric checks (central differences through a Session, client/gradient_checker.h) of the
// gradients of ReverseV2, MirrorPad, MirrorPadGrad, v1 Gather, DynamicStitch,
// ParallelDynamicStitch, GatherNd, ScatterNd, Cumsum, Cumprod, TopKV2 and ClipByValue, in
// double.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"

namespace tensoract {
namespace {

using testing::kDouble;
using testing::Values;


// No two entries equal (TopKV2 and ClipByValue have kinks at ties) and none at a clip bound.
const Tensor kIndexX = Values({1, 2.5, -3, 0.5, 1.75, -2}, {2, 3});

// y = f(x) with x a placeholder of `value`'s shape (or of unknown shape).
template <class F>
void CheckIndexGradient(const char* what, F f, const Tensor& value = kIndexX, bool known_shape = true) {
  INFO(what);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble,
                            known_shape ? PartialTensorShape(value.shape().dim_sizes()) : PartialTensorShape());
  testing::CheckGradient(root, {x}, {value}, f(root, x));
}

TEST_CASE("ReverseV2, MirrorPad and MirrorPadGrad gradients", "[gradients]") {
  CheckIndexGradient("ReverseV2", [](const Scope& s, Output x) { return ops::ReverseV2(s, ops::Square(s, x), {0, -1}); });
  CheckIndexGradient("ReverseV2 of unknown shape", [](const Scope& s, Output x) {
    return ops::Mul(s, ops::ReverseV2(s, x, {1}), x);
  }, kIndexX, /*known_shape=*/false);
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    INFO(mode);
    CheckIndexGradient("MirrorPad", [mode](const Scope& s, Output x) {
      return ops::Square(s, ops::MirrorPad(s, x, {{1, 1}, {2, 1}}, mode));
    });
    CheckIndexGradient("MirrorPadGrad", [mode](const Scope& s, Output x) {
      return ops::Square(s, ops::MirrorPadGrad(s, x, {{1, 1}, {1, 1}}, mode));
    }, Values({1, 2, -3, 0.5, 1.5, -2, 0.25, -1, 2, 3, -0.5, 1.25, 0.75, -1.5, 2.5, 1, -2.5, 0.3, 3, -0.7}, {4, 5}));
  }
}

TEST_CASE("v1 Gather, DynamicStitch and ParallelDynamicStitch gradients", "[gradients]") {
  CheckIndexGradient("Gather, repeated indices", [](const Scope& s, Output x) {
    return ops::Square(s, ops::Gather(s, x, {{1, 0}, {1, 1}}));
  });
  CheckIndexGradient("Gather of unknown shape", [](const Scope& s, Output x) {
    return ops::Gather(s, x, {1, 0, 1});
  }, kIndexX, /*known_shape=*/false);
  CheckIndexGradient("DynamicStitch", [](const Scope& s, Output x) {
    // rows 1 and 0 from x, rows 3 and 2 from x squared: each data row lands once.
    return ops::DynamicStitch(s, {Input({1, 0}), Input({3, 2})}, {x, ops::Square(s, x)});
  });
  CheckIndexGradient("ParallelDynamicStitch, scalar indices", [](const Scope& s, Output x) {
    OutputList rows = ops::Unstack(s, x, 2, 0);
    return ops::ParallelDynamicStitch(s, {Input(1), Input(0)}, {ops::Square(s, rows[0]), rows[1]});
  });
}

TEST_CASE("GatherNd and ScatterNd gradients", "[gradients]") {
  CheckIndexGradient("GatherNd, slices and a repeated tuple", [](const Scope& s, Output x) {
    return ops::Square(s, ops::GatherNd(s, x, {{1}, {0}, {1}}));
  });
  CheckIndexGradient("GatherNd, elements, int64 tuples", [](const Scope& s, Output x) {
    return ops::GatherNd(s, x, Input({{int64_t{1}, int64_t{2}}, {int64_t{0}, int64_t{0}}}));
  }, kIndexX, /*known_shape=*/false);
  CheckIndexGradient("ScatterNd", [](const Scope& s, Output x) {
    return ops::Square(s, ops::ScatterNd(s, {{2}, {0}}, x, {4, 3}));
  });
}

TEST_CASE("Cumsum and Cumprod gradients, exclusive and reversed", "[gradients]") {
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      INFO("exclusive " << exclusive << " reverse " << reverse);
      CheckIndexGradient("Cumsum", [=](const Scope& s, Output x) {
        return ops::Square(s, ops::Cumsum(s, x, 1, {exclusive, reverse}));
      });
      CheckIndexGradient("Cumprod", [=](const Scope& s, Output x) {
        return ops::Cumprod(s, x, -1, {exclusive, reverse});
      });
      CheckIndexGradient("Cumprod on axis 0, unknown shape", [=](const Scope& s, Output x) {
        return ops::Cumprod(s, x, 0, {exclusive, reverse});
      }, kIndexX, /*known_shape=*/false);
    }
  }
}

TEST_CASE("TopKV2 and ClipByValue gradients", "[gradients]") {
  CheckIndexGradient("TopKV2", [](const Scope& s, Output x) {
    ops::TopKV2Outputs top = ops::TopKV2(s, x, 2);
    return ops::Mul(s, top.values, {{1.0, -2.0}, {0.5, 3.0}});
  });
  CheckIndexGradient("TopKV2 of unknown shape, int64 indices", [](const Scope& s, Output x) {
    return ops::Square(s, ops::TopKV2(s, x, 3, {true, tensorflow::DT_INT64}).values);
  }, Values({1, 2.5, -3, 0.5, 1.75, -2, 4, 0.25}, {2, 4}), /*known_shape=*/false);
  CheckIndexGradient("ClipByValue, scalar bounds", [](const Scope& s, Output x) {
    return ops::Square(s, ops::ClipByValue(s, x, -1.5, 2.0));
  });
  // Bounds fed too: their gradients are dy where t fell below (above) them, summed to their shape.
  Scope root = Scope::NewRootScope();
  auto t = ops::Placeholder(root.WithOpName("t"), kDouble, PartialTensorShape({2, 3}));
  auto lo = ops::Placeholder(root.WithOpName("lo"), kDouble, PartialTensorShape(std::vector<int64_t>{}));
  auto hi = ops::Placeholder(root.WithOpName("hi"), kDouble, PartialTensorShape({2, 3}));
  testing::CheckGradient(root, {t, lo, hi}, {kIndexX, Tensor::Scalar<double>(-1.5), Values({0.75, 2, 0, 1, 3, 1}, {2, 3})},
        ops::Square(root, ops::ClipByValue(root, t, lo, hi)));
}

}  // namespace
}  // namespace tensoract
