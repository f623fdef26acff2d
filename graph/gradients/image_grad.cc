// The gradient of ResizeBilinear (graph/ops/image_ops.cc), as TensorFlow's image_grad.py
// builds it: ResizeBilinearGrad with the forward op's attrs; `size` has none.
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

}  // namespace
}  // namespace grad
}  // namespace tensoract
