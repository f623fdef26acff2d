// Tensor: a typed, shaped, reference-counted n-dimensional array.
//
// Copying a Tensor copies a reference, never the elements: two copies share one buffer,
// which is freed into the allocator it came from when the last reference goes. The
// elements are mutable through any copy (kernels write their outputs in place; variables
// update in place), so code that shares a tensor across threads must agree on who writes.
//
// Every numeric DataType TensorFlow has is stored flat, one element after another in
// row-major order; strings are std::string objects, resources ResourceHandle objects
// (kernels/resource_handle.h) and variants Variant objects (kernels/variant.h).
//
// The Eigen views (flat<T>(), matrix<T>(), tensor<T, N>(), scalar<T>()) are declared here
// and defined in kernels/tensor_eigen.h, so that code which only moves tensors around
// does not compile Eigen's tensor module. Include that header to use them.
#ifndef TENSORACT_KERNELS_TENSOR_H_
#define TENSORACT_KERNELS_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor_shape.h"
#include "base/types.h"
#include "kernels/allocator.h"
#include "kernels/numeric_types.h"
#include "messages/tensor.pb.h"

namespace tensoract {

// DataTypeToEnum<float>::value == DT_FLOAT, for every element type a Tensor can hold.
template <class T>
struct DataTypeToEnum;
class ResourceHandle;
class Variant;
#define TENSORACT_MATCH_TYPE_AND_ENUM(TYPE, ENUM) \
  template <>                                     \
  struct DataTypeToEnum<TYPE> {                   \
    static constexpr DataType value = ::tensorflow::ENUM; \
  };
TENSORACT_MATCH_TYPE_AND_ENUM(float, DT_FLOAT)
TENSORACT_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE)
TENSORACT_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32)
TENSORACT_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32)
TENSORACT_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16)
TENSORACT_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8)
TENSORACT_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16)
TENSORACT_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8)
TENSORACT_MATCH_TYPE_AND_ENUM(std::string, DT_STRING)
TENSORACT_MATCH_TYPE_AND_ENUM(ResourceHandle, DT_RESOURCE)
TENSORACT_MATCH_TYPE_AND_ENUM(Variant, DT_VARIANT)
TENSORACT_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64)
TENSORACT_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128)
TENSORACT_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64)
TENSORACT_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64)
TENSORACT_MATCH_TYPE_AND_ENUM(bool, DT_BOOL)
TENSORACT_MATCH_TYPE_AND_ENUM(qint8, DT_QINT8)
TENSORACT_MATCH_TYPE_AND_ENUM(quint8, DT_QUINT8)
TENSORACT_MATCH_TYPE_AND_ENUM(qint16, DT_QINT16)
TENSORACT_MATCH_TYPE_AND_ENUM(quint16, DT_QUINT16)
TENSORACT_MATCH_TYPE_AND_ENUM(qint32, DT_QINT32)
TENSORACT_MATCH_TYPE_AND_ENUM(Eigen::half, DT_HALF)
TENSORACT_MATCH_TYPE_AND_ENUM(Eigen::bfloat16, DT_BFLOAT16)
TENSORACT_MATCH_TYPE_AND_ENUM(float8_e5m2, DT_FLOAT8_E5M2)
TENSORACT_MATCH_TYPE_AND_ENUM(float8_e4m3fn, DT_FLOAT8_E4M3FN)
TENSORACT_MATCH_TYPE_AND_ENUM(float8_e4m3fnuz, DT_FLOAT8_E4M3FNUZ)
TENSORACT_MATCH_TYPE_AND_ENUM(float8_e4m3b11fnuz, DT_FLOAT8_E4M3B11FNUZ)
TENSORACT_MATCH_TYPE_AND_ENUM(float8_e5m2fnuz, DT_FLOAT8_E5M2FNUZ)
TENSORACT_MATCH_TYPE_AND_ENUM(int4, DT_INT4)
TENSORACT_MATCH_TYPE_AND_ENUM(uint4, DT_UINT4)
TENSORACT_MATCH_TYPE_AND_ENUM(int2, DT_INT2)
TENSORACT_MATCH_TYPE_AND_ENUM(uint2, DT_UINT2)
TENSORACT_MATCH_TYPE_AND_ENUM(float4_e2m1fn, DT_FLOAT4_E2M1FN)
#undef TENSORACT_MATCH_TYPE_AND_ENUM

// Eigen view types, defined in kernels/tensor_eigen.h.
template <class T, int NDIMS = 1>
struct TTypes;

// The memory behind a tensor. Owned through shared_ptr by every Tensor that refers to it.
// The largest tensor Tensor::FromProto builds from a TensorProto holding fewer values than
// elements (1 GiB, or $TENSORACT_MAX_EXPANDED_TENSOR_BYTES read once): a 20-byte proto can
// announce 32 GiB, and the bytes must not be allocated just because a peer asked.
inline constexpr const char* kMaxExpandedTensorBytesEnv = "TENSORACT_MAX_EXPANDED_TENSOR_BYTES";
uint64_t MaxExpandedTensorBytes();

// The bytes decoding `proto` would allocate beyond its own size (0 with tensor_content,
// whose bytes bound the tensor; saturating for a shape too large to hold).
uint64_t ExpandedBytes(const tensorflow::TensorProto& proto);

// What one request's TensorProtos may expand in all: each proto's ExpandedBytes counts
// against MaxExpandedTensorBytes(), so 24 small feeds cannot expand 24 times what one may.
// Charge each proto before decoding it.
class ExpansionBudget {
 public:
  // InvalidArgument naming `what` (the proto's place in its request) once the protos
  // charged so far exceed it.
  Status Charge(const tensorflow::TensorProto& proto, const std::string& what);

 private:
  uint64_t spent_ = 0;
};

class TensorBuffer {
 public:
  virtual ~TensorBuffer() = default;
  virtual void* data() const = 0;
  virtual size_t size() const = 0;  // bytes
  // The allocator the tensor was made with (small tensors keep their bytes inline and
  // never call it; a view's is its parent's); nullptr when the buffer does not own its bytes.
  virtual Allocator* allocator() const = 0;
  // Part of another buffer (Tensor::View): writing into it writes into that one.
  virtual bool IsView() const { return false; }
};

class Tensor {
 public:
  // An empty float tensor of shape [0], like TensorFlow's default Tensor.
  Tensor();
  // Allocates an uninitialised tensor from the process-wide CPU allocator. Aborts if the
  // allocator fails; use Tensor::Allocate where a size comes from input.
  Tensor(DataType dtype, const TensorShape& shape);
  Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape);

  // Allocates; fails with ResourceExhausted (naming the size) instead of aborting, and with
  // InvalidArgument for a dtype a tensor cannot hold.
  static StatusOr<Tensor> Allocate(Allocator* allocator, DataType dtype, const TensorShape& shape);

  // Convenience constructors, mostly for tests and examples.
  template <class T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    *t.base<T>() = std::move(value);
    return t;
  }
  // Fails (aborting) when values.size() != shape.num_elements(); a programming error.
  template <class T>
  static Tensor FromVector(const std::vector<T>& values, const TensorShape& shape);
  template <class T>
  static Tensor FromVector(const std::vector<T>& values) {
    return FromVector(values, TensorShape({static_cast<int64_t>(values.size())}));
  }

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int d) const { return shape_.dim_size(d); }
  int64_t NumElements() const { return shape_.num_elements(); }
  // Bytes the elements occupy (for strings: the sum of the string lengths).
  size_t TotalBytes() const;
  bool IsInitialized() const { return buf_ != nullptr || NumElements() == 0; }
  bool SharesBufferWith(const Tensor& other) const { return buf_ && buf_ == other.buf_; }
  // True when no other Tensor shares this one's buffer, so it may be updated in place
  // without another holder seeing the change (copy-on-write of resource variables). Never
  // for a view: the tensor it is part of may have other holders.
  bool RefCountIsOne() const { return buf_ != nullptr && buf_.use_count() == 1 && !buf_->IsView(); }

  // Raw access to the elements. T must match dtype(); a mismatch aborts (a bug, not input).
  template <class T>
  T* base() const {
    CheckType(DataTypeToEnum<T>::value);
    return static_cast<T*>(data());
  }
  void* data() const;
  // The allocator the elements came from (the buffer's; nullptr for no buffer): tells
  // GPU memory from host memory, and pinned host memory from pageable.
  Allocator* buffer_allocator() const { return buf_ ? buf_->allocator() : nullptr; }

  // Eigen views (include kernels/tensor_eigen.h).
  template <class T>
  typename TTypes<T>::Flat flat() const;
  template <class T>
  typename TTypes<T>::Vec vec() const;
  template <class T>
  typename TTypes<T>::Matrix matrix() const;
  template <class T, int NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor() const;
  template <class T>
  typename TTypes<T>::Scalar scalar() const;

  // The same elements under another shape with the same number of elements.
  StatusOr<Tensor> Reshaped(const TensorShape& shape) const;
  // Elements [first, first + shape.num_elements()) as a tensor of `shape` that shares this
  // one's bytes (TensorFlow's Tensor::Slice of rows; a TensorList's elements unstacked from
  // a tensor): no copy. For fixed-size types only, and only where the part starts at
  // kAllocatorAlignment bytes into the buffer, as kernels' aligned loads expect; an error
  // otherwise (then copy).
  StatusOr<Tensor> View(int64_t first, const TensorShape& shape) const;
  // A new buffer holding a copy of the elements.
  Tensor DeepCopy(Allocator* allocator = cpu_allocator()) const;

  // TensorProto conversion (kernels/tensor_proto.cc). FromProto checks that the proto's
  // shape, dtype and value count agree and names what does not, and that a tensor
  // expanded from fewer values than elements stays within MaxExpandedTensorBytes().
  static StatusOr<Tensor> FromProto(const tensorflow::TensorProto& proto,
                                    Allocator* allocator = cpu_allocator());
  // Writes the elements into the typed repeated field (float_val, int_val, ...).
  void AsProtoField(tensorflow::TensorProto* proto) const;
  // Writes the elements as raw bytes into tensor_content, as TensorFlow's does (strings go
  // to string_val; variants are encoded there as TensorFlow encodes them).
  void AsProtoTensorContent(tensorflow::TensorProto* proto) const;

  // "Tensor<type: float shape: [2,2] values: [[1 2][3 4]]>", at most `max_entries` values.
  std::string DebugString(int max_entries = 6) const;
  // Just the values part: "[[1 2][3 4]]", with "..." after `max_entries`.
  std::string SummarizeValue(int64_t max_entries) const;

 private:
  void CheckType(DataType expected) const;
  void CheckRank(int expected) const;
  [[noreturn]] static void FatalSizeMismatch(size_t num_values, const TensorShape& shape);

  DataType dtype_;
  TensorShape shape_;
  std::shared_ptr<TensorBuffer> buf_;
};

template <class T>
Tensor Tensor::FromVector(const std::vector<T>& values, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    FatalSizeMismatch(values.size(), shape);
  }
  T* out = t.base<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_TENSOR_H_
