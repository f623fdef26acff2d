// Gradients of BatchMatMul (v1) and BatchMatMulV3, as TensorFlow's math_grad.py builds them:
// MatMul's four adjoint cases with the op itself; v1's sides have the output's batch
// dimensions, V3's are summed over those they were broadcast along (as BatchMatMulV2's,
// graph/gradients/math_grad.cc).
#include "graph/builder/batch_matmul_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

using Product = Output (*)(const Scope&, const Input&, const Input&, ops::BatchMatMulV2Attrs);

// dx and dy of x * y (with adj_x, adj_y) over the output's batch dimensions.
Status Products(const Scope& s, const Node& op, const Output& g, Product product, Output* gx, Output* gy) {
  bool adj_x = false, adj_y = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "adj_x", &adj_x));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "adj_y", &adj_y));
  Output x = InputOf(op, 0), y = InputOf(op, 1);
  if (Needed(op, 0)) *gx = !adj_x ? product(s, g, y, {false, !adj_y}) : product(s, y, g, {adj_y, true});
  if (Needed(op, 1)) *gy = !adj_y ? product(s, x, g, {!adj_x, false}) : product(s, g, x, {true, adj_x});
  return Status::OK();
}

Output V3(const Scope& s, const Input& x, const Input& y, ops::BatchMatMulV2Attrs a) {
  return ops::BatchMatMulV3(s, x, y, a);
}

Status BatchMatMulGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Product v1 = [](const Scope& sc, const Input& x, const Input& y, ops::BatchMatMulV2Attrs a) {
    return ops::BatchMatMul(sc, x, y, a);
  };
  return Products(s, op, dy[0], v1, &(*dx)[0], &(*dx)[1]);
}
REGISTER_GRADIENT_OP("BatchMatMul", BatchMatMulGrad);

Status BatchMatMulV3Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output gx, gy;
  TA_RETURN_IF_ERROR(Products(s, op, dy[0], V3, &gx, &gy));
  Output x = InputOf(op, 0), y = InputOf(op, 1);
  Output sx = ops::Shape(s, x), sy = ops::Shape(s, y);
  Output bx = ops::StridedSlice(s, sx, {0}, {-2}, {1}), by = ops::StridedSlice(s, sy, {0}, {-2}, {1});
  ops::BroadcastGradientArgsOutputs r = ops::BroadcastGradientArgs(s, bx, by);
  if (gx.node != nullptr) (*dx)[0] = ops::Reshape(s, ops::Sum(s, gx, r.r0), sx);
  if (gy.node != nullptr) (*dx)[1] = ops::Reshape(s, ops::Sum(s, gy, r.r1), sy);
  return Status::OK();
}
REGISTER_GRADIENT_OP("BatchMatMulV3", BatchMatMulV3Grad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
