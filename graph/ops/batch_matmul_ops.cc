// The batched matrix products: BatchMatMul (v1: the batch dimensions equal), BatchMatMulV2
// (broadcast) and BatchMatMulV3 (broadcast, its sides and result of their own types).
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

using tensoract::PartialTensorShape;
using tensoract::Status;
using tensoract::shape_inference::BroadcastShapes;
using tensoract::shape_inference::InferenceContext;

namespace {

// [..., m, k] x [..., k, n] -> [broadcast(...), m, n], adj_x/adj_y swapping a side's last two.
Status BatchMatMulV2Shape(InferenceContext* c) {
  PartialTensorShape a, b;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  bool adj_x = false, adj_y = false;
  TA_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  TA_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  if (!InferenceContext::RankKnown(a) || !InferenceContext::RankKnown(b)) {
    c->set_output(0, InferenceContext::UnknownShape());
    return Status::OK();
  }
  const int64_t m = InferenceContext::Dim(a, adj_x ? -1 : -2), ka = InferenceContext::Dim(a, adj_x ? -2 : -1);
  const int64_t kb = InferenceContext::Dim(b, adj_y ? -1 : -2), n = InferenceContext::Dim(b, adj_y ? -2 : -1);
  int64_t unused;
  TA_RETURN_IF_ERROR(c->MergeDim(ka, kb, &unused));
  PartialTensorShape batch_a, batch_b, batch, out;
  TA_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &batch_a));
  TA_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &batch_b));
  TA_RETURN_IF_ERROR(BroadcastShapes(*c, batch_a, batch_b, &batch));
  TA_RETURN_IF_ERROR(c->Concatenate(batch, InferenceContext::Matrix(m, n), &out));
  c->set_output(0, out);
  return Status::OK();
}

// v1: both sides of one rank, their batch dimensions merged rather than broadcast.
Status BatchMatMulShape(InferenceContext* c) {
  PartialTensorShape a, b;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  if (InferenceContext::RankKnown(a) && InferenceContext::RankKnown(b)) {
    TA_RETURN_IF_ERROR(c->WithRank(b, a.dims(), &b));
    for (int i = 0; i < a.dims() - 2; ++i) {
      int64_t unused;
      TA_RETURN_IF_ERROR(c->MergeDim(a.dim_size(i), b.dim_size(i), &unused));
    }
  }
  return BatchMatMulV2Shape(c);
}

}  // namespace

REGISTER_OP("BatchMatMul")
    .Input("x: T").Input("y: T").Output("output: T")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
    .Attr("adj_x: bool = false").Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false").Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulShape)
    .Doc("The matrix products of x's and y's last two dimensions, batch dimensions equal.");

REGISTER_OP("BatchMatMulV2")
    .Input("x: T").Input("y: T").Output("output: T")
    .Attr("T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, "
          "complex128}")
    .Attr("adj_x: bool = false").Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false").Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV2Shape)
    .Doc("The matrix products of x's and y's last two dimensions, batch dimensions broadcast.");

REGISTER_OP("BatchMatMulV3")
    .Input("x: Ta").Input("y: Tb").Output("output: Tout")
    .Attr("Ta: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128}")
    .Attr("Tb: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128}")
    .Attr("Tout: {bfloat16, half, float, double, int16, int32, int64, complex64, complex128}")
    .Attr("adj_x: bool = false").Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false").Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV2Shape)
    .Doc("BatchMatMulV2 with sides of types Ta and Tb and a product of type Tout.");
