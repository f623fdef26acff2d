#include "kernels/tensor.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>
#include <vector>

#include "kernels/dtype_dispatch.h"
#include "kernels/resource_handle.h"
#include "kernels/thread_block_cache.h"
#include "kernels/variant.h"

namespace tensoract {
namespace {

// Fixed-size elements in memory from an Allocator.
class AllocatedBuffer : public TensorBuffer {
 public:
  AllocatedBuffer(Allocator* allocator, void* data, size_t size)
      : allocator_(allocator), data_(data), size_(size) {}
  ~AllocatedBuffer() override { allocator_->DeallocateRaw(data_, size_); }
  void* data() const override { return data_; }
  size_t size() const override { return size_; }
  Allocator* allocator() const override { return allocator_; }

 private:
  Allocator* allocator_;
  void* data_;
  size_t size_;
};

// Part of another buffer's bytes (Tensor::View), which it keeps alive.
class ViewBuffer : public TensorBuffer {
 public:
  ViewBuffer(std::shared_ptr<TensorBuffer> whole, size_t offset, size_t size)
      : whole_(std::move(whole)), offset_(offset), size_(size) {}
  void* data() const override { return static_cast<unsigned char*>(whole_->data()) + offset_; }
  size_t size() const override { return size_; }
  Allocator* allocator() const override { return whole_->allocator(); }
  bool IsView() const override { return true; }

 private:
  std::shared_ptr<TensorBuffer> whole_;
  size_t offset_, size_;
};

// A small tensor's elements inside the buffer object itself: one heap block (the
// shared_ptr's) instead of two, which matters for the many scalars of a small graph and
// the small activations of a recurrent loop's body (a GRU's [1, 96] gates at batch 1).
// The allocator is told, so its statistics count these bytes too.
// The object itself has ordinary alignment (an over-aligned type would go through
// memalign, which costs more than the second block saved); the elements start at the first
// kAllocatorAlignment boundary inside it, as Eigen's aligned maps require.
template <size_t kCapacity>
class SmallBuffer : public TensorBuffer {
 public:
  SmallBuffer(Allocator* allocator, size_t size) : allocator_(allocator), size_(size) {
    auto p = reinterpret_cast<uintptr_t>(storage_);
    data_ = storage_ + ((kAllocatorAlignment - p % kAllocatorAlignment) % kAllocatorAlignment);
    allocator_->NoteInlineAllocation(size_);
  }
  ~SmallBuffer() override { allocator_->NoteInlineDeallocation(size_); }
  void* data() const override { return data_; }
  size_t size() const override { return size_; }
  Allocator* allocator() const override { return allocator_; }

 private:
  Allocator* allocator_;
  size_t size_;
  unsigned char* data_;
  unsigned char storage_[kCapacity + kAllocatorAlignment];
};

// Two sizes of inline elements: scalars and short vectors, and up to 1 KiB.
constexpr size_t kScalarCapacity = 64;
constexpr size_t kVectorCapacity = 1024;

// Small buffers are made and freed once per kernel run, so they come from a per-thread
// cache of fixed-size blocks (kernels/thread_block_cache.h) instead of malloc: a block
// freed on one thread is kept by that thread for its next small tensor (the executor's
// thread, mostly), up to a bound.
// At ~190 bytes a SmallBuffer is past glibc's fast bins, where malloc and free coalesce
// and cost several times more than a push and a pop here; a larger tensor's
// memalign'd block (the Allocator's) never comes from glibc's per-thread cache at all.
struct BlockClass {
  size_t bytes;     // of each block: the buffer object and its shared_ptr control block
  size_t max_kept;  // per thread
};
constexpr BlockClass kBlockClasses[] = {{256, 4096}, {1280, 1024}};  // 1 MiB and 1.25 MiB at most
constexpr int kNumBlockClasses = 2;

struct SmallBlockTag {};
using SmallBlockCache = ThreadBlockCache<SmallBlockTag, kNumBlockClasses>;

// The class of blocks `bytes` fit in, or -1.
int BlockClassOf(size_t bytes) {
  for (int c = 0; c < kNumBlockClasses; ++c) {
    if (bytes <= kBlockClasses[c].bytes) return c;
  }
  return -1;
}

template <class T>
struct SmallBlockAllocator {
  using value_type = T;
  SmallBlockAllocator() = default;
  template <class U>
  SmallBlockAllocator(const SmallBlockAllocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t), "blocks have malloc's alignment");
    const int c = BlockClassOf(n * sizeof(T));
    if (c < 0) return static_cast<T*>(::operator new(n * sizeof(T)));
    SmallBlockCache* cache = SmallBlockCache::ForThisThread();
    void* b = cache != nullptr ? cache->Take(c) : nullptr;
    if (b != nullptr) return static_cast<T*>(b);
    b = std::malloc(kBlockClasses[c].bytes);
    if (b == nullptr) throw std::bad_alloc();
    return static_cast<T*>(b);
  }
  void deallocate(T* p, size_t n) {
    const int c = BlockClassOf(n * sizeof(T));
    if (c < 0) {
      ::operator delete(p);
      return;
    }
    SmallBlockCache* cache = SmallBlockCache::ForThisThread();
    if (cache == nullptr || !cache->Keep(c, p, kBlockClasses[c].max_kept)) std::free(p);
  }
  template <class U>
  bool operator==(const SmallBlockAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const SmallBlockAllocator<U>&) const { return false; }
};

// A buffer of `bytes` (at most kCapacity) inside its own block.
template <size_t kCapacity>
std::shared_ptr<TensorBuffer> MakeSmallBuffer(Allocator* allocator, size_t bytes) {
  using Buffer = SmallBuffer<kCapacity>;
  return std::allocate_shared<Buffer>(SmallBlockAllocator<Buffer>(), allocator, bytes);
}

// Elements that are C++ objects (std::string, ResourceHandle, Variant), constructed in allocator
// memory and destroyed with the buffer.
template <class T>
class ObjectBuffer : public AllocatedBuffer {
 public:
  ObjectBuffer(Allocator* allocator, void* data, int64_t n)
      : AllocatedBuffer(allocator, data, n * sizeof(T)), n_(n) {
    auto* p = static_cast<T*>(data);
    for (int64_t i = 0; i < n; ++i) new (p + i) T();
  }
  ~ObjectBuffer() override {
    auto* p = static_cast<T*>(data());
    for (int64_t i = 0; i < n_; ++i) p[i].~T();
  }

 private:
  int64_t n_;
};

template <class T>
StatusOr<std::shared_ptr<TensorBuffer>> MakeObjectBuffer(Allocator* allocator, const TensorShape& shape) {
  const int64_t n = shape.num_elements();
  void* p = allocator->AllocateRaw(kAllocatorAlignment, n * sizeof(T));
  if (p == nullptr) {
    return errors::ResourceExhausted("allocator '", allocator->Name(), "' could not allocate ", n,
                                     " objects for a tensor of shape ", shape.DebugString());
  }
  return std::shared_ptr<TensorBuffer>(std::make_shared<ObjectBuffer<T>>(allocator, p, n));
}

size_t ElementSize(DataType dtype) {
  if (dtype == tensorflow::DT_STRING) return sizeof(std::string);
  if (dtype == tensorflow::DT_RESOURCE) return sizeof(ResourceHandle);
  if (dtype == tensorflow::DT_VARIANT) return sizeof(Variant);
  return DataTypeSize(dtype);
}

[[noreturn]] void Fatal(const std::string& message) {
  std::fprintf(stderr, "tensoract: fatal: %s\n", message.c_str());
  std::abort();
}

StatusOr<std::shared_ptr<TensorBuffer>> MakeBuffer(Allocator* allocator, DataType dtype,
                                                   const TensorShape& shape) {
  const int64_t n = shape.num_elements();
  if (IsRefType(dtype)) {
    return errors::InvalidArgument("a tensor holds values, not references: dtype ", DataTypeString(dtype));
  }
  const int64_t element_size = ElementSize(dtype);
  if (element_size > 0 && n > std::numeric_limits<int64_t>::max() / element_size) {
    // ResourceExhausted, as TensorFlow's allocator reports it (Range(0, 2^63-1, 1) there).
    return errors::ResourceExhausted("a ", DataTypeString(dtype), " tensor of shape ", shape.DebugString(),
                                     " would need more than 2^63 bytes");
  }
  if (dtype == tensorflow::DT_STRING) return MakeObjectBuffer<std::string>(allocator, shape);
  if (dtype == tensorflow::DT_RESOURCE) return MakeObjectBuffer<ResourceHandle>(allocator, shape);
  if (dtype == tensorflow::DT_VARIANT) return MakeObjectBuffer<Variant>(allocator, shape);
  if (!DataTypeIsFixedSize(dtype)) {
    return errors::InvalidArgument("a tensor cannot hold elements of type ", DataTypeString(dtype));
  }
  const size_t bytes = static_cast<size_t>(n) * DataTypeSize(dtype);
  if (bytes <= kVectorCapacity && allocator->IsHostMemory()) {
    return bytes <= kScalarCapacity ? MakeSmallBuffer<kScalarCapacity>(allocator, bytes)
                                    : MakeSmallBuffer<kVectorCapacity>(allocator, bytes);
  }
  void* p = allocator->AllocateRaw(kAllocatorAlignment, bytes);
  if (p == nullptr) {
    return errors::ResourceExhausted("allocator '", allocator->Name(), "' could not allocate ",
                                     bytes, " bytes for a ", DataTypeString(dtype),
                                     " tensor of shape ", shape.DebugString(), " (",
                                     AllocatorStatsString(allocator->GetStats()), ")");
  }
  return std::shared_ptr<TensorBuffer>(std::make_shared<AllocatedBuffer>(allocator, p, bytes));
}

// One element as text, the way TensorFlow's SummarizeValue prints it.
template <class T>
void PrintElement(std::ostream& os, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    os << '"' << v << '"';
  } else if constexpr (std::is_same_v<T, ResourceHandle> || std::is_same_v<T, Variant>) {
    os << '<' << v.DebugString() << '>';
  } else if constexpr (std::is_same_v<T, bool>) {
    os << (v ? 1 : 0);
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    os << static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
    os << static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    os << "(" << v.real() << "," << v.imag() << ")";
  } else if constexpr (std::is_arithmetic_v<T>) {
    os << v;
  } else {
    os << static_cast<int>(v.value);  // quantized and narrow types: the stored bits
  }
}

// Nested brackets per dimension: [[1 2][3 4]].
template <class T>
void PrintNested(std::ostream& os, const T* data, const std::vector<int64_t>& dims, int64_t limit) {
  const int64_t n = [&] { int64_t k = 1; for (int64_t d : dims) k *= d; return k; }();
  if (dims.empty()) {
    PrintElement(os, data[0]);
    return;
  }
  const int64_t shown = std::min(n, limit);
  // strides[i]: elements spanned by one step in dimension i.
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  for (int64_t i = 0; i < shown; ++i) {
    // A bracket opens where a sub-array of dimension d starts and closes where it ends.
    for (size_t d = 0; d < dims.size(); ++d) if (i % (strides[d] * dims[d]) == 0) os << '[';
    if (i % dims.back() != 0) os << ' ';
    PrintElement(os, data[i]);
    for (size_t d = 0; d < dims.size(); ++d) if ((i + 1) % (strides[d] * dims[d]) == 0) os << ']';
  }
  if (shown < n) os << "...";
  if (n == 0) os << "[]";
}

}  // namespace

Tensor::Tensor() : dtype_(tensorflow::DT_FLOAT), shape_({0}) {}

Tensor::Tensor(DataType dtype, const TensorShape& shape) : Tensor(cpu_allocator(), dtype, shape) {}

Tensor::Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape)
    : dtype_(dtype), shape_(shape) {
  auto buf = MakeBuffer(allocator, dtype, shape);
  if (!buf.ok()) Fatal(buf.status().ToString());
  buf_ = std::move(buf).value();
}

StatusOr<Tensor> Tensor::Allocate(Allocator* allocator, DataType dtype, const TensorShape& shape) {
  TA_ASSIGN_OR_RETURN(auto buf, MakeBuffer(allocator, dtype, shape));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.buf_ = std::move(buf);
  return t;
}

void* Tensor::data() const { return buf_ ? buf_->data() : nullptr; }

size_t Tensor::TotalBytes() const {
  if (dtype_ == tensorflow::DT_STRING) {
    size_t total = 0;
    const auto* s = static_cast<const std::string*>(data());
    for (int64_t i = 0; i < NumElements(); ++i) total += s[i].size();
    return total;
  }
  if (dtype_ == tensorflow::DT_RESOURCE) return static_cast<size_t>(NumElements()) * sizeof(ResourceHandle);
  if (dtype_ == tensorflow::DT_VARIANT) return static_cast<size_t>(NumElements()) * sizeof(Variant);
  return static_cast<size_t>(NumElements()) * DataTypeSize(dtype_);
}

void Tensor::CheckType(DataType expected) const {
  if (expected != dtype_) {
    Fatal(StrCat("a ", DataTypeString(dtype_), " tensor was accessed as ", DataTypeString(expected)));
  }
}

void Tensor::CheckRank(int expected) const {
  if (expected != dims()) {
    Fatal(StrCat("a tensor of shape ", shape_.DebugString(), " was accessed as rank ", expected));
  }
}

void Tensor::FatalSizeMismatch(size_t num_values, const TensorShape& shape) {
  Fatal(StrCat(num_values, " values cannot fill a tensor of shape ", shape.DebugString()));
}

StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements()) {
    return errors::InvalidArgument("cannot reshape a tensor of shape ", shape_.DebugString(), " (",
                                   NumElements(), " elements) to ", shape.DebugString(), " (",
                                   shape.num_elements(), " elements)");
  }
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

StatusOr<Tensor> Tensor::View(int64_t first, const TensorShape& shape) const {
  const int64_t n = shape.num_elements();
  if (first < 0 || n < 0 || first > NumElements() - n) {
    return errors::InvalidArgument("elements [", first, ", ", first + n, ") are not all within a tensor of shape ",
                                   shape_.DebugString());
  }
  if (dtype_ == tensorflow::DT_STRING || dtype_ == tensorflow::DT_VARIANT || dtype_ == tensorflow::DT_RESOURCE) {
    return errors::Unimplemented("a view of a ", DataTypeString(dtype_), " tensor");
  }
  const size_t offset = static_cast<size_t>(first) * DataTypeSize(dtype_);
  if (buf_ == nullptr || offset % kAllocatorAlignment != 0 ||
      reinterpret_cast<uintptr_t>(buf_->data()) % kAllocatorAlignment != 0) {
    return errors::FailedPrecondition("a view at element ", first, " of a ", DataTypeString(dtype_),
                                      " tensor would not be aligned");
  }
  Tensor t;
  t.dtype_ = dtype_;
  t.shape_ = shape;
  t.buf_ = std::make_shared<ViewBuffer>(buf_, offset, static_cast<size_t>(n) * DataTypeSize(dtype_));
  return t;
}

Tensor Tensor::DeepCopy(Allocator* allocator) const {
  Tensor t(allocator, dtype_, shape_);
  if (dtype_ == tensorflow::DT_STRING) {
    const auto* from = static_cast<const std::string*>(data());
    auto* to = static_cast<std::string*>(t.data());
    for (int64_t i = 0; i < NumElements(); ++i) to[i] = from[i];
  } else if (dtype_ == tensorflow::DT_RESOURCE) {
    const auto* from = static_cast<const ResourceHandle*>(data());
    auto* to = static_cast<ResourceHandle*>(t.data());
    for (int64_t i = 0; i < NumElements(); ++i) to[i] = from[i];
  } else if (dtype_ == tensorflow::DT_VARIANT) {
    // The copy shares the variants' values (so a list op will not change them in place).
    const auto* from = static_cast<const Variant*>(data());
    auto* to = static_cast<Variant*>(t.data());
    for (int64_t i = 0; i < NumElements(); ++i) to[i] = from[i];
  } else if (NumElements() > 0) {
    std::memcpy(t.data(), data(), TotalBytes());
  }
  return t;
}

std::string Tensor::SummarizeValue(int64_t max_entries) const {
  std::ostringstream os;
  if (!IsInitialized()) return "<uninitialized>";
  if (dtype_ == tensorflow::DT_RESOURCE) {
    PrintNested(os, static_cast<const ResourceHandle*>(data()), shape_.dim_sizes(), max_entries);
    return os.str();
  }
  if (dtype_ == tensorflow::DT_VARIANT) {
    PrintNested(os, static_cast<const Variant*>(data()), shape_.dim_sizes(), max_entries);
    return os.str();
  }
  TA_SWITCH_ALL_TYPES(dtype_, os << "<unprintable " << DataTypeString(dtype_) << ">",
                      PrintNested(os, static_cast<const T*>(data()), shape_.dim_sizes(), max_entries));
  return os.str();
}

std::string Tensor::DebugString(int max_entries) const {
  return StrCat("Tensor<type: ", DataTypeString(dtype_), " shape: ", shape_.DebugString(),
                " values: ", SummarizeValue(max_entries), ">");
}

}  // namespace tensoract
