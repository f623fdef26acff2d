// Turning the bytes a reader gives into tensors: DecodeRaw (fixed-size elements, as in
// Fashion-MNIST's IDX records). Definitions are TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// The input's shape plus one dimension: the elements in each string (unknown).
Status DecodeRawShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < in.dims(); ++d) dims.push_back(in.dim_size(d));
  dims.push_back(-1);
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("DecodeRaw")
    .Input("bytes: string")
    .Output("output: out_type")
    .Attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, bool, bfloat16}")
    .Attr("little_endian: bool = true")
    .SetShapeFn(tensoract::DecodeRawShape)
    .Doc("Each string's bytes as a vector of out_type; every string must hold the same number.");
