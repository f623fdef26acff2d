// The gradients of ResizeBilinear and ResizeNearestNeighbor (graph/ops/image_ops.cc), as
// TensorFlow's image_grad.py builds them: their gradient ops with the forward op's attrs;
// `size` has none.
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

Status ResizeBilinearGradient(const Scope& s, const Node& op, const std::vector<Output>& dy,
                              std::vector<Output>* dx) {
  Output images = InputOf(op, 0);
  ops::Attrs attrs = AttrsOf(op, {"align_corners", "half_pixel_centers"});
  attrs["T"] = ops::TypeAttr(images.type());
  (*dx)[0] = Output(s.AddOp("ResizeBilinearGrad", "ResizeBilinearGrad", {dy[0], images}, attrs), 0);
  return Status::OK();
}
REGISTER_GRADIENT_OP("ResizeBilinear", ResizeBilinearGradient);

// ResizeNearestNeighborGrad back to the image's height and width (Shape(image)[1:3]).
Status ResizeNearestNeighborGradient(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                     std::vector<Output>* dx) {
  Output images = InputOf(op, 0);
  Output size = ops::Slice(s, ops::Shape(s, images), {1}, {2});
  ops::Attrs attrs = AttrsOf(op, {"align_corners", "half_pixel_centers"});
  attrs["T"] = ops::TypeAttr(images.type());
  (*dx)[0] = Output(s.AddOp("ResizeNearestNeighborGrad", "ResizeNearestNeighborGrad", {dy[0], size}, attrs), 0);
  return Status::OK();
}
REGISTER_GRADIENT_OP("ResizeNearestNeighbor", ResizeNearestNeighborGradient);

}  // namespace
}  // namespace grad
}  // namespace tensoract
