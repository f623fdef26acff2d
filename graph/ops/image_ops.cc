// Image resizing (Keras' Resizing layer, UpSampling2D): ResizeBilinear, ResizeNearestNeighbor
// and their gradients, with TensorFlow 2.21's OpDefs and shape functions. Images are
// [batch, height, width, channels]; `size` is the new [height, width].
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// TensorFlow's SetOutputToSizedImage: [batch, size[0], size[1], channels], the two sizes
// unknown unless `size` (an int32 vector of 2) is known when the graph is built.
Status ResizeImageShape(InferenceContext* c) {
  PartialTensorShape images, size;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &images));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &size));
  int64_t unused = 0;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(size, 0), 2, &unused));
  int64_t height = shape_inference::kUnknownDim, width = shape_inference::kUnknownDim;
  std::vector<int64_t> values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &values, &known));
  if (known && values.size() == 2) {
    // A negative size stays unknown here; the kernel refuses it.
    height = values[0] >= 0 ? values[0] : shape_inference::kUnknownDim;
    width = values[1] >= 0 ? values[1] : shape_inference::kUnknownDim;
  }
  c->set_output(0, InferenceContext::MakeShape(
                       {InferenceContext::Dim(images, 0), height, width, InferenceContext::Dim(images, 3)}));
  return Status::OK();
}

// ResizeNearestNeighborGrad: grads [batch, h, w, channels] with h and w replaced by `size`.
Status ResizeGradToSizeShape(InferenceContext* c) {
  PartialTensorShape grads, size;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &grads));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &size));
  int64_t unused = 0;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(size, 0), 2, &unused));
  std::vector<int64_t> values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &values, &known));
  int64_t height = shape_inference::kUnknownDim, width = shape_inference::kUnknownDim;
  if (known && values.size() == 2) {
    height = values[0] >= 0 ? values[0] : shape_inference::kUnknownDim;
    width = values[1] >= 0 ? values[1] : shape_inference::kUnknownDim;
  }
  c->set_output(0, InferenceContext::MakeShape(
                       {InferenceContext::Dim(grads, 0), height, width, InferenceContext::Dim(grads, 3)}));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

// TensorFlow's OpDef lists bfloat16 twice in T; so does ours, so that the two compare equal.
REGISTER_OP("ResizeBilinear")
    .Input("images: T").Input("size: int32").Output("resized_images: float")
    .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(tensoract::ResizeImageShape)
    .Doc("Each image resized to `size` by bilinear interpolation, in float. align_corners maps the corner "
         "pixels' centres onto each other; half_pixel_centers samples at pixel centres (x + 0.5).");

// The output is original_image's shape as TensorFlow's shape function says (its kernel takes
// batch and channels from grads).
REGISTER_OP("ResizeBilinearGrad")
    .Input("grads: float").Input("original_image: T").Output("output: T")
    .Attr("T: {float, bfloat16, half, double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(1));
      return tensoract::Status::OK();
    })
    .Doc("ResizeBilinear's gradient: each output's gradient shared among the four pixels it interpolated, "
         "in their weights.");

REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T").Input("size: int32").Output("resized_images: T")
    .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(tensoract::ResizeImageShape)
    .Doc("Each image resized to `size` by taking the nearest pixel.");

REGISTER_OP("ResizeNearestNeighborGrad")
    .Input("grads: T").Input("size: int32").Output("output: T")
    .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(tensoract::ResizeGradToSizeShape)
    .Doc("ResizeNearestNeighbor's gradient: each output's gradient added to the pixel it was taken from, in an "
         "image of `size`.");
