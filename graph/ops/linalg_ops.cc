// Factorisations and solves of batches of matrices ([..., m, n]): Cholesky, MatrixSolve and
// MatrixTriangularSolve, with TensorFlow 2.21's OpDefs and shape functions.
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
