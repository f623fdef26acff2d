#include "graph/common_shape_fns.h"

#include <algorithm>

namespace tensoract {
namespace shape_inference {

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, InferenceContext::UnknownShape());
  return Status::OK();
}

Status NoOutputs(InferenceContext*) { return Status::OK(); }

Status ShapeFromShapeInput(InferenceContext* c) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status ScalarShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, InferenceContext::Scalar());
  return Status::OK();
}

Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  // A resource handle passed through (Identity of a VarHandleOp) still refers to the same
  // variable, so what is known about it passes through too.
  if (const ShapeAndType* data = c->input_handle_data(0)) c->set_output_handle_data(0, *data);
  return Status::OK();
}

Status UnchangedShapeWithRank(InferenceContext* c, int rank) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int rank) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), rank, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status UnchangedShapeWithRankAtMost(InferenceContext* c, int rank) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), rank, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status MergeBothInputsShapeFn(InferenceContext* c) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return Status::OK();
}

Status ExplicitShape(InferenceContext* c) {
  PartialTensorShape shape;
  TA_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

Status BroadcastShapes(const InferenceContext&, const PartialTensorShape& a, const PartialTensorShape& b,
                       PartialTensorShape* out) {
  if (a.unknown_rank() || b.unknown_rank()) {
    *out = InferenceContext::UnknownShape();
    return Status::OK();
  }
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    // Dimension i of the result, aligned at the end; a missing leading dimension is 1.
    const int ia = i - (rank - a.dims()), ib = i - (rank - b.dims());
    const int64_t x = ia < 0 ? 1 : InferenceContext::Dim(a, ia);
    const int64_t y = ib < 0 ? 1 : InferenceContext::Dim(b, ib);
    if (x == 1) {
      dims[i] = y;
    } else if (y == 1) {
      dims[i] = x;
    } else if (!InferenceContext::ValueKnown(x) || !InferenceContext::ValueKnown(y)) {
      // The unknown side must be 1 or the known size for the program to be correct, so a
      // known size above 1 is the result either way (TensorFlow assumes the same). Two
      // unknowns, or an unknown against 0, stay unknown.
      const int64_t known = InferenceContext::ValueKnown(x) ? x : y;
      dims[i] = known > 1 ? known : kUnknownDim;
    } else if (x != y) {
      return errors::InvalidArgument("shapes ", a.DebugString(), " and ", b.DebugString(),
                                     " cannot be broadcast: dimension ", i, " of the result would be both ", x,
                                     " and ", y);
    } else {
      dims[i] = x;
    }
  }
  *out = PartialTensorShape(std::move(dims));
  return Status::OK();
}

Status BroadcastBinaryOpShape(InferenceContext* c) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(BroadcastShapes(*c, c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return Status::OK();
}

Status MatMulShape(InferenceContext* c) {
  PartialTensorShape a, b;
  Status s = c->WithRank(c->input(0), 2, &a);
  if (!s.ok()) return s.WithContext("input 'a' must be a matrix");
  s = c->WithRank(c->input(1), 2, &b);
  if (!s.ok()) return s.WithContext("input 'b' must be a matrix");
  bool transpose_a = false, transpose_b = false;
  TA_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  TA_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  const int a_inner = transpose_a ? 0 : 1, b_inner = transpose_b ? 1 : 0;
  int64_t inner;
  if (!c->MergeDim(c->Dim(a, a_inner), c->Dim(b, b_inner), &inner).ok()) {
    return errors::InvalidArgument(
        "the inner dimensions of the product must be equal, but are ", c->Dim(a, a_inner), " (dimension ", a_inner,
        " of a ", a.DebugString(), transpose_a ? ", transposed" : "", ") and ", c->Dim(b, b_inner), " (dimension ",
        b_inner, " of b ", b.DebugString(), transpose_b ? ", transposed" : "", ")");
  }
  c->set_output(0, c->Matrix(c->Dim(a, 1 - a_inner), c->Dim(b, 1 - b_inner)));
  return Status::OK();
}

}  // namespace shape_inference
}  // namespace tensoract
