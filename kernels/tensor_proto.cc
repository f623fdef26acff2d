// Tensor <-> TensorProto, with TensorFlow's encoding for every dtype, so that protos written
// by TensorFlow (graph constants, saved tensors, serialized feeds) read back the same here
// and the other way round.
//
// A TensorProto carries its elements in one of two places:
//  - tensor_content: the raw little-endian bytes of the elements, as they lie in memory
//    (for DT_STRING, TensorFlow's own encoding instead: every length as a varint32, then
//    all the bytes one after another);
//  - a typed repeated field chosen by dtype (float_val, int_val, ...; see Field below).
//    A field may hold fewer values than the tensor has elements: none means all zero
//    (or empty strings), and k > 0 means the rest repeat the k-th value, which is how
//    TensorFlow writes a large constant filled with one value.
// TensorFlow reads tensor_content whenever it is non-empty, and reads no values at all
// for a tensor with no elements; so does FromProto.
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "base/env_limit.h"
#include "base/varint.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/tensor.h"

#include "base/env_limit.h"
#include "kernels/resource_handle.h"
#include "kernels/variant.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "tensor_content is little-endian; this file copies memory as it is and needs a byte swap"
#endif

namespace tensoract {
namespace {

using tensorflow::TensorProto;

// Field<T> says where elements of type T travel in a TensorProto's typed fields:
// Size(p) counts the values present, Get(p, i) reads the i-th as a T, Add(v, p) appends one.
template <class T>
struct Field;

// T travels in the repeated field NAME; TO_PROTO turns a T `v` into the field's type and
// FROM_PROTO turns a field value `v` back into a T.
#define TA_PROTO_FIELD(TYPE, NAME, TO_PROTO, FROM_PROTO)                              \
  template <>                                                                         \
  struct Field<TYPE> {                                                                \
    static constexpr const char* kName = #NAME;                                       \
    static int64_t Size(const TensorProto& p) { return p.NAME##_size(); }             \
    static TYPE Get(const TensorProto& p, int64_t i) {                                \
      const auto& v = p.NAME(static_cast<int>(i));                                    \
      return FROM_PROTO;                                                              \
    }                                                                                 \
    static void Reserve(int64_t n, TensorProto* p) {                                  \
      p->mutable_##NAME()->Reserve(static_cast<int>(n));                              \
    }                                                                                 \
    static void Add(const TYPE& v, TensorProto* p) { p->add_##NAME(TO_PROTO); }       \
  };

TA_PROTO_FIELD(float, float_val, v, v)
TA_PROTO_FIELD(double, double_val, v, v)
TA_PROTO_FIELD(int64_t, int64_val, v, v)
TA_PROTO_FIELD(uint32_t, uint32_val, v, v)
TA_PROTO_FIELD(uint64_t, uint64_val, v, v)
TA_PROTO_FIELD(bool, bool_val, v, v)
TA_PROTO_FIELD(std::string, string_val, v, v)
// The protobuf has no 8- or 16-bit integers: the narrow integer types widen into int_val,
// and a value out of range narrows back the way a C++ cast does (TensorFlow's copy does too).
TA_PROTO_FIELD(int32_t, int_val, v, v)
TA_PROTO_FIELD(int16_t, int_val, v, static_cast<int16_t>(v))
TA_PROTO_FIELD(int8_t, int_val, v, static_cast<int8_t>(v))
TA_PROTO_FIELD(uint16_t, int_val, v, static_cast<uint16_t>(v))
TA_PROTO_FIELD(uint8_t, int_val, v, static_cast<uint8_t>(v))
// Quantized types, int4/uint4 and int2/uint2 go to int_val as their integer value: int4 -3
// is int_val -3 (stored in memory sign-extended, 0xfd), as TensorFlow and tensor_util write it.
#define TA_INT_VAL_FIELD(TYPE) \
  TA_PROTO_FIELD(TYPE, int_val, v.value, TYPE{static_cast<decltype(TYPE::value)>(v)})
TA_INT_VAL_FIELD(qint8)
TA_INT_VAL_FIELD(quint8)
TA_INT_VAL_FIELD(qint16)
TA_INT_VAL_FIELD(quint16)
TA_INT_VAL_FIELD(qint32)
TA_INT_VAL_FIELD(int4)
TA_INT_VAL_FIELD(uint4)
TA_INT_VAL_FIELD(int2)
TA_INT_VAL_FIELD(uint2)
#undef TA_INT_VAL_FIELD
// half and bfloat16 are opaque to protobuf, which has no 16-bit float: both keep their 16 raw
// bits in half_val (an int32 each, 0..65535). Converting through float would turn a NaN's
// payload or a bfloat16 into something else; the bits are exact.
TA_PROTO_FIELD(Eigen::half, half_val, Eigen::numext::bit_cast<uint16_t>(v),
               Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(v)))
TA_PROTO_FIELD(Eigen::bfloat16, half_val, Eigen::numext::bit_cast<uint16_t>(v),
               Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<uint16_t>(v)))
#undef TA_PROTO_FIELD

// The float8 types and float4_e2m1fn keep their one byte per element in the bytes field
// float8_val (TensorFlow 2.21 writes float4_e2m1fn there too).
template <class T>
struct ByteField {
  static constexpr const char* kName = "float8_val";
  static int64_t Size(const TensorProto& p) { return static_cast<int64_t>(p.float8_val().size()); }
  static T Get(const TensorProto& p, int64_t i) {
    return T{static_cast<uint8_t>(p.float8_val()[static_cast<size_t>(i)])};
  }
  static void Reserve(int64_t n, TensorProto* p) { p->mutable_float8_val()->reserve(n); }
  static void Add(const T& v, TensorProto* p) {
    p->mutable_float8_val()->push_back(static_cast<char>(v.value));
  }
};
template <> struct Field<float8_e5m2> : ByteField<float8_e5m2> {};
template <> struct Field<float8_e4m3fn> : ByteField<float8_e4m3fn> {};
template <> struct Field<float8_e4m3fnuz> : ByteField<float8_e4m3fnuz> {};
template <> struct Field<float8_e4m3b11fnuz> : ByteField<float8_e4m3b11fnuz> {};
template <> struct Field<float8_e5m2fnuz> : ByteField<float8_e5m2fnuz> {};
template <> struct Field<float4_e2m1fn> : ByteField<float4_e2m1fn> {};

// Complex numbers are two values each, real then imaginary; an odd trailing value is
// ignored, as TensorFlow counts size / 2 elements.
#define TA_COMPLEX_FIELD(TYPE, NAME)                                                    \
  template <>                                                                           \
  struct Field<TYPE> {                                                                  \
    static constexpr const char* kName = #NAME;                                         \
    static int64_t Size(const TensorProto& p) { return p.NAME##_size() / 2; }           \
    static TYPE Get(const TensorProto& p, int64_t i) {                                  \
      return TYPE(p.NAME(static_cast<int>(2 * i)), p.NAME(static_cast<int>(2 * i + 1))); \
    }                                                                                   \
    static void Reserve(int64_t n, TensorProto* p) {                                    \
      p->mutable_##NAME()->Reserve(static_cast<int>(2 * n));                            \
    }                                                                                   \
    static void Add(const TYPE& v, TensorProto* p) {                                    \
      p->add_##NAME(v.real());                                                          \
      p->add_##NAME(v.imag());                                                          \
    }                                                                                   \
  };
TA_COMPLEX_FIELD(complex64, scomplex_val)
TA_COMPLEX_FIELD(complex128, dcomplex_val)
#undef TA_COMPLEX_FIELD

// Fills out[0, n) from T's typed field: zeros when it is empty, the last value repeated when
// it is short. More values than elements is an error here; TensorFlow's C++ FromProto drops
// the extra ones silently and its Python make_ndarray fails on them.
template <class T>
Status ReadField(const TensorProto& proto, const TensorShape& shape, T* out) {
  const int64_t n = shape.num_elements();
  const int64_t k = Field<T>::Size(proto);
  if (k > n) {
    return errors::InvalidArgument("a TensorProto has ", k, " values in ", Field<T>::kName,
                                   " for a ", DataTypeString(proto.dtype()), " tensor of shape ",
                                   shape.DebugString(), ", which has only ", n, " elements");
  }
  for (int64_t i = 0; i < k; ++i) out[i] = Field<T>::Get(proto, i);
  const T fill = k > 0 ? out[k - 1] : T{};
  for (int64_t i = k; i < n; ++i) out[i] = fill;
  return Status::OK();
}

// TensorFlow's tensor_content for strings (port::DecodeStringList): n lengths as varint32,
// then the n strings' bytes back to back, which must use up the content exactly. The lengths
// are read twice, so that lengths that claim more bytes than there are cost no memory.
Status DecodeStringContent(const std::string& content, int64_t n, std::string* out) {
  const char* const end = content.data() + content.size();
  const char* p = content.data();
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t len;
    if (!GetVarint32(&p, end, &len)) {
      return errors::InvalidArgument("a string TensorProto's tensor_content (", content.size(),
                                     " bytes) ends before the length of string ", i, " of ", n);
    }
    total += len;
  }
  if (total != static_cast<uint64_t>(end - p)) {
    return errors::InvalidArgument("a string TensorProto's tensor_content has ", end - p,
                                   " bytes after the lengths, but the ", n,
                                   " lengths add up to ", total);
  }
  const char* lengths = content.data();
  for (int64_t i = 0; i < n; ++i) {
    uint32_t len = 0;
    GetVarint32(&lengths, end, &len);
    out[i].assign(p, len);
    p += len;
  }
  return Status::OK();
}

// Resource handles travel in resource_handle_val, one ResourceHandleProto per element.
StatusOr<Tensor> ResourceFromProto(const tensorflow::TensorProto& proto, Allocator* allocator) {
  TA_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(proto.tensor_shape()));
  const int64_t n = shape.num_elements();
  if (proto.resource_handle_val_size() != n) {
    return errors::InvalidArgument("a resource TensorProto of shape ", shape.DebugString(), " has ",
                                   proto.resource_handle_val_size(), " handles in resource_handle_val, not ", n);
  }
  TA_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(allocator, tensorflow::DT_RESOURCE, shape));
  auto* handles = t.base<ResourceHandle>();
  for (int64_t i = 0; i < n; ++i) handles[i] = ResourceHandle::FromProto(proto.resource_handle_val(static_cast<int>(i)));
  return t;
}

void ResourceAsProto(const Tensor& t, tensorflow::TensorProto* proto) {
  const auto* handles = t.base<ResourceHandle>();
  for (int64_t i = 0; i < t.NumElements(); ++i) handles[i].AsProto(proto->add_resource_handle_val());
}

// Variants travel in variant_val, one VariantTensorDataProto per element in TensorFlow's
// encoding of its type (kernels/variant.h).
void VariantAsProto(const Tensor& t, tensorflow::TensorProto* proto) {
  const auto* values = t.base<Variant>();
  for (int64_t i = 0; i < t.NumElements(); ++i) EncodeVariant(values[i], proto->add_variant_val());
}

// Or in tensor_content, as TensorFlow's AsProtoTensorContent writes them (port::
// EncodeVariantList: each element's serialized VariantTensorDataProto, laid out as string
// content is, the lengths first): the bytes of tf.io.serialize_tensor.
void VariantAsTensorContent(const Tensor& t, tensorflow::TensorProto* proto) {
  const auto* values = t.base<Variant>();
  std::vector<std::string> encoded(t.NumElements());
  std::string* content = proto->mutable_tensor_content();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    tensorflow::VariantTensorDataProto data;
    EncodeVariant(values[i], &data);
    data.SerializeToString(&encoded[i]);
    PutVarint64(encoded[i].size(), content);
  }
  for (const std::string& e : encoded) content->append(e);
}

// A variant tensor from variant_val, or from tensor_content as TensorFlow's SerializeTensor
// writes it (each element's serialized VariantTensorDataProto, as strings are stored there).
StatusOr<Tensor> VariantFromProto(const tensorflow::TensorProto& proto, Allocator* allocator) {
  TA_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(proto.tensor_shape()));
  const int64_t n = shape.num_elements();
  std::vector<tensorflow::VariantTensorDataProto> encoded;
  if (!proto.tensor_content().empty() && n > 0) {
    // Every element takes a length byte at least: refuse a count the content cannot hold
    // before allocating for it.
    if (static_cast<uint64_t>(n) > proto.tensor_content().size()) {
      return errors::InvalidArgument("a variant TensorProto's tensor_content has ", proto.tensor_content().size(),
                                     " bytes for ", n, " values");
    }
    std::vector<std::string> bytes(n);
    TA_RETURN_IF_ERROR(DecodeStringContent(proto.tensor_content(), n, bytes.data()));
    encoded.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      if (!encoded[i].ParseFromString(bytes[i])) {
        return errors::InvalidArgument("a variant TensorProto's value ", i, " does not parse");
      }
    }
  } else if (proto.variant_val_size() != n) {
    return errors::InvalidArgument("a variant TensorProto of shape ", shape.DebugString(), " has ",
                                   proto.variant_val_size(), " values in variant_val, not ", n);
  }
  TA_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(allocator, tensorflow::DT_VARIANT, shape));
  auto* values = t.base<Variant>();
  for (int64_t i = 0; i < n; ++i) {
    const auto& data = encoded.empty() ? proto.variant_val(static_cast<int>(i)) : encoded[i];
    TA_ASSIGN_OR_RETURN(values[i], DecodeVariant(data));
  }
  return t;
}

}  // namespace

uint64_t MaxExpandedTensorBytes() {
  static const uint64_t limit = EnvLimit(kMaxExpandedTensorBytesEnv, uint64_t{1} << 30);
  return limit;
}

uint64_t ExpandedBytes(const tensorflow::TensorProto& proto) {
  if (!proto.tensor_content().empty()) return 0;
  const DataType dtype = proto.dtype();
  const uint64_t element_size = dtype == tensorflow::DT_STRING ? sizeof(std::string)
                                : DataTypeIsFixedSize(dtype)  ? DataTypeSize(dtype)
                                                              : 0;
  uint64_t bytes = element_size;
  for (const auto& dim : proto.tensor_shape().dim()) {
    if (dim.size() <= 0) return 0;  // empty (or refused by FromProto)
    const uint64_t n = static_cast<uint64_t>(dim.size());
    if (bytes > std::numeric_limits<uint64_t>::max() / n) return std::numeric_limits<uint64_t>::max();
    bytes *= n;
  }
  const uint64_t present = proto.ByteSizeLong();
  return bytes > present ? bytes - present : 0;
}

Status ExpansionBudget::Charge(const tensorflow::TensorProto& proto, const std::string& what) {
  const uint64_t bytes = ExpandedBytes(proto);
  const uint64_t limit = MaxExpandedTensorBytes();
  spent_ = bytes > limit - std::min(spent_, limit) ? limit + 1 : spent_ + bytes;
  if (spent_ > limit) {
    const uint64_t present = proto.ByteSizeLong();
    const uint64_t tensor = bytes > std::numeric_limits<uint64_t>::max() - present ? bytes : bytes + present;
    return errors::InvalidArgument(what, ": a TensorProto of ", present, " bytes announces a tensor of ", tensor,
                                   " bytes; one request's TensorProtos may expand at most ", limit,
                                   " bytes in all (", kMaxExpandedTensorBytesEnv, ")");
  }
  return Status::OK();
}

StatusOr<Tensor> Tensor::FromProto(const tensorflow::TensorProto& proto, Allocator* allocator) {
  const DataType dtype = proto.dtype();
  // A reference type is a property of a graph edge, never of a value.
  if (dtype == tensorflow::DT_RESOURCE) return ResourceFromProto(proto, allocator);
  if (dtype == tensorflow::DT_VARIANT) return VariantFromProto(proto, allocator);
  if (dtype == tensorflow::DT_INVALID || IsRefType(dtype) ||
      (dtype != tensorflow::DT_STRING && !DataTypeIsFixedSize(dtype))) {
    return errors::InvalidArgument("a TensorProto has dtype ", DataTypeString(dtype),
                                   ", which a tensor cannot hold");
  }
  TA_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(proto.tensor_shape()));
  const int64_t n = shape.num_elements();
  // The shape comes from outside: refuse one whose byte count does not fit int64 before
  // anything multiplies it (a wrapped-around size would allocate too little).
  const size_t element_size =
      dtype == tensorflow::DT_STRING ? sizeof(std::string) : DataTypeSize(dtype);
  if (n > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(element_size)) {
    return errors::InvalidArgument("a ", DataTypeString(dtype), " tensor of shape ",
                                   shape.DebugString(), " has too many elements to hold");
  }
  // Without tensor_content the values may be fewer than the elements (TensorFlow repeats
  // the last one: how `tf.zeros([1000, 1000])` is stored). That expansion is capped, so a
  // few bytes from a file or a peer cannot make this process allocate and fill gigabytes.
  const uint64_t bytes = static_cast<uint64_t>(n) * element_size;
  if (proto.tensor_content().empty() && bytes > MaxExpandedTensorBytes()) {
    return errors::InvalidArgument("a TensorProto of ", proto.ByteSizeLong(), " bytes announces a ",
                                   DataTypeString(dtype), " tensor of shape ", shape.DebugString(), " (", bytes,
                                   " bytes); one expanded from fewer values than elements may hold at most ",
                                   MaxExpandedTensorBytes(), " bytes (", kMaxExpandedTensorBytesEnv, ")");
  }
  // With tensor_content, the bytes present bound the tensor before anything is allocated
  // (a 4-byte content announcing 2^33 floats was allocated first, 32 GiB; found by fuzzing).
  if (!proto.tensor_content().empty() && n > 0) {  // an empty tensor reads no values, as TensorFlow's
    const size_t have = proto.tensor_content().size();
    // (A small string tensor's content is left to its decoder, which names the string at fault.)
    if (dtype == tensorflow::DT_STRING && have < static_cast<uint64_t>(n) && bytes > MaxExpandedTensorBytes()) {
      return errors::InvalidArgument("a TensorProto's tensor_content has ", have, " bytes, but a string tensor of shape ",
                                     shape.DebugString(), " needs at least one per string");
    }
    if (dtype != tensorflow::DT_STRING && have != bytes) {
      return errors::InvalidArgument("a TensorProto's tensor_content has ", have, " bytes, but a ",
                                     DataTypeString(dtype), " tensor of shape ", shape.DebugString(), " needs ", bytes,
                                     " bytes (", n, " elements of ", element_size, ")");
    }
  }
  TA_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(allocator, dtype, shape));
  if (n == 0) return t;  // TensorFlow looks at no values for an empty tensor.

  if (dtype == tensorflow::DT_STRING && !proto.tensor_content().empty()) {
    TA_RETURN_IF_ERROR(DecodeStringContent(proto.tensor_content(), n, t.base<std::string>()));
  } else if (!proto.tensor_content().empty()) {
    std::memcpy(t.data(), proto.tensor_content().data(), bytes);  // its size was checked above
    if (dtype == tensorflow::DT_BOOL) {
      // A bool byte other than 0 or 1 is undefined behaviour in C++; read any non-zero as true.
      auto* bytes = static_cast<uint8_t*>(t.data());
      for (int64_t i = 0; i < n; ++i) bytes[i] = bytes[i] != 0;
    }
  } else {
    TA_SWITCH_ALL_TYPES(dtype, return errors::Internal("no typed field for ", DataTypeString(dtype)),
                        TA_RETURN_IF_ERROR(ReadField<T>(proto, shape, t.base<T>())));
  }
  return t;
}

void Tensor::AsProtoField(tensorflow::TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  const int64_t n = NumElements();
  if (n == 0) return;
  if (dtype_ == tensorflow::DT_RESOURCE) return ResourceAsProto(*this, proto);
  if (dtype_ == tensorflow::DT_VARIANT) return VariantAsProto(*this, proto);
  TA_SWITCH_ALL_TYPES(dtype_, return, {
    const T* data = base<T>();
    Field<T>::Reserve(n, proto);
    for (int64_t i = 0; i < n; ++i) Field<T>::Add(data[i], proto);
  });
}

void Tensor::AsProtoTensorContent(tensorflow::TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (NumElements() == 0) return;
  if (dtype_ == tensorflow::DT_RESOURCE) return ResourceAsProto(*this, proto);  // handles have no raw bytes
  if (dtype_ == tensorflow::DT_VARIANT) return VariantAsTensorContent(*this, proto);
  if (dtype_ == tensorflow::DT_STRING) {
    // Strings have no in-memory bytes to copy; string_val is the encoding every TensorFlow
    // reader (C++ FromProto and Python make_ndarray alike) accepts.
    const auto* s = base<std::string>();
    proto->mutable_string_val()->Reserve(static_cast<int>(NumElements()));
    for (int64_t i = 0; i < NumElements(); ++i) proto->add_string_val(s[i]);
    return;
  }
  proto->set_tensor_content(static_cast<const char*>(data()), TotalBytes());
}

}  // namespace tensoract
