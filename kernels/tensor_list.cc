#include "kernels/tensor_list.h"

#include <cstring>
#include <memory>

namespace tensoract {

std::string TensorList::DebugString() const {
  int set = 0;
  for (const auto& t : tensors) set += t.has_value();
  return StrCat("TensorList<", DataTypeString(element_dtype), " ", element_shape.DebugString(), ", ",
                tensors.size(), " elements, ", set, " set>");
}

Tensor TensorListTensor(TensorList list) {
  Tensor t(tensorflow::DT_VARIANT, TensorShape());
  *t.base<Variant>() = Variant(std::make_shared<const TensorList>(std::move(list)));
  return t;
}

StatusOr<const TensorList*> TensorListFrom(const Tensor& t, const std::string& what) {
  if (t.dtype() != tensorflow::DT_VARIANT || t.dims() != 0) {
    return errors::InvalidArgument(what, " must be a scalar variant holding a TensorList, but it is a ",
                                   DataTypeString(t.dtype()), " tensor of shape ", t.shape().DebugString());
  }
  const Variant& v = *t.base<Variant>();
  const TensorList* list = v.get<TensorList>();
  if (list == nullptr) {
    return errors::InvalidArgument(what, " must hold a TensorList, but it holds ", v.TypeName());
  }
  return list;
}

StatusOr<PartialTensorShape> ElementShapeFromTensor(const Tensor& t) {
  auto dim = [&](int64_t i) -> int64_t {
    return t.dtype() == tensorflow::DT_INT32 ? t.base<int32_t>()[i] : t.base<int64_t>()[i];
  };
  if (t.dtype() != tensorflow::DT_INT32 && t.dtype() != tensorflow::DT_INT64) {
    return errors::InvalidArgument("an element shape must be int32 or int64, not ", DataTypeString(t.dtype()));
  }
  if (t.dims() == 0) {
    if (dim(0) != -1) {
      return errors::InvalidArgument("an element shape given as a scalar must be -1 (an unknown rank), not ", dim(0));
    }
    return PartialTensorShape();
  }
  if (t.dims() != 1) {
    return errors::InvalidArgument("an element shape must be a scalar or a vector, not a tensor of shape ",
                                   t.shape().DebugString());
  }
  std::vector<int64_t> dims(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    dims[i] = dim(i);
    if (dims[i] < -1) return errors::InvalidArgument("an element shape has a dimension of ", dims[i]);
  }
  return PartialTensorShape(std::move(dims));
}

StatusOr<PartialTensorShape> MergeShapes(const PartialTensorShape& a, const PartialTensorShape& b) {
  if (a.unknown_rank()) return b;
  if (b.unknown_rank()) return a;
  if (a.dims() != b.dims()) {
    return errors::InvalidArgument("shapes ", a.DebugString(), " and ", b.DebugString(), " have different ranks");
  }
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.dims(); ++i) {
    const int64_t x = a.dim_size(i), y = b.dim_size(i);
    if (x >= 0 && y >= 0 && x != y) {
      return errors::InvalidArgument("shapes ", a.DebugString(), " and ", b.DebugString(), " differ in dimension ", i);
    }
    dims[i] = x >= 0 ? x : y;
  }
  return PartialTensorShape(std::move(dims));
}

StatusOr<Tensor> ZerosTensor(DataType dtype, const TensorShape& shape) {
  if (!DataTypeIsFixedSize(dtype) && dtype != tensorflow::DT_STRING) {
    return errors::InvalidArgument("cannot make zeros of type ", DataTypeString(dtype));
  }
  TA_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(cpu_allocator(), dtype, shape));
  // Zero bits are zero in every fixed-size type (floats, integers, bool, complex); a new
  // string tensor holds empty strings already.
  if (dtype != tensorflow::DT_STRING && t.TotalBytes() > 0) std::memset(t.data(), 0, t.TotalBytes());
  return t;
}

}  // namespace tensoract
