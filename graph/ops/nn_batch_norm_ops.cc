// FusedBatchNormV3 and FusedBatchNormGradV3, as Keras' BatchNormalization writes them.
// The forward op's reserve spaces carry the batch's mean and (uncorrected) variance to the
// gradient; the third is a scalar zero on the CPU, and the gradient's two are empty, as
// TensorFlow's CPU kernels leave them.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// The channel dimension of `x` under `data_format` ("NHWC"-like: last; else 1), or -1.
int64_t Channels(const PartialTensorShape& x, const std::string& data_format) {
  if (!InferenceContext::RankKnown(x)) return -1;
  return data_format[1] == 'C' ? x.dim_size(1) : x.dim_size(x.dims() - 1);
}

Status FusedBatchNormShape(InferenceContext* c) {
  std::string data_format;
  TA_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  const int rank = data_format.size() == 5 ? 5 : 4;
  PartialTensorShape x;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &x));
  int64_t channels = Channels(x, data_format);
  // Training with exponential_avg_factor 1 reads no running mean and variance (Keras passes
  // them empty): as TensorFlow's, only scale and offset are checked then.
  bool is_training = true;
  float factor = 1.0f;
  TA_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  if (!c->GetAttr("exponential_avg_factor", &factor).ok()) factor = 1.0f;
  const int checked = is_training && factor == 1.0f ? 3 : 5;
  for (int i = 1; i < checked; ++i) {
    PartialTensorShape v;
    TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &v));
    if (InferenceContext::RankKnown(v)) TA_RETURN_IF_ERROR(c->MergeDim(channels, v.dim_size(0), &channels));
  }
  c->set_output(0, x);
  for (int i = 1; i < 5; ++i) c->set_output(i, InferenceContext::Vector(channels));
  c->set_output(5, PartialTensorShape());  // unknown: empty on the CPU, other sizes on GPUs
  return Status::OK();
}

Status FusedBatchNormGradShape(InferenceContext* c) {
  std::string data_format;
  TA_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  const int rank = data_format.size() == 5 ? 5 : 4;
  PartialTensorShape dy, x;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &dy));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), rank, &x));
  PartialTensorShape merged;
  TA_RETURN_IF_ERROR(c->Merge(dy, x, &merged));
  int64_t channels = Channels(merged, data_format);
  for (int i = 2; i < 5; ++i) {
    PartialTensorShape v;
    TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &v));
    if (InferenceContext::RankKnown(v)) TA_RETURN_IF_ERROR(c->MergeDim(channels, v.dim_size(0), &channels));
  }
  c->set_output(0, merged);
  c->set_output(1, InferenceContext::Vector(channels));
  c->set_output(2, InferenceContext::Vector(channels));
  c->set_output(3, PartialTensorShape());
  c->set_output(4, PartialTensorShape());
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("FusedBatchNormV3")
    .Input("x: T").Input("scale: U").Input("offset: U").Input("mean: U").Input("variance: U")
    .Output("y: T").Output("batch_mean: U").Output("batch_variance: U")
    .Output("reserve_space_1: U").Output("reserve_space_2: U").Output("reserve_space_3: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {bfloat16, float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(tensoract::FusedBatchNormShape)
    .Doc("Batch normalisation over all dimensions but the channel one.");

REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T").Input("x: T").Input("scale: float")
    .Input("reserve_space_1: U").Input("reserve_space_2: U").Input("reserve_space_3: U")
    .Output("x_backprop: T").Output("scale_backprop: U").Output("offset_backprop: U")
    .Output("reserve_space_4: U").Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(tensoract::FusedBatchNormGradShape)
    .Doc("The gradients of FusedBatchNormV3 with respect to x, scale and offset.");
