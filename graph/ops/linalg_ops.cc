// Factorisations and solves of batches of matrices ([..., m, n]): Cholesky, MatrixSolve,
// MatrixTriangularSolve, Qr, SelfAdjointEigV2 and Svd, with TensorFlow 2.21's OpDefs and shape
// functions.
#include <algorithm>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// TensorFlow's BatchUnchangedSquareShapeFn: [..., n, n] in and out.
Status LinalgSquareShape(InferenceContext* c) {
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  if (!InferenceContext::RankKnown(input)) {
    c->set_output(0, InferenceContext::UnknownShape());
    return Status::OK();
  }
  int64_t n;
  TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(input, -2), InferenceContext::Dim(input, -1), &n));
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->Subshape(input, 0, -2, &out));
  TA_RETURN_IF_ERROR(c->Concatenate(out, InferenceContext::Matrix(n, n), &out));
  c->set_output(0, out);
  return Status::OK();
}

// TensorFlow's MatrixSolveShapeFn (square) and MatrixTriangularSolveShapeFn: matrix
// [..., m, m], rhs [..., m, k], out [..., m, k]; the batch dimensions equal (`broadcast`:
// broadcast instead).
Status LinalgSolveShape(InferenceContext* c, bool broadcast) {
  PartialTensorShape lhs, rhs;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &lhs));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &rhs));
  if (!InferenceContext::RankKnown(lhs) || !InferenceContext::RankKnown(rhs)) {
    c->set_output(0, InferenceContext::UnknownShape());
    return Status::OK();
  }
  PartialTensorShape lhs_batch, rhs_batch, batch;
  TA_RETURN_IF_ERROR(c->Subshape(lhs, 0, -2, &lhs_batch));
  TA_RETURN_IF_ERROR(c->Subshape(rhs, 0, -2, &rhs_batch));
  if (broadcast) {
    TA_RETURN_IF_ERROR(shape_inference::BroadcastShapes(*c, lhs_batch, rhs_batch, &batch));
  } else {
    TA_RETURN_IF_ERROR(c->Merge(lhs_batch, rhs_batch, &batch));
  }
  int64_t m, unused;
  TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(lhs, -2), InferenceContext::Dim(lhs, -1), &m));
  TA_RETURN_IF_ERROR(c->MergeDim(m, InferenceContext::Dim(rhs, -2), &unused));
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->Concatenate(batch, InferenceContext::Matrix(m, InferenceContext::Dim(rhs, -1)), &out));
  c->set_output(0, out);
  return Status::OK();
}

// The batch dimensions of a [..., m, n] input and its m, n and min(m, n) (unknown unless
// both are known, or one is 0).
struct LinalgDims {
  PartialTensorShape batch;
  int64_t m = shape_inference::kUnknownDim, n = shape_inference::kUnknownDim, p = shape_inference::kUnknownDim;
};
Status ReadLinalgDims(InferenceContext* c, LinalgDims* d) {
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  if (!InferenceContext::RankKnown(input)) return Status::OK();
  TA_RETURN_IF_ERROR(c->Subshape(input, 0, -2, &d->batch));
  d->m = InferenceContext::Dim(input, -2);
  d->n = InferenceContext::Dim(input, -1);
  if (InferenceContext::ValueKnown(d->m) && InferenceContext::ValueKnown(d->n)) d->p = std::min(d->m, d->n);
  else if (d->m == 0 || d->n == 0) d->p = 0;
  return Status::OK();
}
// batch + dims, or unknown when the batch rank is.
PartialTensorShape LinalgOut(const InferenceContext* c, const LinalgDims& d, std::vector<int64_t> dims) {
  if (!InferenceContext::RankKnown(d.batch)) return InferenceContext::UnknownShape();
  PartialTensorShape out;
  Status s = c->Concatenate(d.batch, InferenceContext::MakeShape(std::move(dims)), &out);
  return s.ok() ? out : InferenceContext::UnknownShape();
}

// TensorFlow's QrShapeFn: q [..., m, m or p], r [..., m or p, n].
Status QrShape(InferenceContext* c) {
  LinalgDims d;
  d.batch = InferenceContext::UnknownShape();
  TA_RETURN_IF_ERROR(ReadLinalgDims(c, &d));
  bool full = false;
  TA_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full));
  c->set_output(0, LinalgOut(c, d, {d.m, full ? d.m : d.p}));
  c->set_output(1, LinalgOut(c, d, {full ? d.m : d.p, d.n}));
  return Status::OK();
}

// TensorFlow's SelfAdjointEigV2ShapeFn: e [..., n], v [..., n, n] (or [0] without compute_v).
Status SelfAdjointEigShape(InferenceContext* c) {
  LinalgDims d;
  d.batch = InferenceContext::UnknownShape();
  TA_RETURN_IF_ERROR(ReadLinalgDims(c, &d));
  int64_t n = d.n;
  if (InferenceContext::RankKnown(d.batch)) TA_RETURN_IF_ERROR(c->MergeDim(d.m, d.n, &n));
  bool compute_v = true;
  TA_RETURN_IF_ERROR(c->GetAttr("compute_v", &compute_v));
  c->set_output(0, LinalgOut(c, d, {n}));
  c->set_output(1, compute_v ? LinalgOut(c, d, {n, n}) : InferenceContext::Vector(0));
  return Status::OK();
}

// TensorFlow's SvdShapeFn: s [..., p], u [..., m, m or p], v [..., n, n or p] (u and v [0]
// without compute_uv).
Status SvdShape(InferenceContext* c) {
  LinalgDims d;
  d.batch = InferenceContext::UnknownShape();
  TA_RETURN_IF_ERROR(ReadLinalgDims(c, &d));
  bool compute_uv = true, full = false;
  TA_RETURN_IF_ERROR(c->GetAttr("compute_uv", &compute_uv));
  TA_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full));
  c->set_output(0, LinalgOut(c, d, {d.p}));
  if (compute_uv) {
    c->set_output(1, LinalgOut(c, d, {d.m, full ? d.m : d.p}));
    c->set_output(2, LinalgOut(c, d, {d.n, full ? d.n : d.p}));
  } else {
    c->set_output(1, InferenceContext::Vector(0));
    c->set_output(2, InferenceContext::Vector(0));
  }
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("Cholesky")
    .Input("input: T").Output("output: T")
    .Attr("T: {double, float, half, complex64, complex128}")
    .SetShapeFn(tensoract::LinalgSquareShape)
    .Doc("The lower-triangular L with L L^H = input, for each matrix (only its lower triangle is read); a matrix "
         "that is not positive definite gives NaN.");

REGISTER_OP("MatrixTriangularSolve")
    .Input("matrix: T").Input("rhs: T").Output("output: T")
    .Attr("lower: bool = true").Attr("adjoint: bool = false")
    .Attr("T: {bfloat16, double, float, half, complex64, complex128}")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) { return tensoract::LinalgSolveShape(c, true); })
    .Doc("X with matrix X = rhs (adjoint: matrix^H X = rhs) for the lower (or upper) triangle of each matrix; the "
         "batch dimensions broadcast.");

REGISTER_OP("MatrixSolve")
    .Input("matrix: T").Input("rhs: T").Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr("T: {double, float, half, complex64, complex128}")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) { return tensoract::LinalgSolveShape(c, false); })
    .Doc("X with matrix X = rhs (adjoint: matrix^H X = rhs), by LU with partial pivoting.");

REGISTER_OP("Qr")
    .Input("input: T").Output("q: T").Output("r: T")
    .Attr("full_matrices: bool = false")
    .Attr("T: {double, float, half, complex64, complex128}")
    .SetShapeFn(tensoract::QrShape)
    .Doc("Each matrix as q r: q with orthonormal columns, r upper triangular (Householder reflections, signs as "
         "they fall).");

REGISTER_OP("SelfAdjointEigV2")
    .Input("input: T").Output("e: T").Output("v: T")
    .Attr("compute_v: bool = true")
    .Attr("T: {double, float, half, complex64, complex128}")
    .SetShapeFn(tensoract::SelfAdjointEigShape)
    .Doc("The eigenvalues (ascending) and eigenvectors (columns of v) of each self-adjoint matrix, of which only "
         "the lower triangle is read.");

REGISTER_OP("Svd")
    .Input("input: T").Output("s: T").Output("u: T").Output("v: T")
    .Attr("compute_uv: bool = true").Attr("full_matrices: bool = false")
    .Attr("T: {double, float, half, complex64, complex128}")
    .SetShapeFn(tensoract::SvdShape)
    .Doc("The singular values (descending) of each matrix and, with compute_uv, u and v with input = u diag(s) v^H.");
