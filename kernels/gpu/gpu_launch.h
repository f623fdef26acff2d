// Launch helpers for the GPU kernels (.cu files): grid-stride loops and grid sizes.
#ifndef TENSORACT_KERNELS_GPU_GPU_LAUNCH_H_
#define TENSORACT_KERNELS_GPU_GPU_LAUNCH_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>

namespace tensoract {
namespace gpu {

constexpr int kThreadsPerBlock = 256;

// Enough blocks to cover `n` elements once, capped (a grid-stride loop covers the rest).
inline int BlocksFor(int64_t n) {
  const int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(blocks, 65536)));
}

#define TA_GPU_LOOP(i, n)                                                                       \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// Up to this many dimensions after broadcasting collapses them (graph tensors have few).
constexpr int kMaxBroadcastDims = 8;

// Where output element i reads each operand: the collapsed dimensions and each operand's
// stride along them (0 where it is broadcast).
struct BroadcastIndex {
  int ndims = 0;
  int64_t dims[kMaxBroadcastDims];
  int64_t x_strides[kMaxBroadcastDims];
  int64_t y_strides[kMaxBroadcastDims];
};

__device__ inline void BroadcastOffsets(const BroadcastIndex& b, int64_t i, int64_t* xo, int64_t* yo) {
  int64_t x = 0, y = 0;
  for (int d = b.ndims - 1; d >= 0; --d) {
    const int64_t idx = i % b.dims[d];
    i /= b.dims[d];
    x += idx * b.x_strides[d];
    y += idx * b.y_strides[d];
  }
  *xo = x;
  *yo = y;
}

// The most negative finite value: where a max starts, as the CPU kernels' lowest().
template <class T>
__device__ inline T Lowest();
template <>
__device__ inline float Lowest<float>() { return -FLT_MAX; }
template <>
__device__ inline double Lowest<double>() { return -DBL_MAX; }

}  // namespace gpu
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_GPU_GPU_LAUNCH_H_
