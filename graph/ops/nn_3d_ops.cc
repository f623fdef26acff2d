// 3-D convolution and pooling (video and volumetric models: Conv3D, MaxPool3D, AvgPool3D and
// their gradients), with TensorFlow 2.21's OpDefs and shape functions. Shapes are
// [batch, planes, rows, cols, channels] (NDHWC) or NCDHW; filters [planes, rows, cols, in, out].
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// Where planes, rows, cols and channels are in a 5-D tensor of the node's data_format.
struct Layout5 {
  int batch = 0, spatial[3] = {1, 2, 3}, channels = 4;
};
Layout5 ReadLayout5(InferenceContext* c) {
  std::string format = "NDHWC";
  if (!c->GetAttr("data_format", &format).ok()) format = "NDHWC";
  Layout5 l;
  if (format == "NCDHW") l = Layout5{0, {2, 3, 4}, 1};
  return l;
}

// A list attr of 5 positive ints (strides, ksize), in the node's layout.
Status ReadFive(InferenceContext* c, const std::string& attr, std::vector<int64_t>* values) {
  TA_RETURN_IF_ERROR(c->GetAttr(attr, values));
  if (values->size() != 5) {
    return errors::InvalidArgument(c->node_def().op(), " requires the ", attr, " attribute to contain 5 values, but got: ",
                                   values->size());
  }
  for (int64_t v : *values) {
    if (v <= 0) return errors::InvalidArgument(c->node_def().op(), " requires positive ", attr, ", got ", v);
  }
  return Status::OK();
}

// One spatial output size (TensorFlow's GetWindowedOutputSizeFromDimsV2 in shape inference:
// VALID subtracts the window from the input first and refuses a negative difference).
Status OutputSize(int64_t in, int64_t window, int64_t stride, const std::string& padding, int64_t* out) {
  *out = shape_inference::kUnknownDim;
  if (!InferenceContext::ValueKnown(in)) return Status::OK();
  if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    return Status::OK();
  }
  if (!InferenceContext::ValueKnown(window)) return Status::OK();
  if (in < window) return errors::InvalidArgument("Negative dimension size caused by subtracting ", window, " from ", in);
  *out = (in - window + stride) / stride;
  return Status::OK();
}

// The output of a window `window` (planes, rows, cols) over input 0, with `channels` channels.
Status Windowed5(InferenceContext* c, const PartialTensorShape& input, const std::array<int64_t, 3>& window,
                 int64_t channels) {
  const Layout5 l = ReadLayout5(c);
  std::vector<int64_t> strides;
  TA_RETURN_IF_ERROR(ReadFive(c, "strides", &strides));
  std::string padding;
  TA_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  std::vector<int64_t> dims(5);
  dims[l.batch] = InferenceContext::Dim(input, l.batch);
  dims[l.channels] = channels;
  for (int i = 0; i < 3; ++i) {
    TA_RETURN_IF_ERROR(OutputSize(InferenceContext::Dim(input, l.spatial[i]), window[i], strides[l.spatial[i]], padding,
                                  &dims[l.spatial[i]]));
  }
  c->set_output(0, InferenceContext::MakeShape(dims));
  return Status::OK();
}

Status Conv3DShape(InferenceContext* c) {
  PartialTensorShape input, filter;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 5, &filter));
  const Layout5 l = ReadLayout5(c);
  const int64_t in_depth = InferenceContext::Dim(input, l.channels), filter_depth = InferenceContext::Dim(filter, 3);
  if (InferenceContext::ValueKnown(in_depth) && InferenceContext::ValueKnown(filter_depth)) {
    if (filter_depth == 0 || in_depth % filter_depth != 0) {
      return errors::InvalidArgument("Depth of input (", in_depth, ") is not a multiple of input depth of filter (",
                                     filter_depth, ")");
    }
    const int64_t groups = in_depth / filter_depth, out_depth = InferenceContext::Dim(filter, 4);
    if (InferenceContext::ValueKnown(out_depth) && out_depth % groups != 0) {
      return errors::InvalidArgument("Depth of output (", out_depth, ") is not a multiple of the number of groups (",
                                     groups, ")");
    }
  }
  return Windowed5(c, input,
                   {InferenceContext::Dim(filter, 0), InferenceContext::Dim(filter, 1), InferenceContext::Dim(filter, 2)},
                   InferenceContext::Dim(filter, 4));
}

Status Pool3DShape(InferenceContext* c) {
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  std::vector<int64_t> ksize;
  TA_RETURN_IF_ERROR(ReadFive(c, "ksize", &ksize));
  const Layout5 l = ReadLayout5(c);
  return Windowed5(c, input, {ksize[l.spatial[0]], ksize[l.spatial[1]], ksize[l.spatial[2]]},
                   InferenceContext::Dim(input, l.channels));
}

// The shape input `i` holds (5 sizes), of rank 5 when its value is unknown.
Status ShapeFromInput5(InferenceContext* c, int i) {
  PartialTensorShape shape;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(i, &shape));
  PartialTensorShape five;
  TA_RETURN_IF_ERROR(c->WithRank(shape, 5, &five));
  c->set_output(0, five);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

#define TA_CONV3D_ATTRS                                       \
  .Attr("T: {half, bfloat16, float, double}")                 \
      .Attr("strides: list(int) >= 5")                        \
      .Attr("padding: {'SAME', 'VALID'}")                     \
      .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")      \
      .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")

REGISTER_OP("Conv3D")
    .Input("input: T").Input("filter: T").Output("output: T")
    TA_CONV3D_ATTRS
    .SetShapeFn(tensoract::Conv3DShape)
    .Doc("3-D convolution of a 5-D input with a [planes, rows, cols, in_depth, out_depth] filter.");

REGISTER_OP("Conv3DBackpropInputV2")
    .Input("input_sizes: Tshape").Input("filter: T").Input("out_backprop: T").Output("output: T")
    TA_CONV3D_ATTRS
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) { return tensoract::ShapeFromInput5(c, 0); })
    .Doc("The gradient of Conv3D with respect to its input, of shape input_sizes.");

REGISTER_OP("Conv3DBackpropFilterV2")
    .Input("input: T").Input("filter_sizes: int32").Input("out_backprop: T").Output("output: T")
    TA_CONV3D_ATTRS
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) { return tensoract::ShapeFromInput5(c, 1); })
    .Doc("The gradient of Conv3D with respect to its filter, of shape filter_sizes.");

#define TA_POOL3D_ATTRS                                       \
  .Attr("ksize: list(int) >= 5")                              \
      .Attr("strides: list(int) >= 5")                        \
      .Attr("padding: {'SAME', 'VALID'}")                     \
      .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")

REGISTER_OP("MaxPool3D")
    .Input("input: T").Output("output: T")
    TA_POOL3D_ATTRS
    .Attr("T: {half, bfloat16, float}")
    .SetShapeFn(tensoract::Pool3DShape)
    .Doc("The maximum of each window over planes, rows and cols.");

REGISTER_OP("AvgPool3D")
    .Input("input: T").Output("output: T")
    TA_POOL3D_ATTRS
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(tensoract::Pool3DShape)
    .Doc("The mean of each window over planes, rows and cols (of the inputs it covers: padding takes no part).");

REGISTER_OP("MaxPool3DGrad")
    .Input("orig_input: TInput").Input("orig_output: TInput").Input("grad: T").Output("output: T")
    TA_POOL3D_ATTRS
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .Attr("TInput: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      tensoract::PartialTensorShape input;
      TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
      c->set_output(0, input);
      return tensoract::Status::OK();
    })
    .Doc("MaxPool3D's gradient: each window's gradient to the inputs equal to its maximum.");

REGISTER_OP("AvgPool3DGrad")
    .Input("orig_input_shape: int32").Input("grad: T").Output("output: T")
    TA_POOL3D_ATTRS
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) { return tensoract::ShapeFromInput5(c, 0); })
    .Doc("AvgPool3D's gradient: each window's gradient shared among the inputs it covers.");
