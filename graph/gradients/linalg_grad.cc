// Gradients of Cholesky, MatrixSolve and MatrixTriangularSolve (graph/ops/linalg_ops.cc), built
// as TensorFlow's linalg_grad.py builds them.
#include "graph/builder/matrix_diag_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

Output AdjointMatMul(const Scope& s, const Output& x, const Output& y, bool adj_x, bool adj_y) {
  ops::BatchMatMulV2Attrs a;
  a.adj_x = adj_x;
  a.adj_y = adj_y;
  return ops::BatchMatMulV2(s, x, y, a);
}

// l^-H ((l^H dy) with its diagonal halved, lower triangle) l^-1, made symmetric and halved.
Status CholeskyGradient(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output l = OpOutput(op, 0);
  Output eye = ops::MatrixDiag(s, ops::OnesLike(s, ops::MatrixDiagPart(s, l)));
  Output l_inverse = ops::TypedOp(s, "MatrixTriangularSolve", {l, eye},
                                  {{"lower", ops::BoolAttr(true)}, {"adjoint", ops::BoolAttr(false)}});
  Output middle = AdjointMatMul(s, l, dy[0], true, false);
  middle = ops::MatrixSetDiag(s, middle, ops::Mul(s, ScalarLike(s, 0.5, l), ops::MatrixDiagPart(s, middle)));
  middle = ops::MatrixBandPart(s, middle, int64_t{-1}, int64_t{0});
  Output grad_a = AdjointMatMul(s, AdjointMatMul(s, l_inverse, middle, true, false), l_inverse, false, false);
  // grad_a + adjoint(grad_a): the transpose of the last two dimensions, for real types.
  Output rank = ops::Rank(s, grad_a);
  Output perm = ops::Concat(s, {ops::Range(s, 0, ops::Sub(s, rank, 2), 1),
                                  ops::Stack(s, {ops::Sub(s, rank, 1), ops::Sub(s, rank, 2)})}, 0);
  grad_a = ops::AddV2(s, grad_a, ops::Transpose(s, grad_a, perm));
  (*dx)[0] = ops::Mul(s, grad_a, ScalarLike(s, 0.5, l));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Cholesky", CholeskyGradient);

// The solve's gradients: dB = solve(A^H, dy), dA = -dB X^H (or -X dB^H for the adjoint).
Status MatrixSolveGradient(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  bool adjoint = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "adjoint", &adjoint));
  Output a = InputOf(op, 0), c = OpOutput(op, 0);
  Output grad_b = ops::TypedOp(s, "MatrixSolve", {a, dy[0]}, {{"adjoint", ops::BoolAttr(!adjoint)}});
  Output grad_a = adjoint ? AdjointMatMul(s, c, grad_b, false, true) : AdjointMatMul(s, grad_b, c, false, true);
  (*dx)[0] = ops::Neg(s, grad_a);
  (*dx)[1] = grad_b;
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixSolve", MatrixSolveGradient);

// As MatrixSolve's, dA kept to the triangle that was read and both summed back over the batch
// dimensions they were broadcast along.
Status MatrixTriangularSolveGradient(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                     std::vector<Output>* dx) {
  bool adjoint = false, lower = true;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "adjoint", &adjoint));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "lower", &lower));
  Output a = InputOf(op, 0), b = InputOf(op, 1), c = OpOutput(op, 0);
  Output grad_b = ops::TypedOp(s, "MatrixTriangularSolve", {a, dy[0]},
                               {{"lower", ops::BoolAttr(lower)}, {"adjoint", ops::BoolAttr(!adjoint)}});
  Output grad_a = ops::Neg(s, adjoint ? AdjointMatMul(s, c, grad_b, false, true) : AdjointMatMul(s, grad_b, c, false, true));
  grad_a = lower ? ops::MatrixBandPart(s, grad_a, int64_t{-1}, int64_t{0})
                 : ops::MatrixBandPart(s, grad_a, int64_t{0}, int64_t{-1});
  Output a_shape = ops::Shape(s, a), b_shape = ops::Shape(s, b);
  Output a_batch = ops::Slice(s, a_shape, {0}, ops::Reshape(s, ops::Sub(s, ops::Size(s, a_shape), 2), {1}));
  Output b_batch = ops::Slice(s, b_shape, {0}, ops::Reshape(s, ops::Sub(s, ops::Size(s, b_shape), 2), {1}));
  Node* args = s.AddOp("BroadcastGradientArgs", "BroadcastGradientArgs", {a_batch, b_batch},
                       {{"T", ops::TypeAttr(tensorflow::DT_INT32)}});
  (*dx)[0] = ops::Reshape(s, ops::Sum(s, grad_a, Output(args, 0)), a_shape);
  (*dx)[1] = ops::Reshape(s, ops::Sum(s, grad_b, Output(args, 1)), b_shape);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixTriangularSolve", MatrixTriangularSolveGradient);

}  // namespace
}  // namespace grad
}  // namespace tensoract
