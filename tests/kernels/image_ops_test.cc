// ResizeBilinear, ResizeBilinearGrad (kernels/cpu/resize_bilinear_op.cc), ResizeNearestNeighbor
// and ResizeNearestNeighborGrad (resize_nearest_neighbor_op.cc) on hand-worked images: where each sampling convention puts its samples, the gradient's weights, and
// TensorFlow's refusals. The harness (tests/compat, family image) compares both ops with
// TensorFlow over random and edge values; tests/actors/gradient_check_image_test.cc checks
// the gradient by central differences.
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::BoolA;
using testing::RunOp;
using testing::TypeA;

testing::AttrMap ResizeAttrs(DataType t, bool align_corners, bool half_pixel_centers) {
  return {{"T", TypeA(t)}, {"align_corners", BoolA(align_corners)}, {"half_pixel_centers", BoolA(half_pixel_centers)}};
}

Tensor Size(int32_t h, int32_t w) { return Tensor::FromVector<int32_t>({h, w}, TensorShape({2})); }

// [[0, 10], [20, 30]] as a 1x2x2x1 image.
const Tensor& Corners() {
  static const Tensor t = Tensor::FromVector<float>({0, 10, 20, 30}, TensorShape({1, 2, 2, 1}));
  return t;
}

TEST_CASE("ResizeBilinear samples at x * scale, at the corners' centres, or at pixel centres") {
  // align_corners, 2x2 -> 3x3: scale (2-1)/(3-1) = 0.5, samples at 0, 0.5, 1.
  auto r = RunOp("ResizeBilinear", {Corners(), Size(3, 3)}, ResizeAttrs(tensorflow::DT_FLOAT, true, false));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 3, 3, 1}));
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{0, 5, 10, 10, 15, 20, 20, 25, 30});
  // Legacy, 2x2 -> 4x4: scale 0.5, samples at 0, 0.5, 1, 1.5; 1.5 is clamped to the last pixel.
  r = RunOp("ResizeBilinear", {Corners(), Size(4, 4)}, ResizeAttrs(tensorflow::DT_FLOAT, false, false));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) ==
        std::vector<float>{0, 5, 10, 10, 10, 15, 20, 20, 20, 25, 30, 30, 20, 25, 30, 30});
  // half_pixel_centers, 2x2 -> 4x4: samples at (i + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25;
  // the outer two are clamped to the edge pixels.
  r = RunOp("ResizeBilinear", {Corners(), Size(4, 4)}, ResizeAttrs(tensorflow::DT_FLOAT, false, true));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) ==
        std::vector<float>{0, 2.5, 7.5, 10, 5, 7.5, 12.5, 15, 15, 17.5, 22.5, 25, 20, 22.5, 27.5, 30});
}

TEST_CASE("ResizeBilinear of an integer image gives float; an empty batch gives an empty output") {
  const Tensor u8 = Tensor::FromVector<uint8_t>({0, 10, 20, 30}, TensorShape({1, 2, 2, 1}));
  auto r = RunOp("ResizeBilinear", {u8, Size(3, 3)}, ResizeAttrs(tensorflow::DT_UINT8, true, false));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].dtype() == tensorflow::DT_FLOAT);
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{0, 5, 10, 10, 15, 20, 20, 25, 30});
  const Tensor empty = Tensor::FromVector<float>({}, TensorShape({0, 2, 2, 3}));
  r = RunOp("ResizeBilinear", {empty, Size(5, 1)}, ResizeAttrs(tensorflow::DT_FLOAT, false, false));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({0, 5, 1, 3}));
}

TEST_CASE("ResizeBilinear refuses what TensorFlow's kernel refuses") {
  auto refused = [](const Tensor& image, const Tensor& size, bool ac, bool hp, const char* message) {
    INFO(message);
    auto r = testing::RunMaybe("ResizeBilinear", {image, size}, ResizeAttrs(tensorflow::DT_FLOAT, ac, hp));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains(message));
  };
  refused(Corners(), Size(3, 3), true, true, "If half_pixel_centers is True, align_corners must be False.");
  refused(Tensor::FromVector<float>({1, 2}, TensorShape({1, 2, 1})), Size(3, 3), false, false,
          "input must be 4-dimensional[1,2,1]");
  refused(Tensor::FromVector<float>({}, TensorShape({1, 2, 2, 0})), Size(3, 3), false, false,
          "image must have at least one channel");
  refused(Tensor::FromVector<float>({}, TensorShape({1, 0, 2, 1})), Size(3, 3), false, false,
          "input image must be of non-zero size");
  refused(Corners(), Tensor::FromVector<int32_t>({3, 3, 3}, TensorShape({3})), false, false,
          "shape_t must have two elements[3]");
  refused(Corners(), Size(0, 3), false, false, "output dimensions must be positive");
}

TEST_CASE("ResizeBilinearGrad shares each gradient among its four pixels by their weights") {
  // align_corners 2x2 -> 3x3 samples rows (and columns) at 0, 0.5, 1: each pixel takes
  // 1 + 0.5 of the rows' weight and as much of the columns', 2.25 of a gradient of ones.
  const Tensor ones = Tensor::FromVector<float>(std::vector<float>(9, 1.f), TensorShape({1, 3, 3, 1}));
  auto r = RunOp("ResizeBilinearGrad", {ones, Corners()}, ResizeAttrs(tensorflow::DT_FLOAT, true, false));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>(4, 2.25f));
  // One gradient at output (1, 2) of the legacy 2x2 -> 4x4 resize (sample row 0.5, column
  // 1 clamped): half to each row of column 1.
  std::vector<float> g(16, 0.f);
  g[1 * 4 + 2] = 8.f;
  r = RunOp("ResizeBilinearGrad", {Tensor::FromVector<float>(g, TensorShape({1, 4, 4, 1})), Corners()},
            ResizeAttrs(tensorflow::DT_FLOAT, false, false));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{0, 4, 0, 4});
  // Batch and channels come from the gradient, height and width from the image.
  const Tensor two = Tensor::FromVector<float>(std::vector<float>(2 * 3 * 3 * 2, 1.f), TensorShape({2, 3, 3, 2}));
  r = RunOp("ResizeBilinearGrad", {two, Tensor::FromVector<double>({0, 1, 2, 3}, TensorShape({1, 2, 2, 1}))},
            ResizeAttrs(tensorflow::DT_DOUBLE, true, false));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2, 2, 2}));
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>(16, 2.25));
  r = testing::RunMaybe("ResizeBilinearGrad", {Tensor::FromVector<float>({}, TensorShape({1, 0, 3, 1})), Corners()},
                        ResizeAttrs(tensorflow::DT_FLOAT, false, false));
  CHECK_THAT(r.status.message(), Catch::Contains("resized dimensions must be positive"));
}

TEST_CASE("ResizeBilinear's shape: the batch and channels of the image, the size when it is known") {
  std::vector<PartialTensorShape> out;
  REQUIRE(testing::InferShapes("ResizeBilinear", ResizeAttrs(tensorflow::DT_FLOAT, false, false),
                               {PartialTensorShape({2, 5, 5, 3}), PartialTensorShape({2})}, &out)
              .ok());
  CHECK(out[0].DebugString() == PartialTensorShape({2, -1, -1, 3}).DebugString());
  CHECK_FALSE(testing::InferShapes("ResizeBilinear", ResizeAttrs(tensorflow::DT_FLOAT, false, false),
                                   {PartialTensorShape({5, 5, 3}), PartialTensorShape({2})})
                  .ok());
  CHECK_FALSE(testing::InferShapes("ResizeBilinear", ResizeAttrs(tensorflow::DT_FLOAT, false, false),
                                   {PartialTensorShape({2, 5, 5, 3}), PartialTensorShape({3})})
                  .ok());
}

TEST_CASE("ResizeNearestNeighbor takes floor(i * scale), or the half-pixel centre's pixel") {
  const Tensor x = Tensor::FromVector<float>({0, 1, 2, 3}, TensorShape({1, 2, 2, 1}));
  auto r = RunOp("ResizeNearestNeighbor", {x, Size(4, 4)}, ResizeAttrs(tensorflow::DT_FLOAT, false, false));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3});
  // 2 -> 3 with half-pixel centres: (i + 0.5) * 2/3 = 0.33, 1, 1.67 take pixels 0, 1, 1.
  r = RunOp("ResizeNearestNeighbor", {x, Size(3, 3)}, ResizeAttrs(tensorflow::DT_FLOAT, false, true));
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{0, 1, 1, 2, 3, 3, 2, 3, 3});
  r = testing::RunMaybe("ResizeNearestNeighbor", {x, Size(3, 3)}, ResizeAttrs(tensorflow::DT_FLOAT, true, true));
  CHECK_THAT(r.status.message(), Catch::Contains("If half_pixel_centers is True, align_corners must be False."));
}

TEST_CASE("ResizeNearestNeighborGrad adds each gradient pixel into the pixel it was taken from") {
  const Tensor ones = Tensor::FromVector<float>(std::vector<float>(16, 1.f), TensorShape({1, 4, 4, 1}));
  auto r = RunOp("ResizeNearestNeighborGrad", {ones, Size(2, 2)}, ResizeAttrs(tensorflow::DT_FLOAT, false, false));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{4, 4, 4, 4});
  // TensorFlow's gradient kernel takes both conventions at once: (i + 0.5) / 3 rounded puts
  // rows 1-3 (and columns 1-3) on pixel 1.
  r = RunOp("ResizeNearestNeighborGrad", {ones, Size(2, 2)}, ResizeAttrs(tensorflow::DT_FLOAT, true, true));
  REQUIRE(r.status.ok());
  CHECK(testing::Values<float>(r.outputs[0]) == std::vector<float>{1, 3, 3, 9});
  r = testing::RunMaybe("ResizeNearestNeighborGrad", {ones, Size(0, 2)}, ResizeAttrs(tensorflow::DT_FLOAT, false, false));
  CHECK_THAT(r.status.message(), Catch::Contains("shape_t's elements must be positive"));
}

}  // namespace
}  // namespace tensoract
