// TensorList: the value of a DT_VARIANT tensor made by the TensorList ops (TensorFlow 2's
// TensorArray, and the accumulators through which a While's gradient reads the forward
// loop's intermediates).
//
// A list has an element dtype, an element shape that may be partly known (every element
// must be compatible with it), an optional maximum length, and its elements; an element a
// TensorListReserve made and nothing has set yet is absent (std::nullopt), and reads as
// zeros of the element shape, as in TensorFlow. Lists are values: an op that changes one
// makes a new list, whose elements share the old one's tensor buffers, or changes the list
// in place where nothing else holds it (a loop's list: appending stays O(1)).
#ifndef TENSORACT_KERNELS_TENSOR_LIST_H_
#define TENSORACT_KERNELS_TENSOR_LIST_H_

#include <optional>
#include <string>
#include <vector>

#include "base/tensor_shape.h"
#include "kernels/tensor.h"
#include "kernels/variant.h"

namespace tensoract {

struct TensorList : VariantValue {
  DataType element_dtype = tensorflow::DT_INVALID;
  PartialTensorShape element_shape;  // unknown rank by default
  int max_num_elements = -1;         // -1: no limit
  std::vector<std::optional<Tensor>> tensors;

  std::string TypeName() const override { return "tensorflow::TensorList"; }
  std::string DebugString() const override;
  // TensorFlow's encoding: the set elements as tensors; in the metadata, varint64s of the
  // number of unset elements, their indices, element_dtype and max_num_elements, then the
  // element shape's TensorShapeProto.
  void Encode(tensorflow::VariantTensorDataProto* data) const override;
};

// A variant holding `list`, and a scalar DT_VARIANT tensor holding it.
Variant TensorListVariant(TensorList list);
Tensor TensorListTensor(TensorList list);

// The list in `t` (a scalar variant holding a TensorList), or InvalidArgument naming `what`.
StatusOr<const TensorList*> TensorListFrom(const Tensor& t, const std::string& what);

// An element shape given as a tensor, as the TensorList ops take it: a scalar -1 for an
// unknown rank, or a vector of int32 or int64 dimensions, -1 for an unknown one.
StatusOr<PartialTensorShape> ElementShapeFromTensor(const Tensor& t);

// The shape both `a` and `b` describe, or InvalidArgument when they cannot be one shape.
StatusOr<PartialTensorShape> MergeShapes(const PartialTensorShape& a, const PartialTensorShape& b);

// A tensor of `dtype` and `shape` filled with zeros (empty strings for DT_STRING).
StatusOr<Tensor> ZerosTensor(DataType dtype, const TensorShape& shape);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_TENSOR_LIST_H_
