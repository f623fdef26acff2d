// Arithmetic ops beyond the element-wise ones: running sums and products along an axis
// (Cumsum, Cumprod), the k largest entries of each row (TopKV2) and clipping to a range
// (ClipByValue), counts of values (Bincount), closeness (ApproximateEqual) and the checks
// for infinities and NaNs (CheckNumerics, CheckNumericsV2). Definitions match TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;

// values and indices: the input with its last dimension replaced by k.
Status TopKV2Shape(InferenceContext* c) {
  PartialTensorShape input, unused;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
  if (InferenceContext::Rank(c->input(1)) > 0) {
    return errors::InvalidArgument("Input must be scalar but has rank ", InferenceContext::Rank(c->input(1)));
  }
  std::vector<int64_t> k_values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &k_values, &known));
  int64_t k = kUnknownDim;
  if (known && k_values.size() == 1) {
    k = k_values[0];
    if (k < 0) {
      return errors::InvalidArgument("Dimension size, given by scalar input 1, must be non-negative but is ", k);
    }
  }
  const int64_t last = InferenceContext::Dim(input, -1);
  if (last >= 0 && k >= 0 && last < k) {
    return errors::InvalidArgument("input must have last dimension >= k = ", k, " but is ", last);
  }
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->Subshape(input, 0, -1, &out));
  TA_RETURN_IF_ERROR(c->Concatenate(out, InferenceContext::Vector(k), &out));
  c->set_output(0, out);
  c->set_output(1, out);
  return Status::OK();
}

// Bincount: size a scalar; with its value known (and not negative) the result is [size].
Status BincountShape(InferenceContext* c) {
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  std::vector<int64_t> size;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &size, &known));
  if (!known || size.size() != 1) {
    c->set_output(0, InferenceContext::UnknownShapeOfRank(1));
    return Status::OK();
  }
  if (size[0] < 0) return errors::InvalidArgument("size (", size[0], ") must be non-negative");
  c->set_output(0, InferenceContext::Vector(size[0]));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

#define TA_SCAN_OP(NAME, WHAT)                                                                                    \
  REGISTER_OP(NAME)                                                                                               \
      .Input("x: T").Input("axis: Tidx").Output("out: T")                                                         \
      .Attr("exclusive: bool = false").Attr("reverse: bool = false")                                              \
      .Attr("T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, "   \
            "qint16, quint16, uint16, complex128, half, uint32, uint64}")                                         \
      .Attr("Tidx: {int32, int64} = DT_INT32")                                                                    \
      .SetShapeFn(tensoract::shape_inference::UnchangedShape)                                                     \
      .Doc("The running " WHAT " of x along axis; exclusive leaves each element out of its own, reverse runs " \
           "from the end.")
TA_SCAN_OP("Cumsum", "sum");
TA_SCAN_OP("Cumprod", "product");
#undef TA_SCAN_OP

REGISTER_OP("TopKV2")
    .Input("input: T").Input("k: Tk").Output("values: T").Output("indices: index_type")
    .Attr("sorted: bool = true")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .Attr("Tk: {int16, int32, int64} = DT_INT32").Attr("index_type: {int16, int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::TopKV2Shape)
    .Doc("The k largest entries of each last-dimension row, largest first (equal ones by position), and where "
         "they are.");

REGISTER_OP("ClipByValue")
    .Input("t: T").Input("clip_value_min: T").Input("clip_value_max: T").Output("output: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, "
          "qint16, quint16, uint16, complex128, half, uint32, uint64}")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("t raised to clip_value_min and then lowered to clip_value_max (scalars or of t's shape).");

REGISTER_OP("Bincount")
    .Input("arr: int32").Input("size: int32").Input("weights: T").Output("bins: T")
    .Attr("T: {int32, int64, float, double}")
    .SetShapeFn(tensoract::BincountShape)
    .Doc("How often each value in [0, size) occurs in arr, or the sum of the weights where it does.");

// x and y must have one shape (no broadcasting); the output has x's.
REGISTER_OP("ApproximateEqual")
    .Input("x: T").Input("y: T").Output("z: bool")
    .SetIsCommutative()
    .Attr("T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, "
          "qint16, quint16, uint16, complex128, half, uint32, uint64}")
    .Attr("tolerance: float = 0.00001")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      tensoract::PartialTensorShape merged;
      TA_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &merged));
      return tensoract::shape_inference::UnchangedShape(c);
    })
    .Doc("|x - y| < tolerance, element-wise (computed in T).");

// Stateful, as TensorFlow's: never constant-folded or merged, so the check runs every step.
#define TA_CHECK_NUMERICS_OP(NAME, DOC)                      \
  REGISTER_OP(NAME)                                          \
      .Input("tensor: T").Output("output: T")                \
      .Attr("T: {bfloat16, half, float, double}")            \
      .Attr("message: string")                               \
      .SetIsStateful()                                       \
      .SetShapeFn(tensoract::shape_inference::UnchangedShape) \
      .Doc(DOC)
TA_CHECK_NUMERICS_OP("CheckNumerics",
                     "tensor, or an InvalidArgument error with `message` when it holds an infinity or a NaN.");
TA_CHECK_NUMERICS_OP("CheckNumericsV2",
                     "CheckNumerics whose error tells -Inf from +Inf.");
#undef TA_CHECK_NUMERICS_OP
