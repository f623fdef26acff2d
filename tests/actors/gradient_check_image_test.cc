// The gradients of ResizeBilinear (ResizeBilinearGrad) and ResizeNearestNeighbor
// (ResizeNearestNeighborGrad) checked against central differences through a real Session (client/gradient_checker.h): a double image, the float output cast back to
// double. The resize is linear in the image, so a large step (0.1) is exact up to the
// output's float rounding (~1e-7 relative), far below a wrong weight's error.
#include <catch2/catch.hpp>

#include <cmath>

#include "client/gradient_checker.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace {

Tensor ImagePattern(TensorShape shape) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + 0.2);
  return Tensor::FromVector<double>(v, shape);
}

TEST_CASE("ResizeBilinear's gradient: up and down, align_corners, half_pixel_centers", "[gradients][image]") {
  struct ResizeCase {
    const char* name;
    TensorShape image;
    std::vector<int32_t> size;
    bool align_corners, half_pixel_centers;
  };
  const ResizeCase cases[] = {
      {"up 3x4 -> 5x7", {2, 3, 4, 2}, {5, 7}, false, false},
      {"up, align_corners", {1, 3, 4, 2}, {5, 7}, true, false},
      {"up, half_pixel_centers", {1, 3, 4, 1}, {6, 9}, false, true},
      {"down 6x5 -> 4x3, half_pixel_centers", {1, 6, 5, 3}, {4, 3}, false, true},
      {"down, align_corners", {2, 5, 6, 1}, {3, 2}, true, false},
  };
  for (const ResizeCase& c : cases) {
    INFO(c.name);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_DOUBLE);
    Output size = ops::Const(root.WithOpName("size"), {c.size[0], c.size[1]});
    auto resized = ops::TypedOp(root.WithOpName("resized"), "ResizeBilinear", {x, size},
                                {{"align_corners", ops::BoolAttr(c.align_corners)},
                                 {"half_pixel_centers", ops::BoolAttr(c.half_pixel_centers)}});
    Output y = ops::Cast(root.WithOpName("y"), resized, tensorflow::DT_DOUBLE);
    REQUIRE(root.ok());
    auto err = MaxGradientError(root, {x}, {ImagePattern(c.image)}, y, /*delta=*/0.1);
    INFO(err.status().ToString());
    REQUIRE(err.ok());
    CHECK(err.value() < 1e-5);
  }
}

TEST_CASE("ResizeNearestNeighbor's gradient: up and down, align_corners, half_pixel_centers", "[gradients][image]") {
  struct NearestCase {
    const char* name;
    TensorShape image;
    int32_t h, w;
    bool align_corners, half_pixel_centers;
  };
  const NearestCase cases[] = {
      {"up 3x4 -> 5x7", {2, 3, 4, 2}, 5, 7, false, false},
      {"down 6x5 -> 4x3, align_corners", {1, 6, 5, 1}, 4, 3, true, false},
      {"up, half_pixel_centers", {1, 3, 4, 3}, 7, 9, false, true},
  };
  for (const NearestCase& c : cases) {
    INFO(c.name);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_DOUBLE);
    auto y = ops::TypedOp(root.WithOpName("y"), "ResizeNearestNeighbor", {x, ops::Const(root, {c.h, c.w})},
                          {{"align_corners", ops::BoolAttr(c.align_corners)},
                           {"half_pixel_centers", ops::BoolAttr(c.half_pixel_centers)}});
    auto err = MaxGradientError(root, {x}, {ImagePattern(c.image)}, y, /*delta=*/0.1);
    INFO(err.status().ToString());
    REQUIRE(err.ok());
    CHECK(err.value() < 1e-9);
  }
}

}  // namespace
}  // namespace tensoract
