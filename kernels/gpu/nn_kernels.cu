// GPU kernels for the neural-network ops: BiasAdd, reductions, softmax, sparse softmax
// cross-entropy, and the optimizers' updates (launchers.h).
#include <cmath>

#include "kernels/gpu/launchers.h"

namespace tensoract {
namespace gpu {
namespace {

// Max and Min propagate NaN and start from -inf and +inf, as TensorFlow's (and the CPU's).
template <class T>
__device__ T Combine(ReduceKind op, T a, T b) {
  switch (op) {
    case ReduceKind::kMax: return (a > b || isnan(a)) ? a : b;
    case ReduceKind::kMin: return (a < b || isnan(a)) ? a : b;
    case ReduceKind::kProd: return a * b;
    default: return a + b;
  }
}

template <class T>
__device__ T Identity(ReduceKind op) {
  switch (op) {
    case ReduceKind::kMax: return -T(INFINITY);
    case ReduceKind::kMin: return T(INFINITY);
    case ReduceKind::kProd: return T(1);
    default: return T(0);
  }
}

// All threads of the block (kThreadsPerBlock of them) combine their `v`; every thread
// gets the result.
template <class T>
__device__ T BlockReduce(ReduceKind op, T v) {
  __shared__ T shared[kThreadsPerBlock];
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreadsPerBlock / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] = Combine(op, shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  T result = shared[0];
  __syncthreads();  // the next call may reuse shared
  return result;
}

template <class T>
__global__ void BiasAddKernel(const T* x, const T* bias, T* y, int64_t n, int64_t channels) {
  TA_GPU_LOOP(i, n) { y[i] = x[i] + bias[i % channels]; }
}

// NCHW: element i's channel is (i / inner) % channels.
template <class T>
__global__ void BiasAddInnerKernel(const T* x, const T* bias, T* y, int64_t n, int64_t channels, int64_t inner) {
  TA_GPU_LOOP(i, n) { y[i] = x[i] + bias[(i / inner) % channels]; }
}

// One block per row of [outer, reduced] (inner == 1); a mean divides by `count`.
template <class T>
__global__ void ReduceRowsKernel(ReduceKind op, const T* x, T* y, int64_t outer, int64_t reduced, int64_t count) {
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    T acc = Identity<T>(op);
    for (int64_t r = threadIdx.x; r < reduced; r += blockDim.x) acc = Combine(op, acc, x[row * reduced + r]);
    acc = BlockReduce(op, acc);
    if (threadIdx.x == 0) y[row] = op == ReduceKind::kMean ? acc / T(count) : acc;
  }
}

// The first pass of a long row: block (row, piece) reduces its piece into partial[row, piece].
template <class T>
__global__ void ReducePiecesKernel(ReduceKind op, const T* x, T* partial, int64_t reduced, int64_t pieces) {
  const int64_t row = blockIdx.y, piece = blockIdx.x;
  const int64_t per_piece = (reduced + pieces - 1) / pieces;
  const int64_t begin = piece * per_piece, end = min(reduced, begin + per_piece);
  const ReduceKind combine = op == ReduceKind::kMean ? ReduceKind::kSum : op;
  T acc = Identity<T>(combine);
  for (int64_t r = begin + threadIdx.x; r < end; r += blockDim.x) acc = Combine(combine, acc, x[row * reduced + r]);
  acc = BlockReduce(combine, acc);
  if (threadIdx.x == 0) partial[row * pieces + piece] = acc;
}

constexpr int64_t kPieceElements = 16 * kThreadsPerBlock;
constexpr int64_t kMaxPieces = 1024;

// Tall columns: each block of the first pass takes at least this many rows.
constexpr int64_t kPieceRows = 64;

int64_t PiecesFor(int64_t outer, int64_t reduced, int64_t inner) {
  if (inner == 1) {
    if (outer > 64 || reduced < 4 * kPieceElements) return 0;
    return std::min<int64_t>(kMaxPieces, (reduced + kPieceElements - 1) / kPieceElements);
  }
  // Columns: worth it when the outputs alone cannot fill the GPU.
  if (outer * inner >= (int64_t{1} << 16) || reduced < 4 * kPieceRows) return 0;
  return std::min<int64_t>(kMaxPieces, (reduced + kPieceRows - 1) / kPieceRows);
}

// One thread per output of [outer, reduced, inner] with inner > 1: neighbouring threads
// read neighbouring elements.
template <class T>
__global__ void ReduceColumnsKernel(ReduceKind op, const T* x, T* y, int64_t outer, int64_t reduced, int64_t inner,
                                    int64_t count) {
  TA_GPU_LOOP(i, outer * inner) {
    const int64_t o = i / inner, in = i % inner;
    const T* p = x + o * reduced * inner + in;
    T acc = Identity<T>(op);
    for (int64_t r = 0; r < reduced; ++r) acc = Combine(op, acc, p[r * inner]);
    y[i] = op == ReduceKind::kMean ? acc / T(count) : acc;
  }
}

// Tall columns ([outer, reduced, inner] with few outputs: BiasAddGrad of a convolution's
// [batch * rows * cols, channels]), one pass of two: block (piece, o) of kWarps warps
// combines rows [piece * per_piece, ...) of outer o into out[o, piece, :], warp w taking
// rows w, w + kWarps, ... and lane l the columns l, l + 32, ... (a warp reads 32 neighbours
// of a row), the warps' results then combined through shared memory. The first pass
// writes one row per piece; the second (one piece, `finish`) combines those rows into the
// output, dividing a mean by `count`.
template <class T, int kWarps>
__global__ void ReduceTallColumnsKernel(ReduceKind op, const T* x, T* out, int64_t reduced, int64_t inner,
                                        int64_t per_piece, int64_t count, bool finish) {
  __shared__ T shared[kWarps][32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t piece = blockIdx.x, pieces = gridDim.x, o = blockIdx.y;
  const int64_t begin = piece * per_piece, end = min(reduced, begin + per_piece);
  const ReduceKind combine = op == ReduceKind::kMean ? ReduceKind::kSum : op;
  const T* p = x + o * reduced * inner;
  for (int64_t c0 = 0; c0 < inner; c0 += 32) {
    const int64_t column = c0 + lane;
    T acc = Identity<T>(combine);
    if (column < inner) {
#pragma unroll 8
      for (int64_t r = begin + warp; r < end; r += kWarps) acc = Combine(combine, acc, p[r * inner + column]);
    }
    shared[warp][lane] = acc;
    __syncthreads();
    if (warp == 0 && column < inner) {
      T v = shared[0][lane];
      for (int w = 1; w < kWarps; ++w) v = Combine(combine, v, shared[w][lane]);
      if (finish && op == ReduceKind::kMean) v = v / T(count);
      out[(o * pieces + piece) * inner + column] = v;
    }
    __syncthreads();
  }
}

// A row's largest logit and the sum of exp(logit - largest), over the whole block.
template <class T>
__device__ void RowMaxAndSumExp(const T* l, int64_t classes, T* max_out, T* sum_out) {
  T m = Lowest<T>();
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) m = l[c] > m ? l[c] : m;
  m = BlockReduce(ReduceKind::kMax, m);
  T s = 0;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) s += exp(l[c] - m);
  *max_out = m;
  *sum_out = BlockReduce(ReduceKind::kSum, s);
}

template <class T>
__global__ void SoftmaxKernel(const T* logits, T* out, int64_t batch, int64_t classes, bool log) {
  for (int64_t row = blockIdx.x; row < batch; row += gridDim.x) {
    const T* l = logits + row * classes;
    T m, s;
    RowMaxAndSumExp(l, classes, &m, &s);
    const T log_s = ::log(s);
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      out[row * classes + c] = log ? l[c] - m - log_s : exp(l[c] - m) / s;
    }
  }
}

template <class T, class L>
__global__ void SparseXentKernel(const T* logits, const L* labels, T* loss, T* backprop, int64_t batch,
                                 int64_t classes) {
  for (int64_t row = blockIdx.x; row < batch; row += gridDim.x) {
    const T* l = logits + row * classes;
    const L label = labels[row];
    const bool valid = label >= 0 && label < classes;
    T m, s;
    RowMaxAndSumExp(l, classes, &m, &s);
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      backprop[row * classes + c] = valid ? exp(l[c] - m) / s - (c == label ? T(1) : T(0)) : T(NAN);
    }
    if (threadIdx.x == 0) loss[row] = valid ? ::log(s) - (l[label] - m) : T(NAN);
  }
}

template <class T>
__global__ void GradientDescentKernel(const T* var_in, T* var_out, const T* alpha, const T* delta, int64_t n) {
  const T a = *alpha;
  TA_GPU_LOOP(i, n) { var_out[i] = var_in[i] - a * delta[i]; }
}

template <class T>
__global__ void MomentumKernel(const T* var_in, T* var_out, const T* accum_in, T* accum_out, const T* lr,
                               const T* grad, const T* momentum, bool nesterov, int64_t n) {
  const T rate = *lr, mom = *momentum;
  TA_GPU_LOOP(i, n) {
    const T accum = accum_in[i] * mom + grad[i];
    accum_out[i] = accum;
    var_out[i] = nesterov ? var_in[i] - (grad[i] * rate + accum * mom * rate) : var_in[i] - accum * rate;
  }
}

template <class T>
__global__ void AdamKernel(const T* var_in, T* var_out, const T* m_in, T* m_out, const T* v_in, T* v_out,
                           const T* beta1_power, const T* beta2_power, const T* lr, const T* beta1, const T* beta2,
                           const T* epsilon, const T* grad, bool nesterov, int64_t n) {
  const T b1 = *beta1, b2 = *beta2, eps = *epsilon;
  const T alpha = *lr * sqrt(T(1) - *beta2_power) / (T(1) - *beta1_power);
  TA_GPU_LOOP(i, n) {
    const T g = grad[i];
    const T m = m_in[i] + (g - m_in[i]) * (T(1) - b1);
    const T v = v_in[i] + (g * g - v_in[i]) * (T(1) - b2);
    m_out[i] = m;
    v_out[i] = v;
    const T step = nesterov ? (m * b1 + (T(1) - b1) * g) : m;
    var_out[i] = var_in[i] - alpha * step / (sqrt(v) + eps);
  }
}

int RowBlocks(int64_t rows) { return static_cast<int>(rows < 65535 ? (rows < 1 ? 1 : rows) : 65535); }

}  // namespace

template <class T>
void LaunchBiasAdd(const T* x, const T* bias, T* y, int64_t n, int64_t channels, int64_t inner, cudaStream_t stream) {
  if (n == 0) return;
  if (inner == 1) BiasAddKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(x, bias, y, n, channels);
  else BiasAddInnerKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(x, bias, y, n, channels, inner);
}

int64_t ReduceScratchElements(int64_t outer, int64_t reduced, int64_t inner) {
  return outer * PiecesFor(outer, reduced, inner) * inner;
}

template <class T>
void LaunchReduce(ReduceKind op, const T* x, T* y, int64_t outer, int64_t reduced, int64_t inner, T* scratch,
                  cudaStream_t stream) {
  if (outer * inner == 0) return;
  const int64_t pieces = PiecesFor(outer, reduced, inner);
  if (pieces > 0 && scratch != nullptr && inner > 1) {
    const int64_t per_piece = (reduced + pieces - 1) / pieces;
    ReduceTallColumnsKernel<T, 8><<<dim3(static_cast<unsigned>(pieces), static_cast<unsigned>(outer)), 8 * 32, 0,
                                     stream>>>(op, x, scratch, reduced, inner, per_piece, reduced, false);
    ReduceTallColumnsKernel<T, 32><<<dim3(1, static_cast<unsigned>(outer)), 32 * 32, 0, stream>>>(
        op, scratch, y, pieces, inner, pieces, reduced, true);
  } else if (pieces > 0 && scratch != nullptr) {
    ReducePiecesKernel<T><<<dim3(static_cast<unsigned>(pieces), static_cast<unsigned>(outer)), kThreadsPerBlock, 0,
                            stream>>>(op, x, scratch, reduced, pieces);
    const ReduceKind second = op == ReduceKind::kMean ? ReduceKind::kMean : op;
    ReduceRowsKernel<T><<<RowBlocks(outer), kThreadsPerBlock, 0, stream>>>(second, scratch, y, outer, pieces, reduced);
  } else if (inner == 1) {
    ReduceRowsKernel<T><<<RowBlocks(outer), kThreadsPerBlock, 0, stream>>>(op, x, y, outer, reduced, reduced);
  } else {
    ReduceColumnsKernel<T><<<BlocksFor(outer * inner), kThreadsPerBlock, 0, stream>>>(op, x, y, outer, reduced, inner,
                                                                                      reduced);
  }
}

template <class T>
void LaunchSoftmax(const T* logits, T* out, int64_t batch, int64_t classes, bool log, cudaStream_t stream) {
  if (batch * classes > 0) SoftmaxKernel<T><<<RowBlocks(batch), kThreadsPerBlock, 0, stream>>>(logits, out, batch, classes, log);
}

template <class T, class L>
void LaunchSparseXent(const T* logits, const L* labels, T* loss, T* backprop, int64_t batch, int64_t classes,
                      cudaStream_t stream) {
  if (batch > 0) {
    SparseXentKernel<T, L><<<RowBlocks(batch), kThreadsPerBlock, 0, stream>>>(logits, labels, loss, backprop, batch,
                                                                              classes);
  }
}

template <class T>
void LaunchApplyGradientDescent(const T* var_in, T* var_out, const T* alpha, const T* delta, int64_t n,
                                cudaStream_t stream) {
  if (n > 0) GradientDescentKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(var_in, var_out, alpha, delta, n);
}

template <class T>
void LaunchApplyMomentum(const T* var_in, T* var_out, const T* accum_in, T* accum_out, const T* lr, const T* grad,
                         const T* momentum, bool nesterov, int64_t n, cudaStream_t stream) {
  if (n > 0) {
    MomentumKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(var_in, var_out, accum_in, accum_out, lr, grad,
                                                                     momentum, nesterov, n);
  }
}

template <class T>
void LaunchApplyAdam(const T* var_in, T* var_out, const T* m_in, T* m_out, const T* v_in, T* v_out,
                     const T* beta1_power, const T* beta2_power, const T* lr, const T* beta1, const T* beta2,
                     const T* epsilon, const T* grad, bool nesterov, int64_t n, cudaStream_t stream) {
  if (n > 0) {
    AdamKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(var_in, var_out, m_in, m_out, v_in, v_out, beta1_power,
                                                                 beta2_power, lr, beta1, beta2, epsilon, grad,
                                                                 nesterov, n);
  }
}

#define TA_INSTANTIATE(T)                                                                                       \
  template void LaunchBiasAdd<T>(const T*, const T*, T*, int64_t, int64_t, int64_t, cudaStream_t);           \
  template void LaunchReduce<T>(ReduceKind, const T*, T*, int64_t, int64_t, int64_t, T*, cudaStream_t);     \
  template void LaunchSoftmax<T>(const T*, T*, int64_t, int64_t, bool, cudaStream_t);                        \
  template void LaunchSparseXent<T, int32_t>(const T*, const int32_t*, T*, T*, int64_t, int64_t, cudaStream_t); \
  template void LaunchSparseXent<T, int64_t>(const T*, const int64_t*, T*, T*, int64_t, int64_t, cudaStream_t); \
  template void LaunchApplyGradientDescent<T>(const T*, T*, const T*, const T*, int64_t, cudaStream_t);      \
  template void LaunchApplyMomentum<T>(const T*, T*, const T*, T*, const T*, const T*, const T*, bool, int64_t, \
                                       cudaStream_t);                                                        \
  template void LaunchApplyAdam<T>(const T*, T*, const T*, T*, const T*, T*, const T*, const T*, const T*,   \
                                   const T*, const T*, const T*, const T*, bool, int64_t, cudaStream_t);
TA_INSTANTIATE(float)
TA_INSTANTIATE(double)

}  // namespace gpu
}  // namespace tensoract
