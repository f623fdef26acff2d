// The element mover behind the slicing kernels (Slice, StridedSlice and its gradient,
// Split, SplitV, Unpack, Tile, BroadcastTo, Pad): every one of them copies a box of
// elements whose position in the source and in the destination is an affine function of
// the box's multi-index. Describing the box once (its dims, and a base offset and a
// stride per dimension on each side, in elements; strides may be 0 or negative) lets one
// loop serve all of them and every dtype: elements are moved by size, strings and variants
// by value. CopyElements moves a run of elements for the kernels that gather rows (Pack,
// ConcatV2, Gather, GatherNd, DynamicStitch, the TensorList kernels).
#ifndef TENSORACT_KERNELS_CPU_STRIDED_COPY_H_
#define TENSORACT_KERNELS_CPU_STRIDED_COPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {

struct StridedView {
  int64_t base = 0;              // offset of the box's first element, in elements
  std::vector<int64_t> strides;  // one per box dimension, in elements
};

// dst[dst_view(i)] = src[src_view(i)] for every multi-index i in `dims`. Rows of the box
// are spread over the device's threads when the box is large. src and dst must have one
// dtype; dst's buffer must hold every position written.
void StridedCopy(OpKernelContext* ctx, const Tensor& src, const StridedView& src_view, Tensor* dst,
                 const StridedView& dst_view, const std::vector<int64_t>& dims);

// A device whose memory the host cannot touch (a GPU) gives its own element movers; the
// array kernels above then run on it unchanged (their index inputs are int32, which stays
// in host memory there). Registered once, at static initialisation, by device type.
using DeviceStridedCopyFn = void (*)(OpKernelContext* ctx, const Tensor& src, const StridedView& src_view, Tensor* dst,
                                     const StridedView& dst_view, const std::vector<int64_t>& dims);
using DeviceFillFn = void (*)(OpKernelContext* ctx, const Tensor* value, Tensor* dst);
void RegisterDeviceElementMovers(const std::string& device_type, DeviceStridedCopyFn copy, DeviceFillFn fill);

// n elements of `from` from element `from_at` into `to` from element `to_at` (one dtype on
// the host): bytes for fixed-size types, by value for strings and variants.
void CopyElements(const Tensor& from, int64_t from_at, Tensor* to, int64_t to_at, int64_t n);
// Whether CopyElements and StridedCopy move elements of `t`.
bool CanCopyElements(DataType t);

// An element moved as raw bits: the unsigned integer of its size, or two of 8 bytes for the
// 16-byte types (complex128). Kernels that only move elements (never compute with them) are
// instantiated on ElementBits<T>, so that the dtypes of one size share one compiled kernel:
// float, int32 and uint32 are one. Zero bits are every number type's zero (and false).
struct Bytes16 {
  uint64_t lo, hi;
};
template <size_t N> struct ElementBitsOfSize;
template <> struct ElementBitsOfSize<1> { using type = uint8_t; };
template <> struct ElementBitsOfSize<2> { using type = uint16_t; };
template <> struct ElementBitsOfSize<4> { using type = uint32_t; };
template <> struct ElementBitsOfSize<8> { using type = uint64_t; };
template <> struct ElementBitsOfSize<16> { using type = Bytes16; };
template <class T>
using ElementBits = typename ElementBitsOfSize<sizeof(T)>::type;

// A tensor's elements as E (ElementBits of its dtype): the registration has checked the
// dtype, so only the size matters here.
template <class E>
E* ElementsAs(const Tensor& t) {
  return static_cast<E*>(t.data());
}

// Row-major strides of `shape`, in elements.
std::vector<int64_t> RowMajorStrides(const TensorShape& shape);

// Every element of `dst` set to the scalar `value` (same dtype), or to zero when `value`
// is null.
void FillElements(OpKernelContext* ctx, const Tensor* value, Tensor* dst);

// The values of an int16/int32/int64 tensor, flattened.
std::vector<int64_t> IndexValues(const Tensor& t);

// "node 'n' (op 'Slice'): ", the prefix of every error of these kernels.
std::string NodePrefix(const OpKernel& kernel);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_STRIDED_COPY_H_
