// FusedBatchNormV3 and FusedBatchNormGradV3, as Keras' BatchNormalization writes them, and
// the older versions TensorFlow 1 graphs hold (tf.layers.batch_normalization(fused=True),
// Keras 2 before V3): FusedBatchNorm (float only), FusedBatchNormV2 (scale and statistics of
// type U) and their gradients. The forward op's reserve spaces carry the batch's mean and
// (uncorrected) variance to the gradient; V3's third is a scalar zero on the CPU, and the
// gradient's last two are empty, as TensorFlow's CPU kernels leave them. One shape function
// serves every version: they differ only in V3's sixth output and sixth gradient input.
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
  if (c->num_outputs() == 6) c->set_output(5, PartialTensorShape());  // V3: its size is the device's
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
  for (int i = 2; i < 5; ++i) {  // scale and reserve spaces 1, 2 (V3's third is the device's)
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

REGISTER_OP("FusedBatchNorm")
    .Input("x: T").Input("scale: T").Input("offset: T").Input("mean: T").Input("variance: T")
    .Output("y: T").Output("batch_mean: T").Output("batch_variance: T")
    .Output("reserve_space_1: T").Output("reserve_space_2: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(tensoract::FusedBatchNormShape)
    .Doc("FusedBatchNormV3's first version: float only, no reserve_space_3.");

REGISTER_OP("FusedBatchNormGrad")
    .Input("y_backprop: T").Input("x: T").Input("scale: T")
    .Input("reserve_space_1: T").Input("reserve_space_2: T")
    .Output("x_backprop: T").Output("scale_backprop: T").Output("offset_backprop: T")
    .Output("reserve_space_3: T").Output("reserve_space_4: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(tensoract::FusedBatchNormGradShape)
    .Doc("The gradients of FusedBatchNorm with respect to x, scale and offset.");

REGISTER_OP("FusedBatchNormV2")
    .Input("x: T").Input("scale: U").Input("offset: U").Input("mean: U").Input("variance: U")
    .Output("y: T").Output("batch_mean: U").Output("batch_variance: U")
    .Output("reserve_space_1: U").Output("reserve_space_2: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(tensoract::FusedBatchNormShape)
    .Doc("FusedBatchNormV3's second version: no reserve_space_3.");

REGISTER_OP("FusedBatchNormGradV2")
    .Input("y_backprop: T").Input("x: T").Input("scale: float")
    .Input("reserve_space_1: U").Input("reserve_space_2: U")
    .Output("x_backprop: T").Output("scale_backprop: U").Output("offset_backprop: U")
    .Output("reserve_space_3: U").Output("reserve_space_4: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(tensoract::FusedBatchNormGradShape)
    .Doc("The gradients of FusedBatchNormV2 with respect to x, scale and offset.");

// Layer normalization over the last dimension, as the remapper fuses Keras' LayerNormalization
// (graph/optimizer/layer_norm_fusion.h): TensorFlow's oneDNN op of this name, which its own
// remapper makes of the same pattern. scale and offset hold one value per element of the
// last dimension (any shape of that many elements: Keras reshapes them to [1, ..., C]).
REGISTER_OP("_MklLayerNorm")
    .Input("x: T").Input("scale: T").Input("offset: T")
    .Output("y: T")
    .Attr("T: {float, bfloat16, half}")
    .Attr("epsilon: float = 0.001")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("y = (x - mean) / sqrt(variance + epsilon) * scale + offset, the moments over x's last dimension.");
