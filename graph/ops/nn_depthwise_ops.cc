// Depthwise 2-D convolution and its two gradients (MobileNet's layers), with TensorFlow
// 2.21's OpDefs and shape functions: each input channel is convolved with its own
// depth_multiplier filters, giving in_depth * depth_multiplier output channels.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// TensorFlow's CheckValidPadding: explicit_paddings holds [before, after] for each of the 4
// dimensions when padding is EXPLICIT (none in batch and depth), and is empty otherwise.
Status CheckExplicitPaddings(const std::string& padding, const std::vector<int64_t>& paddings, bool nchw) {
  if (padding != "EXPLICIT") {
    if (!paddings.empty()) {
      return errors::InvalidArgument("explicit_paddings attribute must be empty if the padding attribute is not "
                                     "EXPLICIT");
    }
    return Status::OK();
  }
  if (paddings.size() != 8) {
    return errors::InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ", paddings.size());
  }
  for (int64_t p : paddings) {
    if (p < 0) return errors::InvalidArgument("All elements of explicit_paddings must be nonnegative");
  }
  const int depth = nchw ? 1 : 3;
  if (paddings[0] != 0 || paddings[1] != 0 || paddings[2 * depth] != 0 || paddings[2 * depth + 1] != 0) {
    return errors::InvalidArgument("Nonzero explicit padding in the batch or depth dimensions is not supported");
  }
  return Status::OK();
}

// TensorFlow's GetWindowedOutputSizeFromDimsV2: SAME gives ceil(in / stride); VALID and
// EXPLICIT (in + padding - effective window + stride) / stride, refused when the padded
// input is shorter than the window. Unknown when the input (or, but for SAME, the window) is.
Status WindowedSize(InferenceContext* c, int64_t in, int64_t k, int64_t dilation, int64_t stride,
                    const std::string& padding, int64_t before, int64_t after, int64_t* out) {
  if (stride <= 0) return errors::InvalidArgument("Stride must be > 0, but got ", stride);
  if (dilation < 1) return errors::InvalidArgument("Dilation rate must be >= 1, but got ", dilation);
  *out = shape_inference::kUnknownDim;
  if (padding == "SAME") {
    if (InferenceContext::ValueKnown(in)) *out = (in + stride - 1) / stride;
    return Status::OK();
  }
  if (!InferenceContext::ValueKnown(in) || !InferenceContext::ValueKnown(k)) return Status::OK();
  const int64_t padded = in + (padding == "EXPLICIT" ? before + after : 0);
  const int64_t window = (k - 1) * dilation + 1;
  if (padded < window) {
    return errors::InvalidArgument("Negative dimension size caused by subtracting ", window, " from ", padded);
  }
  *out = (padded - window + stride) / stride;
  return Status::OK();
}

// The output of a depthwise convolution of `input` by `filter` whose attrs are named
// prefix + "strides" and so on.
Status DepthwiseOutputShape(InferenceContext* c, const PartialTensorShape& input, const PartialTensorShape& filter,
                            const std::string& prefix) {
  std::vector<int64_t> strides, dilations, paddings;
  TA_RETURN_IF_ERROR(c->GetAttr(prefix + "strides", &strides));
  if (strides.size() != 4) {
    return errors::InvalidArgument("DepthwiseConv2D requires the stride attribute to contain 4 values, but got: ",
                                   strides.size());
  }
  if (!c->GetAttr(prefix + "dilations", &dilations).ok()) dilations.assign(4, 1);
  if (dilations.size() != 4) {
    return errors::InvalidArgument("DepthwiseConv2D requires the dilations attribute to contain 4 values, but got: ",
                                   dilations.size());
  }
  std::string data_format = "NHWC", padding;
  if (!c->GetAttr(prefix + "data_format", &data_format).ok()) data_format = "NHWC";
  const bool nchw = data_format == "NCHW";
  const int rows = nchw ? 2 : 1, cols = nchw ? 3 : 2, depth = nchw ? 1 : 3;
  TA_RETURN_IF_ERROR(c->GetAttr(prefix + "padding", &padding));
  if (!c->GetAttr(prefix + "explicit_paddings", &paddings).ok()) paddings.clear();
  TA_RETURN_IF_ERROR(CheckExplicitPaddings(padding, paddings, nchw));
  if (padding != "EXPLICIT") paddings.assign(8, 0);

  int64_t in_depth;
  TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(input, depth), InferenceContext::Dim(filter, 2), &in_depth));
  const int64_t out_depth = InferenceContext::Multiply(in_depth, InferenceContext::Dim(filter, 3));
  int64_t out_rows, out_cols;
  TA_RETURN_IF_ERROR(WindowedSize(c, InferenceContext::Dim(input, rows), InferenceContext::Dim(filter, 0),
                                  dilations[rows], strides[rows], padding, paddings[2 * rows],
                                  paddings[2 * rows + 1], &out_rows));
  TA_RETURN_IF_ERROR(WindowedSize(c, InferenceContext::Dim(input, cols), InferenceContext::Dim(filter, 1),
                                  dilations[cols], strides[cols], padding, paddings[2 * cols],
                                  paddings[2 * cols + 1], &out_cols));
  const int64_t batch = InferenceContext::Dim(input, 0);
  c->set_output(0, nchw ? InferenceContext::MakeShape({batch, out_depth, out_rows, out_cols})
                        : InferenceContext::MakeShape({batch, out_rows, out_cols, out_depth}));
  return Status::OK();
}

Status DepthwiseConv2DNativeShape(InferenceContext* c) {
  PartialTensorShape input, filter;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  return DepthwiseOutputShape(c, input, filter, "");
}

// _FusedConv2DWithDepthwise: the pointwise convolution keeps the rows and columns (1x1,
// stride 1, NHWC), then the depthwise one's shape from its attrs (prefixed _depthwise_), then
// the projection's depth where there is one (1x1, stride 1).
Status PointwiseDepthwiseShape(InferenceContext* c) {
  int64_t pointwise_args = 0, depthwise_args = 0, project_inputs = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("num_pointwise_args", &pointwise_args));
  TA_RETURN_IF_ERROR(c->GetAttr("num_depthwise_args", &depthwise_args));
  TA_RETURN_IF_ERROR(c->GetAttr("num_project_inputs", &project_inputs));
  PartialTensorShape input, pointwise, depthwise;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &pointwise));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2 + static_cast<int>(pointwise_args)), 4, &depthwise));
  const PartialTensorShape expanded = InferenceContext::MakeShape(
      {InferenceContext::Dim(input, 0), InferenceContext::Dim(input, 1), InferenceContext::Dim(input, 2),
       InferenceContext::Dim(pointwise, 3)});
  TA_RETURN_IF_ERROR(DepthwiseOutputShape(c, expanded, depthwise, "_depthwise_"));
  if (project_inputs == 0) return Status::OK();
  PartialTensorShape filtered = c->output(0), project;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(3 + static_cast<int>(pointwise_args + depthwise_args)), 4, &project));
  c->set_output(0, InferenceContext::MakeShape({InferenceContext::Dim(filtered, 0), InferenceContext::Dim(filtered, 1),
                                                InferenceContext::Dim(filtered, 2), InferenceContext::Dim(project, 3)}));
  return Status::OK();
}

// The gradients' shapes are their size inputs (input_sizes, filter_sizes), of rank 4.
template <int kSizes>
Status ShapeFromSizes(InferenceContext* c) {
  PartialTensorShape shape;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(kSizes, &shape));
  TA_RETURN_IF_ERROR(c->WithRank(shape, 4, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

#define TA_DEPTHWISE_ATTRS                                                \
  .Attr("T: {half, bfloat16, float, double}")                            \
      .Attr("strides: list(int)")                                        \
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")                    \
      .Attr("explicit_paddings: list(int) = []")                         \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")                    \
      .Attr("dilations: list(int) = [1, 1, 1, 1]")

REGISTER_OP("DepthwiseConv2dNative")
    .Input("input: T").Input("filter: T").Output("output: T")
    TA_DEPTHWISE_ATTRS
    .SetShapeFn(tensoract::DepthwiseConv2DNativeShape)
    .Doc("Depthwise 2-D convolution of input [batch, rows, cols, in_depth] with a filter [rows, cols, in_depth, "
         "depth_multiplier]: output channel i * depth_multiplier + m is channel i convolved with filter m.");

// DepthwiseConv2dNative with per-channel steps and an activation applied in the same kernel
// (kernels/cpu/fused_epilogue.h): what the remapper (graph/optimizer/remapper.h) makes of a
// depthwise convolution followed by Keras' batch normalization and activation on a CPU.
// TensorFlow's OpDef, plus explicit padding (padding 'EXPLICIT' and explicit_paddings, as
// DepthwiseConv2dNative has them): the remapper folds the zero Pad that Keras writes before a
// strided depthwise convolution into it (EfficientNetB0 batch 32: 33 ms of Pad a step).
// Every GraphDef TensorFlow writes with this op still validates here.
REGISTER_OP("_FusedDepthwiseConv2dNative")
    .Input("input: T").Input("filter: T").Input("args: num_args * T").Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(tensoract::DepthwiseConv2DNativeShape)
    .Doc("DepthwiseConv2dNative followed by the fused_ops in one kernel.");

// A pointwise (1x1, stride 1) _FusedConv2D whose only consumer is a
// _FusedDepthwiseConv2dNative, and the projection (another pointwise _FusedConv2D, with its
// residual Add) that may follow it: MobileNet's and EfficientNet's inverted residual blocks
// expand the channels six times, filter each one, and project them back. One kernel runs
// them a band of rows at a time, so the expanded and filtered tensors, the largest of the
// block, never go to memory (kernels/cpu/pointwise_depthwise_op.cc). tensoract's own op, made
// by the remapper after placement (graph/optimizer/pointwise_depthwise_fusion.h): the nodes'
// attrs are kept with the prefixes _pointwise_, _depthwise_ and _project_, so that each
// convolution reads as its node did. `project` is empty, or the projection's filter then its args.
REGISTER_OP("_FusedConv2DWithDepthwise")
    .Input("input: T").Input("pointwise_filter: T").Input("pointwise_args: num_pointwise_args * T")
    .Input("depthwise_filter: T").Input("depthwise_args: num_depthwise_args * T")
    .Input("project: num_project_inputs * T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("num_pointwise_args: int >= 0")
    .Attr("num_depthwise_args: int >= 0")
    .Attr("num_project_inputs: int >= 0 = 0")
    .SetShapeFn(tensoract::PointwiseDepthwiseShape)
    .Doc("_FusedConv2D (1x1, stride 1), _FusedDepthwiseConv2dNative and optionally another 1x1 _FusedConv2D, a "
         "band of rows at a time.");

REGISTER_OP("DepthwiseConv2dNativeBackpropInput")
    .Input("input_sizes: int32").Input("filter: T").Input("out_backprop: T").Output("output: T")
    TA_DEPTHWISE_ATTRS
    .SetShapeFn(tensoract::ShapeFromSizes<0>)
    .Doc("The gradient of DepthwiseConv2dNative with respect to its input, of shape input_sizes.");

REGISTER_OP("DepthwiseConv2dNativeBackpropFilter")
    .Input("input: T").Input("filter_sizes: int32").Input("out_backprop: T").Output("output: T")
    TA_DEPTHWISE_ATTRS
    .SetShapeFn(tensoract::ShapeFromSizes<1>)
    .Doc("The gradient of DepthwiseConv2dNative with respect to its filter, of shape filter_sizes.");

#undef TA_DEPTHWISE_ATTRS
