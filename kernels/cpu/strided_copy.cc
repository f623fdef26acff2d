#include "kernels/cpu/strided_copy.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/variant.h"

namespace tensoract {
namespace {

template <class E>
void CopyBox(OpKernelContext* ctx, const E* src, const StridedView& sv, E* dst, const StridedView& dv,
             const std::vector<int64_t>& dims) {
  const int rank = static_cast<int>(dims.size());
  if (rank == 0) {
    dst[dv.base] = src[sv.base];
    return;
  }
  const int64_t inner = dims[rank - 1];
  const int64_t s_in = sv.strides[rank - 1], d_in = dv.strides[rank - 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= dims[d];
  if (rows == 0 || inner == 0) return;
  auto copy_rows = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t s = sv.base, t = dv.base, rest = r;
      for (int d = rank - 2; d >= 0; --d) {
        const int64_t i = rest % dims[d];
        rest /= dims[d];
        s += i * sv.strides[d];
        t += i * dv.strides[d];
      }
      if constexpr (std::is_trivially_copyable_v<E>) {
        if (s_in == 1 && d_in == 1) {
          std::memcpy(dst + t, src + s, inner * sizeof(E));
          continue;
        }
      }
      for (int64_t k = 0; k < inner; ++k) dst[t + k * d_in] = src[s + k * s_in];
    }
  };
  CwiseParallelFor(ctx, rows, std::max<int64_t>(1, inner), copy_rows);
}

struct DeviceMovers {
  DeviceStridedCopyFn copy = nullptr;
  DeviceFillFn fill = nullptr;
};

std::map<std::string, DeviceMovers>& Movers() {
  static auto* movers = new std::map<std::string, DeviceMovers>;
  return *movers;
}

// The movers of the device `t` lives on, when its memory is not the host's.
const DeviceMovers* MoversFor(OpKernelContext* ctx, const Tensor& t) {
  const Allocator* a = t.buffer_allocator();
  if (a == nullptr || a->IsHostMemory()) return nullptr;
  auto it = Movers().find(ctx->device()->device_type());
  return it == Movers().end() ? nullptr : &it->second;
}

}  // namespace

void RegisterDeviceElementMovers(const std::string& device_type, DeviceStridedCopyFn copy, DeviceFillFn fill) {
  Movers()[device_type] = {copy, fill};
}

void StridedCopy(OpKernelContext* ctx, const Tensor& src, const StridedView& src_view, Tensor* dst,
                 const StridedView& dst_view, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  if (const DeviceMovers* m = MoversFor(ctx, *dst)) return m->copy(ctx, src, src_view, dst, dst_view, dims);
  const void* s = src.data();
  void* t = dst->data();
  if (src.dtype() == tensorflow::DT_STRING) {
    CopyBox(ctx, static_cast<const std::string*>(s), src_view, static_cast<std::string*>(t), dst_view, dims);
    return;
  }
  if (src.dtype() == tensorflow::DT_VARIANT) {
    CopyBox(ctx, static_cast<const Variant*>(s), src_view, static_cast<Variant*>(t), dst_view, dims);
    return;
  }
  switch (DataTypeSize(src.dtype())) {
    case 1: CopyBox(ctx, static_cast<const uint8_t*>(s), src_view, static_cast<uint8_t*>(t), dst_view, dims); break;
    case 2: CopyBox(ctx, static_cast<const uint16_t*>(s), src_view, static_cast<uint16_t*>(t), dst_view, dims); break;
    case 4: CopyBox(ctx, static_cast<const uint32_t*>(s), src_view, static_cast<uint32_t*>(t), dst_view, dims); break;
    case 8: CopyBox(ctx, static_cast<const uint64_t*>(s), src_view, static_cast<uint64_t*>(t), dst_view, dims); break;
    case 16: CopyBox(ctx, static_cast<const Bytes16*>(s), src_view, static_cast<Bytes16*>(t), dst_view, dims); break;
    default:
      ctx->SetStatus(errors::Unimplemented(NodePrefix(ctx->op_kernel()), "no copy for dtype ",
                                           DataTypeString(src.dtype())));
  }
}

bool CanCopyElements(DataType t) {
  return DataTypeIsFixedSize(t) || t == tensorflow::DT_STRING || t == tensorflow::DT_VARIANT;
}

void CopyElements(const Tensor& from, int64_t from_at, Tensor* to, int64_t to_at, int64_t n) {
  if (n <= 0) return;
  switch (from.dtype()) {
    case tensorflow::DT_STRING:
      std::copy_n(from.base<std::string>() + from_at, n, to->base<std::string>() + to_at);
      return;
    case tensorflow::DT_VARIANT:
      std::copy_n(from.base<Variant>() + from_at, n, to->base<Variant>() + to_at);
      return;
    default: {
      const size_t size = DataTypeSize(from.dtype());
      std::memcpy(static_cast<char*>(to->data()) + to_at * size, static_cast<const char*>(from.data()) + from_at * size,
                  n * size);
    }
  }
}

std::vector<int64_t> RowMajorStrides(const TensorShape& shape) {
  std::vector<int64_t> strides(shape.dims(), 1);
  for (int d = shape.dims() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dim_size(d + 1);
  return strides;
}

void FillElements(OpKernelContext* ctx, const Tensor* value, Tensor* dst) {
  const int64_t n = dst->NumElements();
  if (n == 0) return;
  if (const DeviceMovers* m = MoversFor(ctx, *dst)) return m->fill(ctx, value, dst);
  if (dst->dtype() == tensorflow::DT_STRING) {
    std::string* p = dst->base<std::string>();
    const std::string v = value == nullptr ? std::string() : value->base<std::string>()[0];
    for (int64_t i = 0; i < n; ++i) p[i] = v;
    return;
  }
  if (dst->dtype() == tensorflow::DT_VARIANT) {
    Variant* p = dst->base<Variant>();
    const Variant v = value == nullptr ? Variant() : value->base<Variant>()[0];
    for (int64_t i = 0; i < n; ++i) p[i] = v;
    return;
  }
  const size_t size = DataTypeSize(dst->dtype());
  char* p = static_cast<char*>(dst->data());
  if (value == nullptr) {
    std::memset(p, 0, n * size);
    return;
  }
  const char* v = static_cast<const char*>(value->data());
  bool zero = true;
  for (size_t b = 0; b < size; ++b) zero &= v[b] == 0;
  if (zero) {
    std::memset(p, 0, n * size);
    return;
  }
  for (int64_t i = 0; i < n; ++i) std::memcpy(p + i * size, v, size);
}

std::vector<int64_t> IndexValues(const Tensor& t) {
  std::vector<int64_t> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (t.dtype()) {
      case tensorflow::DT_INT16: v[i] = t.base<int16_t>()[i]; break;
      case tensorflow::DT_INT32: v[i] = t.base<int32_t>()[i]; break;
      case tensorflow::DT_UINT8: v[i] = t.base<uint8_t>()[i]; break;
      case tensorflow::DT_INT8: v[i] = t.base<int8_t>()[i]; break;
      default: v[i] = t.base<int64_t>()[i]; break;
    }
  }
  return v;
}

std::string NodePrefix(const OpKernel& kernel) {
  return StrCat("node '", kernel.name(), "' (op '", kernel.type_string(), "'): ");
}

}  // namespace tensoract
