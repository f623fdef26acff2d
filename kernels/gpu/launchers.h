// The CUDA kernels' entry points, in plain C++ types: the .cu files hold the kernels and
// these launchers; the OpKernels (.cc, compiled by the host compiler) check shapes and
// attrs, allocate and call them. Every launcher enqueues on `stream` and returns at once;
// the caller checks the launch with GpuContext::CheckLaunch.
#ifndef TENSORACT_KERNELS_GPU_LAUNCHERS_H_
#define TENSORACT_KERNELS_GPU_LAUNCHERS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gpu/gpu_launch.h"

namespace tensoract {
namespace gpu {

enum class UnaryKind { kNeg, kAbs, kExp, kLog, kSqrt, kRsqrt, kSquare, kTanh, kSigmoid, kRelu, kRelu6, kReciprocal,
                       kLog1p, kSign, kFloor, kCeil, kSin, kCos, kSoftplus };
template <class T>
void LaunchUnary(UnaryKind op, const T* x, T* y, int64_t n, cudaStream_t stream);

enum class BinaryKind { kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kSquaredDifference, kPow,
                        // gradients, TensorFlow's argument order: (gradients, features) or (y, dy)
                        kReluGrad, kRelu6Grad, kSigmoidGrad, kTanhGrad, kSqrtGrad, kRsqrtGrad, kReciprocalGrad };
template <class T>
void LaunchBinary(BinaryKind op, const T* x, const T* y, T* z, int64_t n, const BroadcastIndex& b, cudaStream_t stream);

enum class CompareKind { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };
template <class T>
void LaunchCompare(CompareKind op, const T* x, const T* y, bool* z, int64_t n, const BroadcastIndex& b,
                   cudaStream_t stream);

enum class LogicalKind { kAnd, kOr };
void LaunchLogical(LogicalKind op, const bool* x, const bool* y, bool* z, int64_t n, const BroadcastIndex& b,
                   cudaStream_t stream);
void LaunchLogicalNot(const bool* x, bool* y, int64_t n, cudaStream_t stream);

template <class S, class D>
void LaunchCast(const S* x, D* y, int64_t n, cudaStream_t stream);

// out[i] = *value (value in the GPU's memory).
template <class T>
void LaunchFill(const T* value, T* out, int64_t n, cudaStream_t stream);
template <class T>
void LaunchFillConstant(T value, T* out, int64_t n, cudaStream_t stream);

// out = cond ? a : b over the output's dims, each operand read through its strides (0 along
// a dimension it is broadcast over).
struct SelectIndex {
  int ndims = 0;
  int64_t dims[kMaxBroadcastDims];
  int64_t c_strides[kMaxBroadcastDims];
  int64_t a_strides[kMaxBroadcastDims];
  int64_t b_strides[kMaxBroadcastDims];
};
template <class T>
void LaunchSelect(const bool* cond, const T* a, const T* b, T* out, int64_t n, const SelectIndex& s,
                  cudaStream_t stream);

// out = sum of `count` inputs (at most kMaxAddN; callers chain for more).
constexpr int kMaxAddN = 8;
template <class T>
void LaunchAddN(const T* const* inputs, int count, bool accumulate, T* out, int64_t n, cudaStream_t stream);

// dst[dst_base + sum_d i_d * dst_strides[d]] = src[src_base + sum_d i_d * src_strides[d]]
// for every multi-index i of `dims` (elements of `bytes` bytes: 1, 2, 4, 8 or 16).
struct StridedBox {
  int ndims = 0;
  int64_t dims[kMaxBroadcastDims];
  int64_t src_strides[kMaxBroadcastDims];
  int64_t dst_strides[kMaxBroadcastDims];
  int64_t src_base = 0, dst_base = 0;
};
bool LaunchStridedCopy(const void* src, void* dst, int bytes, const StridedBox& box, cudaStream_t stream);
// Every element of dst (n elements of `bytes` bytes) set to the element at `value` (GPU
// memory), or to zero when `value` is null.
bool LaunchFillBytes(const void* value, void* dst, int bytes, int64_t n, cudaStream_t stream);
// out = in transposed: out's dimension d is in's dimension perm[d].
template <class T>
void LaunchTranspose(const T* in, T* out, int ndims, const int64_t* in_dims, const int* perm, cudaStream_t stream);

// A pool's NHWC geometry: input [n, h, w, c], output [n, oh, ow, c], windows kh x kw moved
// by sh, sw from pad_top and pad_left before the input (any padding, SAME's uneven too).
struct PoolGeometry {
  int64_t n = 0, h = 0, w = 0, c = 0, oh = 0, ow = 0, kh = 1, kw = 1, sh = 1, sw = 1, pad_top = 0, pad_left = 0;
};
// MaxPool (max) or AvgPool of x into y.
template <class T>
void LaunchPool(bool max, const T* x, T* y, const PoolGeometry& g, cudaStream_t stream);
// Whether no two windows share an input element (stride >= window in both dimensions).
inline bool PoolWindowsDisjoint(const PoolGeometry& g) { return g.sh >= g.kh && g.sw >= g.kw; }
// MaxPoolGrad: dx from the original input x and the output gradient dy (any geometry; the
// fast path for disjoint windows).
template <class T>
void LaunchMaxPoolGrad(const T* x, const T* dy, T* dx, const PoolGeometry& g, cudaStream_t stream);
template <class T>
void LaunchAvgPoolGrad(const T* dy, T* dx, const PoolGeometry& g, cudaStream_t stream);

// y = x + bias over [outer, channels, inner] (NHWC: inner 1).
template <class T>
void LaunchBiasAdd(const T* x, const T* bias, T* y, int64_t n, int64_t channels, int64_t inner, cudaStream_t stream);

// Reduces [outer, reduced, inner] over the middle dimension into [outer, inner]. Long rows
// of few outputs are cut into pieces reduced by many blocks into `scratch` (of
// ReduceScratchElements() elements, GPU memory), then combined: one block per row would
// leave all but one of the GPU's multiprocessors idle.
enum class ReduceKind { kSum, kMean, kMax, kMin, kProd };
int64_t ReduceScratchElements(int64_t outer, int64_t reduced, int64_t inner);
template <class T>
void LaunchReduce(ReduceKind op, const T* x, T* y, int64_t outer, int64_t reduced, int64_t inner, T* scratch,
                  cudaStream_t stream);

// Row-wise softmax (or log-softmax) of [batch, classes].
template <class T>
void LaunchSoftmax(const T* logits, T* out, int64_t batch, int64_t classes, bool log, cudaStream_t stream);

// loss[b] = -log softmax(logits[b])[labels[b]]; backprop = softmax - one_hot(labels).
// Labels out of range give NaN, as on TensorFlow's GPU (the caller checks host labels).
template <class T, class L>
void LaunchSparseXent(const T* logits, const L* labels, T* loss, T* backprop, int64_t batch, int64_t classes,
                      cudaStream_t stream);

// The optimizers' updates (TensorFlow's training_ops arithmetic). `*_in` and `*_out` may be
// the same buffer (in place) or not (a copy-on-write update). Scalars are in GPU memory.
template <class T>
void LaunchApplyGradientDescent(const T* var_in, T* var_out, const T* alpha, const T* delta, int64_t n,
                                cudaStream_t stream);
template <class T>
void LaunchApplyMomentum(const T* var_in, T* var_out, const T* accum_in, T* accum_out, const T* lr, const T* grad,
                         const T* momentum, bool nesterov, int64_t n, cudaStream_t stream);
template <class T>
void LaunchApplyAdam(const T* var_in, T* var_out, const T* m_in, T* m_out, const T* v_in, T* v_out,
                     const T* beta1_power, const T* beta2_power, const T* lr, const T* beta1, const T* beta2,
                     const T* epsilon, const T* grad, bool nesterov, int64_t n, cudaStream_t stream);

}  // namespace gpu
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_GPU_LAUNCHERS_H_
