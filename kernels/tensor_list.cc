#include "kernels/tensor_list.h"

#include <cstring>
#include <limits>
#include <memory>

#include "base/varint.h"
#include "messages/tensor.pb.h"

namespace tensoract {

std::string TensorList::DebugString() const {
  int set = 0;
  for (const auto& t : tensors) set += t.has_value();
  return StrCat("TensorList<", DataTypeString(element_dtype), " ", element_shape.DebugString(), ", ",
                tensors.size(), " elements, ", set, " set>");
}

namespace {

// TensorList::Encode read back, checking what a peer or a file could get wrong.
StatusOr<Variant> DecodeTensorList(const tensorflow::VariantTensorDataProto& data) {
  const std::string& metadata = data.metadata();
  const char* p = metadata.data();
  const char* const end = p + metadata.size();
  auto bad = [&](const std::string& what) {
    return errors::InvalidArgument("an encoded TensorList is corrupt: ", what);
  };
  uint64_t unset = 0;
  if (!GetVarint64(&p, end, &unset)) return bad("its metadata ends before the number of unset elements");
  // Each index takes a byte at least: the count cannot exceed the bytes left.
  if (unset > static_cast<uint64_t>(end - p)) return bad(StrCat(unset, " unset elements announced"));
  TensorList list;
  const uint64_t total = unset + static_cast<uint64_t>(data.tensors_size());
  list.tensors.resize(total);
  std::vector<bool> is_unset(total, false);
  uint64_t previous = 0;
  for (uint64_t k = 0; k < unset; ++k) {
    uint64_t i = 0;
    if (!GetVarint64(&p, end, &i)) return bad("its metadata ends in the unset elements' indices");
    if (i >= total || (k > 0 && i <= previous)) return bad(StrCat("unset element index ", i, " of ", total));
    is_unset[i] = true;
    previous = i;
  }
  uint64_t dtype = 0, max_elements = 0;
  if (!GetVarint64(&p, end, &dtype) || !GetVarint64(&p, end, &max_elements)) {
    return bad("its metadata ends before the element dtype and maximum length");
  }
  if (!tensorflow::DataType_IsValid(static_cast<int>(dtype)) || dtype == tensorflow::DT_INVALID) {
    return bad(StrCat("element dtype ", dtype));
  }
  list.element_dtype = static_cast<DataType>(dtype);
  const auto max = static_cast<int64_t>(max_elements);
  if (max < -1 || max > std::numeric_limits<int>::max()) return bad(StrCat("max_num_elements ", max));
  list.max_num_elements = static_cast<int>(max);
  tensorflow::TensorShapeProto shape;
  if (!shape.ParseFromArray(p, static_cast<int>(end - p))) return bad("its element shape does not parse");
  TA_ASSIGN_OR_RETURN(list.element_shape, PartialTensorShape::FromProto(shape));
  int next = 0;
  for (uint64_t i = 0; i < total; ++i) {
    if (is_unset[i]) continue;
    TA_ASSIGN_OR_RETURN(Tensor t, Tensor::FromProto(data.tensors(next++)));
    if (t.dtype() != list.element_dtype || !list.element_shape.IsCompatibleWith(t.shape())) {
      return bad(StrCat("element ", i, " is a ", DataTypeString(t.dtype()), " tensor of shape ",
                        t.shape().DebugString(), " in a list of ", DataTypeString(list.element_dtype), " ",
                        list.element_shape.DebugString()));
    }
    list.tensors[i] = std::move(t);
  }
  return TensorListVariant(std::move(list));
}

const bool registered = RegisterVariantDecoder("tensorflow::TensorList", DecodeTensorList);

}  // namespace

void TensorList::Encode(tensorflow::VariantTensorDataProto* data) const {
  data->set_type_name(TypeName());
  std::string metadata;
  std::vector<uint64_t> unset;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i]) {
      tensors[i]->AsProtoField(data->add_tensors());  // as TensorFlow's VariantTensorData::ToProto
    } else {
      unset.push_back(i);
    }
  }
  PutVarint64(unset.size(), &metadata);
  for (uint64_t i : unset) PutVarint64(i, &metadata);
  PutVarint64(static_cast<uint64_t>(element_dtype), &metadata);
  PutVarint64(static_cast<uint64_t>(static_cast<int64_t>(max_num_elements)), &metadata);
  tensorflow::TensorShapeProto shape;
  element_shape.AsProto(&shape);
  shape.AppendToString(&metadata);
  data->set_metadata(metadata);
}

// Made non-const: the list ops change a list in place where nothing else holds it
// (Variant::get_if_sole_owner).
Variant TensorListVariant(TensorList list) { return Variant(std::make_shared<TensorList>(std::move(list))); }

Tensor TensorListTensor(TensorList list) {
  Tensor t(tensorflow::DT_VARIANT, TensorShape());
  *t.base<Variant>() = TensorListVariant(std::move(list));
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
