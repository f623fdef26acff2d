// Gradients of SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace
// (graph/ops/array_space_ops.cc), as TensorFlow's array_grad.py builds them: each op only
// moves elements (SpaceToBatchND's padding is zeros), so each is the other's gradient.
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

Status SpaceToBatchNDGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::BatchToSpaceND(s, dy[0], InputOf(op, 1), InputOf(op, 2));
  return Status::OK();
}
REGISTER_GRADIENT_OP("SpaceToBatchND", SpaceToBatchNDGrad);

Status BatchToSpaceNDGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::SpaceToBatchND(s, dy[0], InputOf(op, 1), InputOf(op, 2));
  return Status::OK();
}
REGISTER_GRADIENT_OP("BatchToSpaceND", BatchToSpaceNDGrad);

// TensorFlow refuses NCHW_VECT_C here ("Cannot compute SpaceToDepth gradient with
// NCHW_VECT_C"): the layout is for quantized int8, which has no gradient.
Status SpaceDepthGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx,
                      bool to_depth) {
  int64_t block_size = 0;
  std::string format;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "block_size", &block_size));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "data_format", &format));
  if (format == "NCHW_VECT_C") {
    return errors::InvalidArgument("Cannot compute ", op.type_string(), " gradient with NCHW_VECT_C. NCHW_VECT_C ",
                                   "requires qint8 data type.");
  }
  (*dx)[0] = to_depth ? ops::DepthToSpace(s, dy[0], block_size, format)
                      : ops::SpaceToDepth(s, dy[0], block_size, format);
  return Status::OK();
}

Status SpaceToDepthGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return SpaceDepthGrad(s, op, dy, dx, /*to_depth=*/true);
}
REGISTER_GRADIENT_OP("SpaceToDepth", SpaceToDepthGrad);

Status DepthToSpaceGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return SpaceDepthGrad(s, op, dy, dx, /*to_depth=*/false);
}
REGISTER_GRADIENT_OP("DepthToSpace", DepthToSpaceGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
