// Element movers on the GPU: the strided box copy behind the array kernels (Slice,
// StridedSlice, Pad, Tile, Split, ...), fills, and Transpose (launchers.h).
#include "kernels/gpu/launchers.h"

namespace tensoract {
namespace gpu {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

template <class E>
__global__ void StridedCopyKernel(const E* src, E* dst, StridedBox box, int64_t n) {
  TA_GPU_LOOP(i, n) {
    int64_t rest = i, s = box.src_base, t = box.dst_base;
    for (int d = box.ndims - 1; d >= 0; --d) {
      const int64_t idx = rest % box.dims[d];
      rest /= box.dims[d];
      s += idx * box.src_strides[d];
      t += idx * box.dst_strides[d];
    }
    dst[t] = src[s];
  }
}

template <class E>
__global__ void FillBytesKernel(const E* value, E* dst, int64_t n) {
  E v;
  if (value != nullptr) {
    v = *value;
  } else {
    memset(&v, 0, sizeof(E));
  }
  TA_GPU_LOOP(i, n) { dst[i] = v; }
}

template <class E>
void CopyAs(const void* src, void* dst, const StridedBox& box, int64_t n, cudaStream_t stream) {
  StridedCopyKernel<E><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(static_cast<const E*>(src), static_cast<E*>(dst),
                                                                      box, n);
}

template <class E>
void FillAs(const void* value, void* dst, int64_t n, cudaStream_t stream) {
  FillBytesKernel<E><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(static_cast<const E*>(value), static_cast<E*>(dst), n);
}

}  // namespace

bool LaunchStridedCopy(const void* src, void* dst, int bytes, const StridedBox& box, cudaStream_t stream) {
  int64_t n = 1;
  for (int d = 0; d < box.ndims; ++d) n *= box.dims[d];
  if (n == 0) return true;
  switch (bytes) {
    case 1: CopyAs<uint8_t>(src, dst, box, n, stream); return true;
    case 2: CopyAs<uint16_t>(src, dst, box, n, stream); return true;
    case 4: CopyAs<uint32_t>(src, dst, box, n, stream); return true;
    case 8: CopyAs<uint64_t>(src, dst, box, n, stream); return true;
    case 16: CopyAs<Bytes16>(src, dst, box, n, stream); return true;
    default: return false;
  }
}

bool LaunchFillBytes(const void* value, void* dst, int bytes, int64_t n, cudaStream_t stream) {
  if (n == 0) return true;
  switch (bytes) {
    case 1: FillAs<uint8_t>(value, dst, n, stream); return true;
    case 2: FillAs<uint16_t>(value, dst, n, stream); return true;
    case 4: FillAs<uint32_t>(value, dst, n, stream); return true;
    case 8: FillAs<uint64_t>(value, dst, n, stream); return true;
    case 16: FillAs<Bytes16>(value, dst, n, stream); return true;
    default: return false;
  }
}

template <class T>
void LaunchTranspose(const T* in, T* out, int ndims, const int64_t* in_dims, const int* perm, cudaStream_t stream) {
  // Walk the output in order; each output dimension d steps the input by the stride of
  // input dimension perm[d].
  StridedBox box;
  box.ndims = ndims;
  int64_t in_strides[kMaxBroadcastDims];
  int64_t stride = 1;
  for (int d = ndims - 1; d >= 0; --d) {
    in_strides[d] = stride;
    stride *= in_dims[d];
  }
  stride = 1;
  for (int d = ndims - 1; d >= 0; --d) {
    box.dims[d] = in_dims[perm[d]];
    box.src_strides[d] = in_strides[perm[d]];
    box.dst_strides[d] = stride;
    stride *= box.dims[d];
  }
  LaunchStridedCopy(in, out, sizeof(T), box, stream);
}

template void LaunchTranspose<float>(const float*, float*, int, const int64_t*, const int*, cudaStream_t);
template void LaunchTranspose<double>(const double*, double*, int, const int64_t*, const int*, cudaStream_t);

}  // namespace gpu
}  // namespace tensoract
