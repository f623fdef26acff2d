// Gradients of Cholesky, MatrixSolve, MatrixTriangularSolve, SelfAdjointEigV2, Svd and Qr
// (graph/ops/linalg_ops.cc), built as TensorFlow's linalg_grad.py builds them. Svd's and Qr's,
// like TensorFlow's, need the matrices' sizes when the graph is built (they slice by them) and
// are Unimplemented otherwise, as are Svd's full_matrices case for sizes more than 1 apart and
// Qr's for more rows than columns.
#include <utility>

#include "graph/builder/math_more_ops.h"
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

// The adjoint of each matrix: its last two dimensions swapped, conjugated when complex
// (TensorFlow's _linalg.adjoint).
Output LastTwoTransposed(const Scope& s, const Output& x) {
  Output rank = ops::Rank(s, x);
  Output perm = ops::Concat(s, {ops::Range(s, 0, ops::Sub(s, rank, 2), 1),
                                ops::Stack(s, {ops::Sub(s, rank, 1), ops::Sub(s, rank, 2)})},
                            0);
  return ops::ConjIfComplex(s, ops::Transpose(s, x, perm));
}

bool IsComplexType(DataType t) { return t == tensorflow::DT_COMPLEX64 || t == tensorflow::DT_COMPLEX128; }

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
  grad_a = ops::AddV2(s, grad_a, LastTwoTransposed(s, grad_a));
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

// TensorFlow's _SafeReciprocal: x / (x^2 + 1e-20), finite where eigenvalues coincide.
Output SafeReciprocal(const Scope& s, const Output& x) {
  return ops::Mul(s, x, ops::Reciprocal(s, ops::AddV2(s, ops::Mul(s, x, x), ScalarLike(s, 1e-20, x))));
}

// v (diag(de) + f * (v^H dv)) v^H with f[i][j] = 1 / (e_j - e_i) off the diagonal (or, without
// compute_v, v diag(de) v^H from a second factorisation), then kept to the lower triangle that
// was read: L + L^H's lower triangle with its diagonal halved.
Status SelfAdjointEigV2Gradient(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                std::vector<Output>* dx) {
  bool compute_v = true;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "compute_v", &compute_v));
  Output e = OpOutput(op, 0);
  Output grad_a;
  if (compute_v) {
    Output v = OpOutput(op, 1);
    Output diff = ops::Sub(s, ops::ExpandDims(s, e, -2), ops::ExpandDims(s, e, -1));
    Output f = ops::MatrixSetDiag(s, SafeReciprocal(s, diff), ops::ZerosLike(s, e));
    Output inner = ops::AddV2(s, ops::MatrixDiag(s, dy[0]), ops::Mul(s, f, AdjointMatMul(s, v, dy[1], true, false)));
    grad_a = AdjointMatMul(s, v, AdjointMatMul(s, inner, v, false, true), false, false);
  } else {
    Node* eig = s.AddOp("SelfAdjointEigV2", "SelfAdjointEigV2", {InputOf(op, 0)},
                        {{"T", ops::TypeAttr(e.type())}, {"compute_v", ops::BoolAttr(true)}});
    Output v(eig, 1);
    grad_a = AdjointMatMul(s, v, AdjointMatMul(s, ops::MatrixDiag(s, dy[0]), v, false, true), false, false);
  }
  grad_a = ops::MatrixBandPart(s, ops::AddV2(s, grad_a, LastTwoTransposed(s, grad_a)), int64_t{-1}, int64_t{0});
  (*dx)[0] = ops::MatrixSetDiag(s, grad_a, ops::Mul(s, ScalarLike(s, 0.5, e), ops::MatrixDiagPart(s, grad_a)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("SelfAdjointEigV2", SelfAdjointEigV2Gradient);

// x[..., :, start:start + count].
Output LastColumns(const Scope& s, const Output& x, int64_t start, int64_t count) {
  Output lead = ops::Reshape(s, ops::Sub(s, ops::Rank(s, x), 1), {1});
  Output begin = ops::Concat(s, {ops::Fill(s, lead, 0), ops::Const(s, {static_cast<int32_t>(start)})}, 0);
  Output size = ops::Concat(s, {ops::Fill(s, lead, -1), ops::Const(s, {static_cast<int32_t>(count)})}, 0);
  return ops::Slice(s, x, begin, size);
}

Status SvdGradient(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  bool compute_uv = true, full = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "compute_uv", &compute_uv));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "full_matrices", &full));
  Output a = InputOf(op, 0);
  Output grad_s_mat = ops::MatrixDiag(s, dy[0]);
  if (!compute_uv) {
    Node* svd = s.AddOp("Svd", "Svd", {a}, {{"T", ops::TypeAttr(a.type())}, {"compute_uv", ops::BoolAttr(true)},
                                            {"full_matrices", ops::BoolAttr(false)}});
    (*dx)[0] = AdjointMatMul(s, Output(svd, 1), AdjointMatMul(s, grad_s_mat, Output(svd, 2), false, true), false,
                             false);
    return Status::OK();
  }
  const PartialTensorShape& shape = a.node->output_shape(a.index);
  // TensorFlow's _SvdGrad reads the sizes from the static shape: of unknown rank it fails
  // indexing its dimensions (a TypeError), of rank < 2 in with_rank_at_least; unknown sizes it
  // refuses as NotImplementedError.
  if (shape.dims() < 2) {
    return errors::InvalidArgument("Svd's gradient needs an input of known rank >= 2, not ", shape.DebugString());
  }
  int64_t m = shape.dim_size(shape.dims() - 2), n = shape.dim_size(shape.dims() - 1);
  if (m < 0 || n < 0) {
    return errors::Unimplemented("SVD gradient has not been implemented for input with unknown inner matrix shape.");
  }
  Output sv = OpOutput(op, 0), u = OpOutput(op, 1), v = OpOutput(op, 2);
  Output grad_u = dy[1], grad_v = dy[2];
  const bool use_adjoint = m > n;
  if (use_adjoint) {
    std::swap(m, n);
    std::swap(u, v);
    std::swap(grad_u, grad_v);
  }
  if (full && n - m > 1) {
    return errors::Unimplemented("svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
                                 "Received: m=", m, " and n=", n);
  }
  Output s_mat = ops::MatrixDiag(s, sv);
  Output s2 = ops::Mul(s, sv, sv);
  Output f = ops::MatrixSetDiag(s, SafeReciprocal(s, ops::Sub(s, ops::ExpandDims(s, s2, -2), ops::ExpandDims(s, s2, -1))),
                                ops::ZerosLike(s, sv));
  Output v1 = LastColumns(s, v, 0, m), grad_v1 = LastColumns(s, grad_v, 0, m);
  Output f_u = ops::Mul(s, f, AdjointMatMul(s, u, grad_u, true, false));
  Output f_v = ops::Mul(s, f, AdjointMatMul(s, v1, grad_v1, true, false));
  Output term1_nouv =
      ops::AddV2(s, ops::AddV2(s, grad_s_mat, AdjointMatMul(s, ops::AddV2(s, f_u, LastTwoTransposed(s, f_u)), s_mat,
                                                            false, false)),
                 AdjointMatMul(s, s_mat, ops::AddV2(s, f_v, LastTwoTransposed(s, f_v)), false, false));
  Output grad = AdjointMatMul(s, u, AdjointMatMul(s, term1_nouv, v1, false, true), false, false);
  if (m != n) {
    Output gv1t = LastTwoTransposed(s, grad_v1);
    Output term2_nous = ops::Sub(s, gv1t, AdjointMatMul(s, AdjointMatMul(s, gv1t, v1, false, false), v1, false, true));
    if (full) {
      Output v2 = LastColumns(s, v, m, n - m), grad_v2 = LastColumns(s, grad_v, m, n - m);
      term2_nous = ops::Sub(s, term2_nous,
                            AdjointMatMul(s, AdjointMatMul(s, v1, grad_v2, true, false), v2, false, true));
    }
    Output s_inv_mat = ops::MatrixDiag(s, SafeReciprocal(s, sv));
    Output term2 = AdjointMatMul(s, AdjointMatMul(s, u, s_inv_mat, false, false), term2_nous, false, false);
    grad = ops::AddV2(s, grad, term2);
  }
  if (IsComplexType(a.type())) {
    // TensorFlow's correction for complex matrices: u (s^-1 (l^H - l) / 2) v1^H with l the
    // diagonal of v1^H dv1.
    Output l = ops::MatrixDiag(s, ops::MatrixDiagPart(s, AdjointMatMul(s, v1, grad_v1, true, false)));
    Output s_inv_mat = ops::MatrixDiag(s, SafeReciprocal(s, sv));
    Output term3_nouv = AdjointMatMul(s, s_inv_mat, ops::Sub(s, LastTwoTransposed(s, l), l), false, false);
    Output term3 = ops::Mul(s, ScalarLike(s, 0.5, sv),
                            AdjointMatMul(s, u, AdjointMatMul(s, term3_nouv, v1, false, true), false, false));
    grad = ops::AddV2(s, grad, term3);
  }
  (*dx)[0] = use_adjoint ? LastTwoTransposed(s, grad) : grad;
  return Status::OK();
}
REGISTER_GRADIENT_OP("Svd", SvdGradient);

// TensorFlow's _QrGrad._TriangularSolve: x r^-H for an upper-triangular r.
Output QrTriangularSolve(const Scope& s, const Output& x, const Output& r) {
  return LastTwoTransposed(s, ops::TypedOp(s, "MatrixTriangularSolve", {r, LastTwoTransposed(s, x)},
                                           {{"lower", ops::BoolAttr(false)}, {"adjoint", ops::BoolAttr(false)}}));
}

// TensorFlow's _QrGradSquareAndDeepMatrices (arXiv 2009.10071), for rows >= columns.
Output QrGradSquareAndDeep(const Scope& s, const Output& q, const Output& r, const Output& dq, const Output& dr) {
  Output qdq = AdjointMatMul(s, q, dq, true, false);
  Output qdq_ = ops::Sub(s, qdq, LastTwoTransposed(s, qdq));
  Output rdr = AdjointMatMul(s, r, dr, false, true);
  Output rdr_ = ops::Sub(s, rdr, LastTwoTransposed(s, rdr));
  Output tril = ops::MatrixBandPart(s, ops::AddV2(s, qdq_, rdr_), int64_t{-1}, int64_t{0});
  Output grad_a = AdjointMatMul(s, q, ops::AddV2(s, dr, QrTriangularSolve(s, tril, r)), false, false);
  Output grad_b = QrTriangularSolve(s, ops::Sub(s, dq, AdjointMatMul(s, q, qdq, false, false)), r);
  Output ret = ops::AddV2(s, grad_a, grad_b);
  if (IsComplexType(q.type())) {
    // TensorFlow's correction for complex matrices: the imaginary part of diag(r dr^H - qdq^H).
    Output m = ops::Sub(s, rdr, LastTwoTransposed(s, qdq));
    Output eyem = ops::MatrixDiag(s, ops::MatrixDiagPart(s, m));
    Output correction = ops::Sub(s, eyem, ops::Cast(s, ops::Real(s, eyem), q.type()));
    ret = ops::AddV2(s, ret, QrTriangularSolve(s, AdjointMatMul(s, q, correction, false, true), r));
  }
  return ret;
}

Status QrGradient(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output q = OpOutput(op, 0), r = OpOutput(op, 1);
  const PartialTensorShape& qs = q.node->output_shape(q.index);
  const PartialTensorShape& rs = r.node->output_shape(r.index);
  const int64_t r_rows = rs.dims() >= 2 ? rs.dim_size(rs.dims() - 2) : -1;
  const int64_t r_cols = rs.dims() >= 2 ? rs.dim_size(rs.dims() - 1) : -1;
  const int64_t q_rows = qs.dims() >= 2 ? qs.dim_size(qs.dims() - 2) : -1;
  const int64_t q_cols = qs.dims() >= 2 ? qs.dim_size(qs.dims() - 1) : -1;
  if (r_rows < 0 || r_cols < 0 || q_rows < 0) {
    return errors::Unimplemented("QrGrad not implemented with dynamic shapes. Received r.shape: ", rs.DebugString());
  }
  if (r_rows > r_cols && q_rows == q_cols) {
    return errors::Unimplemented("QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
                                 "r.shape=", rs.DebugString());
  }
  if (q_rows >= r_cols) {
    (*dx)[0] = QrGradSquareAndDeep(s, q, r, dy[0], dy[1]);
    return Status::OK();
  }
  // Wide: a = [x, y], r = [u, v], reduced to the square case.
  const int64_t m = q_rows, n = r_cols;
  Output y = LastColumns(s, InputOf(op, 0), m, n - m);
  Output u = LastColumns(s, r, 0, m);
  Output dv = LastColumns(s, dy[1], m, n - m), du = LastColumns(s, dy[1], 0, m);
  Output d_y = AdjointMatMul(s, q, dv, false, false);
  Output d_x = QrGradSquareAndDeep(s, q, u, ops::AddV2(s, dy[0], AdjointMatMul(s, y, dv, false, true)), du);
  (*dx)[0] = ops::Concat(s, {d_x, d_y}, -1);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Qr", QrGradient);

}  // namespace
}  // namespace grad
}  // namespace tensoract
