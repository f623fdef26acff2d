// Turning the bytes a reader gives into tensors: DecodeRaw (fixed-size elements, as in
// Fashion-MNIST's IDX records), the tf.Example parsers (ParseExample, ParseExampleV2,
// ParseSingleExample: dense features of fixed shape and sparse, variable-length ones;
// ragged features are refused) and a whole tensor to and from its serialized TensorProto
// (SerializeTensor, ParseTensor: tf.io.serialize_tensor and tf.io.parse_tensor).
// Definitions are TensorFlow 2.21's.
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

// Dense outputs: the batch's shape (none for ParseSingleExample) then each dense_shape;
// sparse outputs: indices [?, rank + 1], values [?], dense shape [rank + 1].
Status ParseExampleShape(InferenceContext* c, bool single, int num_sparse, int first_sparse_output) {
  std::vector<PartialTensorShape> dense_shapes;
  TA_RETURN_IF_ERROR(c->GetAttr("dense_shapes", &dense_shapes));
  const PartialTensorShape& serialized = c->input(0);
  std::vector<int64_t> batch;
  if (!single) {
    if (serialized.unknown_rank()) {
      batch.push_back(-1);
    } else {
      for (int d = 0; d < serialized.dims(); ++d) batch.push_back(serialized.dim_size(d));
    }
  }
  const int64_t rank = static_cast<int64_t>(batch.size()) + 1;
  int out = first_sparse_output;
  for (int i = 0; i < num_sparse; ++i) c->set_output(out++, PartialTensorShape(std::vector<int64_t>{-1, rank}));
  for (int i = 0; i < num_sparse; ++i) c->set_output(out++, PartialTensorShape(std::vector<int64_t>{-1}));
  for (int i = 0; i < num_sparse; ++i) c->set_output(out++, PartialTensorShape(std::vector<int64_t>{rank}));
  for (const PartialTensorShape& shape : dense_shapes) {
    std::vector<int64_t> dims = batch;
    for (int d = 0; d < shape.dims(); ++d) dims.push_back(shape.dim_size(d));
    c->set_output(out++, shape.unknown_rank() ? PartialTensorShape() : PartialTensorShape(dims));
  }
  for (; out < c->num_outputs(); ++out) c->set_output(out, PartialTensorShape());
  return Status::OK();
}

Status ParseExampleV1Shape(InferenceContext* c) {
  int64_t num_sparse = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("Nsparse", &num_sparse));
  return ParseExampleShape(c, false, static_cast<int>(num_sparse), 0);
}

Status ParseExampleV2Shape(InferenceContext* c) {
  int64_t num_sparse = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("num_sparse", &num_sparse));
  return ParseExampleShape(c, false, static_cast<int>(num_sparse), 0);
}

Status ParseSingleExampleShape(InferenceContext* c) {
  int64_t num_sparse = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("num_sparse", &num_sparse));
  return ParseExampleShape(c, true, static_cast<int>(num_sparse), 0);
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

REGISTER_OP("SerializeTensor")
    .Input("tensor: T")
    .Output("serialized: string")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("The tensor as a serialized TensorProto (elements in tensor_content, strings in string_val).");

REGISTER_OP("ParseTensor")
    .Input("serialized: string")
    .Output("output: out_type")
    .Attr("out_type: type")
    .SetShapeFn(tensoract::shape_inference::UnknownShape)
    .Doc("The tensor a serialized TensorProto holds; its dtype must be out_type.");

REGISTER_OP("ParseExample")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: Nsparse * string")
    .Input("dense_keys: Ndense * string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: Nsparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: Nsparse * int64")
    .Output("dense_values: Tdense")
    .Attr("Nsparse: int >= 0")
    .Attr("Ndense: int >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(tensoract::ParseExampleV1Shape)
    .Doc("Parses a batch of serialized tf.Examples into dense and sparse tensors.");

REGISTER_OP("ParseExampleV2")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: string")
    .Input("dense_keys: string")
    .Input("ragged_keys: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Output("ragged_values: ragged_value_types")
    .Output("ragged_row_splits: ragged_split_types")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("ragged_value_types: list({float,int64,string}) >= 0")
    .Attr("ragged_split_types: list({int32,int64}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(tensoract::ParseExampleV2Shape)
    .Doc("tf.io.parse_example's op: keys as tensors (ragged keys are refused here).");

REGISTER_OP("ParseSingleExample")
    .Input("serialized: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_keys: list(string) >= 0")
    .Attr("dense_keys: list(string) >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(tensoract::ParseSingleExampleShape)
    .Doc("Parses one serialized tf.Example.");
