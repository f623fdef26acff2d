// Neural-network building blocks: activations and their gradients, BiasAdd, softmax, the
// cross-entropy losses, 2-D convolutions and pools with their gradients. Definitions and
// shape functions are TensorFlow 2.21's.
#include <utility>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// BiasAdd: `value` keeps its shape, its channel dimension (last for NHWC, 1 for NCHW)
// merged with the bias length.
Status BiasAddShape(InferenceContext* c) {
  std::string data_format;
  const bool nchw = c->GetAttr("data_format", &data_format).ok() && data_format == "NCHW";
  PartialTensorShape input, bias;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &input));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &bias));
  if (!InferenceContext::RankKnown(input)) {
    c->set_output(0, InferenceContext::UnknownShape());
    return Status::OK();
  }
  const int channel = nchw ? 1 : input.dims() - 1;
  int64_t merged;
  TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(input, channel), InferenceContext::Dim(bias, 0), &merged));
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->ReplaceDim(input, channel, merged, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status BiasAddGradShape(InferenceContext* c) {
  std::string data_format;
  const bool nchw = c->GetAttr("data_format", &data_format).ok() && data_format == "NCHW";
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &input));
  c->set_output(0, InferenceContext::Vector(InferenceContext::Dim(input, nchw ? 1 : -1)));
  return Status::OK();
}

Status SoftmaxShape(InferenceContext* c) { return shape_inference::UnchangedShapeWithRankAtLeast(c, 1); }

// _FusedAttention: query [B, T, N, H], key and value [B, S, N, H'] -> [B, T, N, H'].
Status FusedAttentionShape(InferenceContext* c) {
  PartialTensorShape query, value;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &query));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &value));
  c->set_output(0, InferenceContext::MakeShape({InferenceContext::Dim(query, 0), InferenceContext::Dim(query, 1),
                                                InferenceContext::Dim(query, 2), InferenceContext::Dim(value, 3)}));
  return Status::OK();
}

// _FusedChannelStepsConv2D: x's batch, rows and columns (1x1, stride 1; x's first piece's),
// the filter's depth.
Status StepsConvShape(InferenceContext* c) {
  int64_t step_args = 0, pieces = 1;
  TA_RETURN_IF_ERROR(c->GetAttr("num_step_args", &step_args));
  if (!c->GetAttr("num_pieces", &pieces).ok()) pieces = 1;
  PartialTensorShape x, filter;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &x));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(static_cast<int>(pieces + step_args)), 4, &filter));
  c->set_output(0, InferenceContext::MakeShape({InferenceContext::Dim(x, 0), InferenceContext::Dim(x, 1),
                                                InferenceContext::Dim(x, 2), InferenceContext::Dim(filter, 3)}));
  return Status::OK();
}

// Logits and labels of one shape [batch, classes], or broadcast to it.
Status SoftmaxCrossEntropyShape(InferenceContext* c) {
  PartialTensorShape input, merged;
  if (c->WithRank(c->input(0), 2, &input).ok() && c->Merge(input, c->input(1), &merged).ok()) {
    c->set_output(0, InferenceContext::Vector(InferenceContext::Dim(merged, 0)));
    c->set_output(1, merged);
    return Status::OK();
  }
  PartialTensorShape broadcast;
  TA_RETURN_IF_ERROR(shape_inference::BroadcastShapes(*c, c->input(0), c->input(1), &broadcast));
  if (!InferenceContext::RankKnown(broadcast)) {
    return errors::InvalidArgument("Shape must be broadcasted with rank 2, but is rank is unknown.");
  }
  if (broadcast.dims() != 2) {
    return errors::InvalidArgument("Shape must be broadcasted with rank 2, but is rank ", broadcast.dims());
  }
  c->set_output(0, InferenceContext::Vector(InferenceContext::Dim(broadcast, 0)));
  c->set_output(1, broadcast);
  return Status::OK();
}

Status SparseSoftmaxCrossEntropyShape(InferenceContext* c) {
  PartialTensorShape features, labels;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &features));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &labels));
  int64_t batch;
  TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(features, 0), InferenceContext::Dim(labels, 0), &batch));
  TA_RETURN_IF_ERROR(c->ReplaceDim(features, 0, batch, &features));
  c->set_output(0, InferenceContext::Vector(batch));
  c->set_output(1, features);
  return Status::OK();
}

// ---- Convolutions and pools ------------------------------------------------------------

// The spatial layout of a 4-D tensor: where its batch, rows, cols and channels are.
struct Layout {
  int batch = 0, rows = 1, cols = 2, depth = 3;
};
Status ReadLayout(InferenceContext* c, Layout* layout, bool* vect_c = nullptr) {
  std::string data_format = "NHWC";
  if (!c->GetAttr("data_format", &data_format).ok()) data_format = "NHWC";
  if (vect_c != nullptr) *vect_c = data_format == "NCHW_VECT_C";
  if (data_format == "NCHW" || data_format == "NCHW_VECT_C") *layout = Layout{0, 2, 3, 1};
  else *layout = Layout{};
  return Status::OK();
}

// A list attr of 4 ints (strides, dilations, ksize).
Status ReadFourInts(InferenceContext* c, const std::string& attr, std::vector<int64_t>* values) {
  TA_RETURN_IF_ERROR(c->GetAttr(attr, values));
  if (values->size() != 4) {
    return errors::InvalidArgument(c->node_def().op(), " requires the ", attr,
                                   " attribute to contain 4 values, but got: ", values->size());
  }
  for (int64_t v : *values) {
    if (v <= 0) return errors::InvalidArgument(c->node_def().op(), " requires positive ", attr, ", got ", v);
  }
  return Status::OK();
}

// The output size of one spatial dimension (TensorFlow's GetWindowedOutputSize); unknown
// when the input or (except for SAME) the window is. `pad` holds the explicit paddings
// before and after.
Status WindowedOutputSize(int64_t in, int64_t k, int64_t dilation, int64_t stride, const std::string& padding,
                          std::pair<int64_t, int64_t> pad, int64_t* out) {
  *out = shape_inference::kUnknownDim;
  if (!InferenceContext::ValueKnown(in)) return Status::OK();
  if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    return Status::OK();
  }
  if (!InferenceContext::ValueKnown(k)) return Status::OK();
  const int64_t effective = (k - 1) * dilation + 1;
  const int64_t padded = in + (padding == "EXPLICIT" ? pad.first + pad.second : 0);
  // TensorFlow subtracts the window from the (padded) input first: a window longer than
  // the input is refused even where the division would round the size up to 0.
  if (padded < effective) {
    return errors::InvalidArgument("Negative dimension size caused by subtracting ", effective, " from ", padded);
  }
  *out = (padded - effective + stride) / stride;
  return Status::OK();
}

// Explicit paddings, [before, after] for each of the 4 dimensions, when padding is EXPLICIT.
Status ReadPaddings(InferenceContext* c, std::string* padding, std::vector<int64_t>* explicit_paddings) {
  TA_RETURN_IF_ERROR(c->GetAttr("padding", padding));
  if (*padding != "EXPLICIT") {
    std::vector<int64_t> given;
    if (c->GetAttr("explicit_paddings", &given).ok() && !given.empty()) {
      return errors::InvalidArgument("explicit_paddings attribute must be empty if the padding attribute is not "
                                     "EXPLICIT");
    }
    explicit_paddings->assign(8, 0);
    return Status::OK();
  }
  TA_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", explicit_paddings));
  if (explicit_paddings->size() != 8) {
    return errors::InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                                   explicit_paddings->size());
  }
  for (int64_t p : *explicit_paddings) {
    if (p < 0) return errors::InvalidArgument("All elements of explicit_paddings must be nonnegative, got ", p);
  }
  Layout l;
  TA_RETURN_IF_ERROR(ReadLayout(c, &l));
  for (int dim : {l.batch, l.depth}) {
    if ((*explicit_paddings)[2 * dim] != 0 || (*explicit_paddings)[2 * dim + 1] != 0) {
      return errors::InvalidArgument("Nonzero explicit padding in the batch or depth dimensions is not supported");
    }
  }
  return Status::OK();
}

// A 4-D shape in `layout` from its batch, rows, cols and depth.
PartialTensorShape Shape4(const Layout& l, int64_t batch, int64_t rows, int64_t cols, int64_t depth) {
  std::vector<int64_t> dims(4);
  dims[l.batch] = batch;
  dims[l.rows] = rows;
  dims[l.cols] = cols;
  dims[l.depth] = depth;
  return InferenceContext::MakeShape(dims);
}

// Conv2D: input [batch, rows, cols, depth] (NHWC) and filter [rows, cols, in, out].
Status Conv2DShape(InferenceContext* c) {
  Layout l;
  TA_RETURN_IF_ERROR(ReadLayout(c, &l));
  PartialTensorShape input, filter;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  std::vector<int64_t> strides, dilations, paddings;
  TA_RETURN_IF_ERROR(ReadFourInts(c, "strides", &strides));
  TA_RETURN_IF_ERROR(ReadFourInts(c, "dilations", &dilations));
  std::string padding;
  TA_RETURN_IF_ERROR(ReadPaddings(c, &padding, &paddings));
  const int64_t in_depth = InferenceContext::Dim(input, l.depth);
  const int64_t filter_depth = InferenceContext::Dim(filter, 2);
  if (filter_depth == 0) return errors::InvalidArgument("Depth of filter must not be 0");
  if (InferenceContext::ValueKnown(in_depth) && InferenceContext::ValueKnown(filter_depth)) {
    if (filter_depth == 0 || in_depth % filter_depth != 0) {
      return errors::InvalidArgument("Depth of input (", in_depth, ") is not a multiple of input depth of filter (",
                                     filter_depth, ")");
    }
    const int64_t groups = in_depth / filter_depth;
    const int64_t out_depth = InferenceContext::Dim(filter, 3);
    if (InferenceContext::ValueKnown(out_depth) && out_depth % groups != 0) {
      return errors::InvalidArgument("Depth of output (", out_depth, ") is not a multiple of the number of groups (",
                                     groups, ")");
    }
  }
  int64_t rows, cols;
  TA_RETURN_IF_ERROR(WindowedOutputSize(InferenceContext::Dim(input, l.rows), InferenceContext::Dim(filter, 0),
                                        dilations[l.rows], strides[l.rows], padding,
                                        {paddings[2 * l.rows], paddings[2 * l.rows + 1]}, &rows));
  TA_RETURN_IF_ERROR(WindowedOutputSize(InferenceContext::Dim(input, l.cols), InferenceContext::Dim(filter, 1),
                                        dilations[l.cols], strides[l.cols], padding,
                                        {paddings[2 * l.cols], paddings[2 * l.cols + 1]}, &cols));
  c->set_output(0, Shape4(l, InferenceContext::Dim(input, l.batch), rows, cols, InferenceContext::Dim(filter, 3)));
  return Status::OK();
}

// Conv2DBackpropInput: the shape is input_sizes, all 4 dimensions or only the 2 spatial ones
// (then batch from out_backprop, depth from the filter).
Status Conv2DBackpropInputShape(InferenceContext* c) {
  Layout l;
  TA_RETURN_IF_ERROR(ReadLayout(c, &l));
  PartialTensorShape sizes, filter, out_backprop;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &sizes));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &out_backprop));
  const int64_t n = InferenceContext::Dim(sizes, 0);
  if (n == 2) {
    std::vector<int64_t> values;
    bool known = false;
    TA_RETURN_IF_ERROR(c->GetIntValues(0, &values, &known));
    const int64_t rows = known ? values[0] : shape_inference::kUnknownDim;
    const int64_t cols = known ? values[1] : shape_inference::kUnknownDim;
    c->set_output(0, Shape4(l, InferenceContext::Dim(out_backprop, l.batch), rows, cols,
                            InferenceContext::Dim(filter, 2)));
    return Status::OK();
  }
  if (InferenceContext::ValueKnown(n) && n != 4) {
    return errors::InvalidArgument("Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: ",
                                   n);
  }
  PartialTensorShape shape;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &shape));
  TA_RETURN_IF_ERROR(c->WithRank(shape, 4, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

// Conv2DBackpropFilter: the shape is filter_sizes.
Status Conv2DBackpropFilterShape(InferenceContext* c) {
  PartialTensorShape input, out_backprop, shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &out_backprop));
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &shape));
  TA_RETURN_IF_ERROR(c->WithRank(shape, 4, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

// _Conv2DBackpropFilterWithBias: Conv2DBackpropFilter's shape, and a vector of
// out_backprop's depth (BiasAddGrad of it, NHWC).
Status Conv2DBackpropFilterWithBiasShape(InferenceContext* c) {
  TA_RETURN_IF_ERROR(Conv2DBackpropFilterShape(c));
  PartialTensorShape out_backprop;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &out_backprop));
  c->set_output(1, InferenceContext::Vector(InferenceContext::Dim(out_backprop, 3)));
  return Status::OK();
}

// A V2 pool's window: its ksize and strides inputs (the last two), 4-element vectors, read
// when constant (*known false otherwise: TensorFlow then leaves the output's shape unknown).
// As TensorFlow's MaxPoolV2Shape, only the strides the output's size divides by (all but the
// batch's) must be positive; ksize is left to the kernel.
Status ReadWindowInputs(InferenceContext* c, std::vector<int64_t>* ksize, std::vector<int64_t>* strides,
                        bool* known) {
  *known = true;
  const int n = c->num_inputs();
  for (auto [i, values] : {std::pair{n - 2, ksize}, std::pair{n - 1, strides}}) {
    PartialTensorShape vector;
    int64_t unused;
    TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vector));
    TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(vector, 0), 4, &unused));
    bool constant = false;
    TA_RETURN_IF_ERROR(c->GetIntValues(i, values, &constant));
    if (!constant) {
      *known = false;
      return Status::OK();
    }
  }
  for (int d = 1; d < 4; ++d) {
    if ((*strides)[d] <= 0) return errors::InvalidArgument("Stride must be > 0, but got ", (*strides)[d]);
  }
  return Status::OK();
}

// MaxPool and AvgPool: the input's batch, its windowed rows and cols, its depth divided by
// the depth window. The V2 ops (MaxPoolV2, MaxPoolGradGradV2) take the window from their
// ksize and strides inputs instead of attrs.
Status PoolShape(InferenceContext* c) {
  Layout l;
  bool vect_c = false;
  TA_RETURN_IF_ERROR(ReadLayout(c, &l, &vect_c));
  if (vect_c) {  // a 5-D layout with a packed channel dimension: not inferred here
    c->set_output(0, InferenceContext::UnknownShape());
    return Status::OK();
  }
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  std::vector<int64_t> ksize, strides, paddings;
  const std::string& op = c->node_def().op();
  const bool v2 = op == "MaxPoolV2" || op == "MaxPoolGradGradV2";
  if (v2) {
    bool known = false;
    TA_RETURN_IF_ERROR(ReadWindowInputs(c, &ksize, &strides, &known));
    if (!known) {
      c->set_output(0, InferenceContext::UnknownShape());
      return Status::OK();
    }
  } else {
    TA_RETURN_IF_ERROR(ReadFourInts(c, "ksize", &ksize));
    TA_RETURN_IF_ERROR(ReadFourInts(c, "strides", &strides));
  }
  std::string padding;
  TA_RETURN_IF_ERROR(ReadPaddings(c, &padding, &paddings));
  int64_t rows, cols, depth;
  TA_RETURN_IF_ERROR(WindowedOutputSize(InferenceContext::Dim(input, l.rows), ksize[l.rows], 1, strides[l.rows],
                                        padding, {paddings[2 * l.rows], paddings[2 * l.rows + 1]}, &rows));
  TA_RETURN_IF_ERROR(WindowedOutputSize(InferenceContext::Dim(input, l.cols), ksize[l.cols], 1, strides[l.cols],
                                        padding, {paddings[2 * l.cols], paddings[2 * l.cols + 1]}, &cols));
  if (v2 || op == "MaxPool" || op == "MaxPoolGradGrad") {
    // TensorFlow's MaxPool (and MaxPoolGradGrad's shape) windows the depth too (a VALID pool of an empty depth is refused).
    TA_RETURN_IF_ERROR(WindowedOutputSize(InferenceContext::Dim(input, l.depth), ksize[l.depth], 1, strides[l.depth],
                                          padding, {paddings[2 * l.depth], paddings[2 * l.depth + 1]}, &depth));
  } else {
    TA_RETURN_IF_ERROR(c->Divide(InferenceContext::Dim(input, l.depth), ksize[l.depth], /*evenly=*/true, &depth));
  }
  c->set_output(0, Shape4(l, InferenceContext::Dim(input, l.batch), rows, cols, depth));
  return Status::OK();
}

// MaxPoolGrad: orig_input's shape.
Status MaxPoolGradShape(InferenceContext* c) { return shape_inference::UnchangedShapeWithRank(c, 4); }

// MaxPoolGradGrad(V2): MaxPool's output shape from orig_input; grad must have orig_input's
// shape and orig_output the pool's (TensorFlow's merges).
Status MaxPoolGradGradShape(InferenceContext* c) {
  TA_RETURN_IF_ERROR(PoolShape(c));
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(2), &unused));
  TA_RETURN_IF_ERROR(c->Merge(c->input(1), c->output(0), &unused));
  return Status::OK();
}

// AvgPoolGrad: the shape in orig_input_shape.
Status AvgPoolGradShape(InferenceContext* c) {
  PartialTensorShape shape;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &shape));
  TA_RETURN_IF_ERROR(c->WithRank(shape, 4, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

using tensoract::shape_inference::MergeBothInputsShapeFn;
using tensoract::shape_inference::UnchangedShape;

// TensorFlow's realnumbertypes, in its order.
#define TA_REAL_NUMBER_TYPES \
  "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
#define TA_NUMBER_TYPES                                                                       \
  "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "     \
  "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}"
#define TA_FLOAT_TYPES "{half, bfloat16, float, double}"

REGISTER_OP("Relu")
    .Input("features: T").Output("activations: T")
    .Attr("T: {" TA_REAL_NUMBER_TYPES ", qint8}")
    .SetShapeFn(UnchangedShape)
    .Doc("max(features, 0).");

REGISTER_OP("ReluGrad")
    .Input("gradients: T").Input("features: T").Output("backprops: T")
    .Attr("T: {" TA_REAL_NUMBER_TYPES "}")
    .SetShapeFn(MergeBothInputsShapeFn)
    .Doc("gradients where features > 0, else 0.");

REGISTER_OP("Relu6")
    .Input("features: T").Output("activations: T")
    .Attr("T: {" TA_REAL_NUMBER_TYPES "}")
    .SetShapeFn(UnchangedShape)
    .Doc("min(max(features, 0), 6).");

REGISTER_OP("Relu6Grad")
    .Input("gradients: T").Input("features: T").Output("backprops: T")
    .Attr("T: {" TA_REAL_NUMBER_TYPES "}")
    .SetShapeFn(MergeBothInputsShapeFn)
    .Doc("gradients where 0 < features < 6, else 0.");

REGISTER_OP("Elu")
    .Input("features: T").Output("activations: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(UnchangedShape)
    .Doc("exp(features) - 1 where features < 0, else features.");

REGISTER_OP("EluGrad")
    .Input("gradients: T").Input("outputs: T").Output("backprops: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(MergeBothInputsShapeFn)
    .Doc("gradients * (outputs + 1) where outputs < 0, else gradients.");

REGISTER_OP("Softplus")
    .Input("features: T").Output("activations: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(UnchangedShape)
    .Doc("log(exp(features) + 1).");

REGISTER_OP("SoftplusGrad")
    .Input("gradients: T").Input("features: T").Output("backprops: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(MergeBothInputsShapeFn)
    .Doc("gradients / (1 + exp(-features)).");

REGISTER_OP("Softsign")
    .Input("features: T").Output("activations: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(UnchangedShape)
    .Doc("features / (abs(features) + 1).");

REGISTER_OP("SoftsignGrad")
    .Input("gradients: T").Input("features: T").Output("backprops: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(MergeBothInputsShapeFn)
    .Doc("gradients / (1 + abs(features)) ** 2.");

REGISTER_OP("BiasAdd")
    .Input("value: T").Input("bias: T").Output("output: T")
    .Attr("T: " TA_NUMBER_TYPES)
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(tensoract::BiasAddShape)
    .Doc("value + bias, the 1-D bias added along the channel dimension.");

// TensorFlow 1's BiasAdd: channels last only (no data_format attr).
REGISTER_OP("BiasAddV1")
    .Input("value: T").Input("bias: T").Output("output: T")
    .Attr("T: " TA_NUMBER_TYPES)
    .SetShapeFn(tensoract::BiasAddShape)
    .Doc("value + bias, the 1-D bias added along the last dimension.");

// predictions [batch, classes], targets [batch]: the output is [batch].
REGISTER_OP("InTopKV2")
    .Input("predictions: float").Input("targets: T").Input("k: T").Output("precision: bool")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      using tensoract::shape_inference::InferenceContext;
      tensoract::PartialTensorShape predictions, targets;
      TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &predictions));
      TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &targets));
      int64_t batch = 0;
      TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(predictions, 0), InferenceContext::Dim(targets, 0), &batch));
      c->set_output(0, InferenceContext::Vector(batch));
      return tensoract::Status::OK();
    })
    .Doc("Whether each row's target class is among its k largest predictions (fewer than k predictions "
         "larger than its own); false where the target is out of range or a prediction of the row is not "
         "finite.");

REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T").Output("output: T")
    .Attr("T: " TA_NUMBER_TYPES)
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(tensoract::BiasAddGradShape)
    .Doc("out_backprop summed over every dimension but the channel one.");

REGISTER_OP("Softmax")
    .Input("logits: T").Output("softmax: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(tensoract::SoftmaxShape)
    .Doc("exp(logits) / sum(exp(logits)) along the last dimension.");

// Attention of Keras' MultiHeadAttention, as the remapper fuses it
// (graph/optimizer/attention_fusion.h): softmax(scale * Einsum("BTNH,BSNH->BNTS", query,
// key) + mask), then Einsum("BNTS,BSNH->BTNH", that, value), without the [B, N, T, S] scores
// ever written out. With num_masks 1 the mask (Keras' large negative number where attention
// is masked) is added to the scaled scores, broadcast from [B or 1, N or 1, T, S]. tensoract's own op: only the remapper creates it, after placement.
REGISTER_OP("_FusedAttention")
    .Input("query: T").Input("key: T").Input("value: T").Input("masks: num_masks * T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("scale: float = 1.0")
    .Attr("num_masks: int >= 0 = 0")
    .SetShapeFn(tensoract::FusedAttentionShape)
    .Doc("softmax(scale * query . key^T over each head's depth [+ mask]) . value, per batch element and head.");

// Per-channel steps and an activation on a tensor no product feeds (a pre-activation batch
// norm and Relu: DenseNet's, ResNetV2's), as the remapper fuses them: the epilogue of the
// _Fused product ops (kernels/cpu/fused_epilogue.h) on its own, one pass instead of one per
// step. tensoract's own op: only the remapper creates it, after placement.
REGISTER_OP("_FusedChannelSteps")
    .Input("x: T").Input("args: num_args * T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("x through fused_ops: per-channel steps (BiasAdd, ChannelMul, FusedBatchNorm), then an activation.");

// A pre-activation (_FusedChannelSteps: DenseNet's batch norm and Relu before each of its
// 1x1 convolutions) whose only consumer is a 1x1 convolution of stride 1: one kernel applies
// the steps to a band of rows in cache and convolves it, so the activated tensor (as large as
// DenseNet's whole concatenated block so far) never goes to memory
// (kernels/cpu/steps_conv_op.cc). tensoract's own op, made by the remapper after placement
// (graph/optimizer/steps_conv_fusion.h): the two nodes' attrs are kept under the prefixes
// _steps_ and _conv_; `convolution` is the second node's op.
REGISTER_OP("_FusedChannelStepsConv2D")
    .Input("x: num_pieces * T").Input("step_args: num_step_args * Targs").Input("filter: T")
    .Input("args: num_args * Targs")
    .Output("output: T")
    .Attr("T: {float, bfloat16}")
    .Attr("Targs: {float} = DT_FLOAT")
    .Attr("num_pieces: int >= 1 = 1")
    .Attr("num_step_args: int >= 0")
    .Attr("num_args: int >= 0")
    .Attr("convolution: {'Conv2D', '_FusedConv2D'}")
    .SetShapeFn(tensoract::StepsConvShape)
    .Doc("_FusedChannelSteps then a 1x1 Conv2D or _FusedConv2D of stride 1, a band of rows at a time; x is "
         "the concatenation of its num_pieces pieces along the channels. In bfloat16 (a graph keeping its "
         "activations in bfloat16) the per-channel args stay float.");

REGISTER_OP("LogSoftmax")
    .Input("logits: T").Output("logsoftmax: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(tensoract::SoftmaxShape)
    .Doc("logits - log(sum(exp(logits))) along the last dimension.");

REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T").Input("labels: T")
    .Output("loss: T").Output("backprop: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .SetShapeFn(tensoract::SoftmaxCrossEntropyShape)
    .Doc("Per-example cross entropy of softmax(features) against label distributions, and its gradient.");

REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T").Input("labels: Tlabels")
    .Output("loss: T").Output("backprop: T")
    .Attr("T: " TA_FLOAT_TYPES)
    .Attr("Tlabels: {int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::SparseSoftmaxCrossEntropyShape)
    .Doc("Per-example cross entropy of softmax(features) against class indices, and its gradient.");

// Convolutions and pools. The CPU kernels compute NHWC only, as TensorFlow's do.
#define TA_CONV_ATTRS                                                                          \
  .Attr("T: {half, bfloat16, float, double, int32}")                                          \
      .Attr("strides: list(int)")                                                             \
      .Attr("use_cudnn_on_gpu: bool = true")                                                  \
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")                                         \
      .Attr("explicit_paddings: list(int) = []")                                              \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")                                         \
      .Attr("dilations: list(int) = [1, 1, 1, 1]")

REGISTER_OP("Conv2D")
    .Input("input: T").Input("filter: T").Output("output: T")
    TA_CONV_ATTRS
    .SetShapeFn(tensoract::Conv2DShape)
    .Doc("2-D convolution of a 4-D input with a [rows, cols, in_depth, out_depth] filter.");

// Conv2D with a BiasAdd (and a Relu) applied to its output in the same kernel: what the
// remapper (graph/optimizer/remapper.h) makes of Conv2D -> BiasAdd [-> Relu] on a CPU, as
// TensorFlow's grappler remapper does. args: the bias.
REGISTER_OP("_FusedConv2D")
    .Input("input: T").Input("filter: T").Input("args: TArgs").Input("host_args: num_host_args * float")
    .Output("output: T")
    .Attr("T: {half, float, double, int8, qint8}")
    .Attr("TArgs: list(type) >= 1")
    .Attr("num_args: int >= 0")
    .Attr("num_host_args: int >= 0 = 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(tensoract::Conv2DShape)
    .Doc("Conv2D followed by the fused_ops (BiasAdd, optionally Relu) in one kernel.");

// _FusedConv2D as TensorFlow's oneDNN build names it, with bfloat16 among its types: what
// graph/optimizer/mixed_precision.h makes of a _FusedConv2D in a graph that keeps its
// activations in bfloat16 (args: the per-channel steps' float values, then the Add's
// operand in T). is_filter_const is TensorFlow's hint for caching the filter; the kernel
// here caches it anyway (OnednnWeightCache).
REGISTER_OP("_MklNativeFusedConv2D")
    .Input("input: T").Input("filter: T").Input("args: TArgs").Input("host_args: num_host_args * float")
    .Output("output: T")
    .Attr("T: {bfloat16, float, half}")
    .Attr("TArgs: list(type) >= 1")
    .Attr("num_args: int >= 0")
    .Attr("num_host_args: int >= 0 = 0")
    .Attr("strides: list(int)")
    .Attr("is_filter_const: bool = false")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("filter_format: {'HWIO', 'OIHW'} = 'HWIO'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(tensoract::Conv2DShape)
    .Doc("_FusedConv2D in bfloat16, float or half (TensorFlow's oneDNN op).");

REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32").Input("filter: T").Input("out_backprop: T").Output("output: T")
    TA_CONV_ATTRS
    .SetShapeFn(tensoract::Conv2DBackpropInputShape)
    .Doc("The gradient of Conv2D with respect to its input, of shape input_sizes.");

REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T").Input("filter_sizes: int32").Input("out_backprop: T").Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(tensoract::Conv2DBackpropFilterShape)
    .Doc("The gradient of Conv2D with respect to its filter, of shape filter_sizes.");

// Conv2DBackpropFilter and BiasAddGrad of the same out_backprop (a conv layer with a bias):
// what the remapper (graph/optimizer/remapper.h) makes of them. tensoract's own op (like
// TensorFlow's oneDNN-only _MklConv2DBackpropFilterWithBias): only the remapper creates it,
// after placement. NHWC only.
REGISTER_OP("_Conv2DBackpropFilterWithBias")
    .Input("input: T").Input("filter_sizes: int32").Input("out_backprop: T")
    .Output("filter_backprop: T").Output("bias_backprop: T")
    .Attr("T: {float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(tensoract::Conv2DBackpropFilterWithBiasShape)
    .Doc("Conv2DBackpropFilter(input, filter_sizes, out_backprop) and BiasAddGrad(out_backprop): the bias "
         "gradient summed on the pass the filter gradient makes over out_backprop.");

#undef TA_CONV_ATTRS

REGISTER_OP("MaxPool")
    .Input("input: T").Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(tensoract::PoolShape)
    .Doc("The maximum of each ksize window of the input.");

// MaxPool with the window as int32 tensors (what TensorFlow 2 writes): no EXPLICIT padding.
REGISTER_OP("MaxPoolV2")
    .Input("input: T").Input("ksize: int32").Input("strides: int32").Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(tensoract::PoolShape)
    .Doc("The maximum of each ksize window of the input; ksize and strides are inputs.");

REGISTER_OP("AvgPool")
    .Input("value: T").Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(tensoract::PoolShape)
    .Doc("The mean of each ksize window of the input, counting only elements inside it.");

// The inputs and window attrs MaxPoolGrad and the remapper's _MaxPoolGradWithReluGrad
// share: the remapper copies these attrs from one to the other.
#define TA_MAX_POOL_GRAD_SIGNATURE                                                             \
  .Input("orig_input: T")                                                                      \
      .Input("orig_output: T")                                                                 \
      .Input("grad: T")                                                                        \
      .Output("output: T")                                                                     \
      .Attr("ksize: list(int) >= 4")                                                           \
      .Attr("strides: list(int) >= 4")                                                         \
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")                                          \
      .Attr("explicit_paddings: list(int) = []")                                               \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")

REGISTER_OP("MaxPoolGrad")
    TA_MAX_POOL_GRAD_SIGNATURE
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64} = DT_FLOAT")
    .SetShapeFn(tensoract::MaxPoolGradShape)
    .Doc("MaxPool's gradient: each window's gradient goes to its (first) maximum.");

// MaxPoolGrad followed by ReluGrad with the pool's input as features: what the remapper
// (graph/optimizer/remapper.h) makes of a Relu -> MaxPool layer's gradient. tensoract's
// own op (TensorFlow has none like it): only the remapper creates it, after placement.
REGISTER_OP("_MaxPoolGradWithReluGrad")
    TA_MAX_POOL_GRAD_SIGNATURE
    .Attr("T: {float, double}")
    .SetShapeFn(tensoract::MaxPoolGradShape)
    .Doc("ReluGrad(MaxPoolGrad(orig_input, orig_output, grad), orig_input): a window's gradient goes to its "
         "(first) maximum when that maximum is positive.");

#undef TA_MAX_POOL_GRAD_SIGNATURE

// MaxPoolGrad's gradient with respect to its grad (second-order gradients through a max
// pool): shaped like the pool's output.
REGISTER_OP("MaxPoolGradGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {" TA_REAL_NUMBER_TYPES "}")
    .SetShapeFn(tensoract::MaxPoolGradGradShape)
    .Doc("For each window, grad at the first tap (raster order) whose orig_input equals orig_output.");

REGISTER_OP("MaxPoolGradV2")
    .Input("orig_input: T").Input("orig_output: T").Input("grad: T").Input("ksize: int32").Input("strides: int32")
    .Output("output: T")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64} = DT_FLOAT")
    .SetShapeFn(tensoract::MaxPoolGradShape)
    .Doc("MaxPoolGrad with ksize and strides as inputs.");

REGISTER_OP("MaxPoolGradGradV2")
    .Input("orig_input: T").Input("orig_output: T").Input("grad: T").Input("ksize: int32").Input("strides: int32")
    .Output("output: T")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {" TA_REAL_NUMBER_TYPES "}")
    .SetShapeFn(tensoract::MaxPoolGradGradShape)
    .Doc("MaxPoolGradGrad with ksize and strides as inputs.");

REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32").Input("grad: T").Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(tensoract::AvgPoolGradShape)
    .Doc("AvgPool's gradient: each window's gradient spread evenly over its elements.");

#undef TA_REAL_NUMBER_TYPES
#undef TA_NUMBER_TYPES
#undef TA_FLOAT_TYPES
