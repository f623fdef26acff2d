// The element mover behind the slicing kernels (Slice, StridedSlice and its gradient,
// Split, SplitV, Unpack, Tile, BroadcastTo, Pad): every one of them copies a box of
// elements whose position in the source and in the destination is an affine function of
// the box's multi-index. Describing the box once (its dims, and a base offset and a
// stride per dimension on each side, in elements; strides may be 0 or negative) lets one
// loop serve all of them and every dtype: elements are moved by size, strings by value.
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
