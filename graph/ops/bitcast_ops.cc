// Bitcast: a tensor's bytes read as another type, as TensorFlow 2.21 defines it.
#include "base/types.h"
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// TensorFlow's: a wider type drops the last dimension (which must be the ratio when known),
// a narrower one appends a dimension of the ratio, one of the same size keeps the shape.
Status BitcastShape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  if (!InferenceContext::RankKnown(input)) return shape_inference::UnknownShape(c);
  DataType input_type, output_type;
  TA_RETURN_IF_ERROR(c->GetAttr("T", &input_type));
  TA_RETURN_IF_ERROR(c->GetAttr("type", &output_type));
  const int in_size = DataTypeSize(input_type), out_size = DataTypeSize(output_type);
  if (in_size == 0 || out_size == 0) {
    return errors::InvalidArgument("Cannot bitcast types ", DataTypeString(input_type), " to ",
                                   DataTypeString(output_type), " because one of the type sizes is zero.");
  }
  PartialTensorShape out;
  if (in_size == out_size) {
    out = input;
  } else if (in_size < out_size) {
    PartialTensorShape at_least_1;
    TA_RETURN_IF_ERROR(c->WithRankAtLeast(input, 1, &at_least_1));
    const int64_t ratio = out_size / in_size;
    const int64_t last = InferenceContext::Dim(at_least_1, InferenceContext::Rank(at_least_1) - 1);
    if (last != shape_inference::kUnknownDim && last != ratio) {
      return errors::InvalidArgument("Cannot bitcast due to shape. ", last, " does not match ", ratio);
    }
    TA_RETURN_IF_ERROR(c->Subshape(at_least_1, 0, -1, &out));
  } else {
    TA_RETURN_IF_ERROR(c->Concatenate(input, InferenceContext::Vector(in_size / out_size), &out));
  }
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

#define TA_BITCAST_TYPES                                                                                     \
  "{bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, complex64, " \
  "complex128, qint8, quint8, qint16, quint16, qint32}"
REGISTER_OP("Bitcast")
    .Input("input: T").Output("output: type")
    .Attr("T: " TA_BITCAST_TYPES)
    .Attr("type: " TA_BITCAST_TYPES)
    .SetShapeFn(tensoract::BitcastShape)
    .Doc("input's bytes as `type`: a wider type takes the last dimension (of the sizes' ratio) into one "
         "element, a narrower one splits each element along a new last dimension.");
#undef TA_BITCAST_TYPES
