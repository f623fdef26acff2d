// Element-wise GPU kernels: unary, binary with broadcasting, comparisons, logical ops,
// casts, fills, Select and AddN (launchers.h).
#include <cfloat>
#include <cmath>

#include "kernels/gpu/launchers.h"

namespace tensoract {
namespace gpu {
namespace {

// Each as the CPU kernel computes it (checked by tests/compat's harness, --gpu): NaN
// propagates through Relu, Relu6, Sign, Maximum and Minimum; Abs clears the sign of -0.
// Floats are flushed to zero in and out (nvcc -ftz=true, CMakeLists.txt), as the CPU's
// kernels run with FTZ and DAZ; doubles cannot be (the GPU has no flush for them).
template <class T>
__device__ T ApplyUnary(UnaryKind op, T x) {
  switch (op) {
    case UnaryKind::kNeg: return -x;
    case UnaryKind::kAbs: return fabs(x);
    case UnaryKind::kExp: return exp(x);
    case UnaryKind::kLog: return log(x);
    case UnaryKind::kSqrt: return sqrt(x);
    case UnaryKind::kRsqrt: return T(1) / sqrt(x);
    case UnaryKind::kSquare: return x * x;
    case UnaryKind::kTanh: return tanh(x);
    case UnaryKind::kSigmoid: return T(1) / (T(1) + exp(-x));
    case UnaryKind::kRelu: return isnan(x) ? x : (x > T(0) ? x : T(0));
    case UnaryKind::kRelu6: return isnan(x) ? x : (x > T(0) ? (x < T(6) ? x : T(6)) : T(0));
    case UnaryKind::kReciprocal: return T(1) / x;
    case UnaryKind::kLog1p: return log1p(x);
    case UnaryKind::kSign: {
      // x + 0 is flushed (a float denormal's sign is 0, as on the CPU); the comparisons alone
      // are not: nvcc tests the sign bit of -1e-45 < 0.
      const T v = x + T(0);
      return isnan(v) ? v : (v > T(0) ? T(1) : (v < T(0) ? T(-1) : T(0)));
    }
    case UnaryKind::kFloor: return floor(x);
    case UnaryKind::kCeil: return ceil(x);
    case UnaryKind::kSin: return sin(x);
    case UnaryKind::kCos: return cos(x);
    case UnaryKind::kSoftplus: {
      // TensorFlow's thresholds: beyond them the result is x, or exp(x), to T's precision.
      const T threshold = log(sizeof(T) == 4 ? T(FLT_EPSILON) : T(DBL_EPSILON)) + T(2);
      return x > -threshold ? x : (x < threshold ? exp(x) : log1p(exp(x)));
    }
  }
  return x;
}

// a * b, or +0 where b is zero (TensorFlow's mul_no_nan, as the CPU's gradients use it).
template <class T>
__device__ T MulNoNan(T a, T b) { return b == T(0) ? T(0) : a * b; }

template <class T>
__device__ T ApplyBinary(BinaryKind op, T x, T y) {
  switch (op) {
    case BinaryKind::kAdd: return x + y;
    case BinaryKind::kSub: return x - y;
    case BinaryKind::kMul: return x * y;
    case BinaryKind::kDiv: return x / y;
    // NaN from either side wins; of two equal values the second (the CPU's x86 order).
    case BinaryKind::kMaximum: return isnan(x) ? x : (isnan(y) ? y : (y < x ? x : y));
    case BinaryKind::kMinimum: return isnan(x) ? x : (isnan(y) ? y : (x < y ? x : y));
    case BinaryKind::kSquaredDifference: return (x - y) * (x - y);
    case BinaryKind::kPow: return pow(x, y);
    // Products, not selects, as TensorFlow's: a NaN or infinite gradient stays NaN where it
    // is blocked, and -0 keeps its sign.
    case BinaryKind::kReluGrad: return x * T(y > T(0) ? 1 : 0);
    case BinaryKind::kRelu6Grad: return x * T((y > T(0) && y < T(6)) ? 1 : 0);
    // (y, dy), in the CPU's order of operations (kernels/cpu/cwise_unary_grad.cc).
    case BinaryKind::kSigmoidGrad: return y * (x * (T(1) - x));
    case BinaryKind::kTanhGrad: return y * (T(1) - x * x);
    case BinaryKind::kSqrtGrad: return MulNoNan(T(0.5) / x, y);
    case BinaryKind::kRsqrtGrad: return MulNoNan(T(-0.5) * (x * x), MulNoNan(x, y));
    case BinaryKind::kReciprocalGrad: return MulNoNan(-(x * x), y);
  }
  return x;
}

template <class T>
__device__ bool ApplyCompare(CompareKind op, T x, T y) {
  switch (op) {
    case CompareKind::kEqual: return x == y;
    case CompareKind::kNotEqual: return x != y;
    case CompareKind::kLess: return x < y;
    case CompareKind::kLessEqual: return x <= y;
    case CompareKind::kGreater: return x > y;
    case CompareKind::kGreaterEqual: return x >= y;
  }
  return false;
}

template <class T>
__global__ void UnaryKernel(UnaryKind op, const T* x, T* y, int64_t n) {
  TA_GPU_LOOP(i, n) { y[i] = ApplyUnary(op, x[i]); }
}

template <class T>
__global__ void BinaryFlatKernel(BinaryKind op, const T* x, const T* y, T* z, int64_t n) {
  TA_GPU_LOOP(i, n) { z[i] = ApplyBinary(op, x[i], y[i]); }
}

template <class T>
__global__ void BinaryBroadcastKernel(BinaryKind op, const T* x, const T* y, T* z, int64_t n, BroadcastIndex b) {
  TA_GPU_LOOP(i, n) {
    int64_t xo, yo;
    BroadcastOffsets(b, i, &xo, &yo);
    z[i] = ApplyBinary(op, x[xo], y[yo]);
  }
}

template <class T>
__global__ void CompareKernel(CompareKind op, const T* x, const T* y, bool* z, int64_t n, BroadcastIndex b) {
  TA_GPU_LOOP(i, n) {
    int64_t xo, yo;
    BroadcastOffsets(b, i, &xo, &yo);
    z[i] = ApplyCompare(op, x[xo], y[yo]);
  }
}

__global__ void LogicalKernel(LogicalKind op, const bool* x, const bool* y, bool* z, int64_t n, BroadcastIndex b) {
  TA_GPU_LOOP(i, n) {
    int64_t xo, yo;
    BroadcastOffsets(b, i, &xo, &yo);
    z[i] = op == LogicalKind::kAnd ? (x[xo] && y[yo]) : (x[xo] || y[yo]);
  }
}

__global__ void LogicalNotKernel(const bool* x, bool* y, int64_t n) {
  TA_GPU_LOOP(i, n) { y[i] = !x[i]; }
}

template <class S, class D>
__global__ void CastKernel(const S* x, D* y, int64_t n) {
  TA_GPU_LOOP(i, n) { y[i] = static_cast<D>(x[i]); }
}

template <class T>
__global__ void FillKernel(const T* value, T* out, int64_t n) {
  const T v = *value;
  TA_GPU_LOOP(i, n) { out[i] = v; }
}

template <class T>
__global__ void FillConstantKernel(T value, T* out, int64_t n) {
  TA_GPU_LOOP(i, n) { out[i] = value; }
}

template <class T>
__global__ void SelectKernel(const bool* cond, const T* a, const T* b, T* out, int64_t n, SelectIndex s) {
  TA_GPU_LOOP(i, n) {
    int64_t rest = i, co = 0, ao = 0, bo = 0;
    for (int d = s.ndims - 1; d >= 0; --d) {
      const int64_t k = rest % s.dims[d];
      rest /= s.dims[d];
      co += k * s.c_strides[d];
      ao += k * s.a_strides[d];
      bo += k * s.b_strides[d];
    }
    out[i] = cond[co] ? a[ao] : b[bo];
  }
}

template <class T>
struct AddNArgs {
  const T* in[kMaxAddN];
};

template <class T>
__global__ void AddNKernel(AddNArgs<T> args, int count, bool accumulate, T* out, int64_t n) {
  TA_GPU_LOOP(i, n) {
    T sum = accumulate ? out[i] : T(0);
    for (int k = 0; k < count; ++k) sum += args.in[k][i];
    out[i] = sum;
  }
}

bool IsFlat(const BroadcastIndex& b) { return b.ndims <= 1 && (b.ndims == 0 || (b.x_strides[0] == 1 && b.y_strides[0] == 1)); }

}  // namespace

template <class T>
void LaunchUnary(UnaryKind op, const T* x, T* y, int64_t n, cudaStream_t stream) {
  if (n > 0) UnaryKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(op, x, y, n);
}

template <class T>
void LaunchBinary(BinaryKind op, const T* x, const T* y, T* z, int64_t n, const BroadcastIndex& b, cudaStream_t stream) {
  if (n == 0) return;
  if (IsFlat(b)) {
    BinaryFlatKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(op, x, y, z, n);
  } else {
    BinaryBroadcastKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(op, x, y, z, n, b);
  }
}

template <class T>
void LaunchCompare(CompareKind op, const T* x, const T* y, bool* z, int64_t n, const BroadcastIndex& b,
                   cudaStream_t stream) {
  if (n > 0) CompareKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(op, x, y, z, n, b);
}

void LaunchLogical(LogicalKind op, const bool* x, const bool* y, bool* z, int64_t n, const BroadcastIndex& b,
                   cudaStream_t stream) {
  if (n > 0) LogicalKernel<<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(op, x, y, z, n, b);
}

void LaunchLogicalNot(const bool* x, bool* y, int64_t n, cudaStream_t stream) {
  if (n > 0) LogicalNotKernel<<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(x, y, n);
}

template <class S, class D>
void LaunchCast(const S* x, D* y, int64_t n, cudaStream_t stream) {
  if (n > 0) CastKernel<S, D><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(x, y, n);
}

template <class T>
void LaunchFill(const T* value, T* out, int64_t n, cudaStream_t stream) {
  if (n > 0) FillKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(value, out, n);
}

template <class T>
void LaunchFillConstant(T value, T* out, int64_t n, cudaStream_t stream) {
  if (n > 0) FillConstantKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(value, out, n);
}

template <class T>
void LaunchSelect(const bool* cond, const T* a, const T* b, T* out, int64_t n, const SelectIndex& s,
                  cudaStream_t stream) {
  if (n > 0) SelectKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(cond, a, b, out, n, s);
}

template <class T>
void LaunchAddN(const T* const* inputs, int count, bool accumulate, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  AddNArgs<T> args;
  for (int k = 0; k < count && k < kMaxAddN; ++k) args.in[k] = inputs[k];
  AddNKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(args, count, accumulate, out, n);
}

#define TA_INSTANTIATE_FLOATING(T)                                                                          \
  template void LaunchUnary<T>(UnaryKind, const T*, T*, int64_t, cudaStream_t);                           \
  template void LaunchBinary<T>(BinaryKind, const T*, const T*, T*, int64_t, const BroadcastIndex&,       \
                                cudaStream_t);                                                           \
  template void LaunchAddN<T>(const T* const*, int, bool, T*, int64_t, cudaStream_t);
TA_INSTANTIATE_FLOATING(float)
TA_INSTANTIATE_FLOATING(double)

#define TA_INSTANTIATE_VALUES(T)                                                                             \
  template void LaunchCompare<T>(CompareKind, const T*, const T*, bool*, int64_t, const BroadcastIndex&,  \
                                 cudaStream_t);                                                           \
  template void LaunchFill<T>(const T*, T*, int64_t, cudaStream_t);                                        \
  template void LaunchFillConstant<T>(T, T*, int64_t, cudaStream_t);                                       \
  template void LaunchSelect<T>(const bool*, const T*, const T*, T*, int64_t, const SelectIndex&, cudaStream_t);
TA_INSTANTIATE_VALUES(float)
TA_INSTANTIATE_VALUES(double)
TA_INSTANTIATE_VALUES(int64_t)
template void LaunchFill<bool>(const bool*, bool*, int64_t, cudaStream_t);
template void LaunchFillConstant<bool>(bool, bool*, int64_t, cudaStream_t);
template void LaunchSelect<bool>(const bool*, const bool*, const bool*, bool*, int64_t, const SelectIndex&,
                                 cudaStream_t);

#define TA_INSTANTIATE_CAST(S)                                         \
  template void LaunchCast<S, float>(const S*, float*, int64_t, cudaStream_t);     \
  template void LaunchCast<S, double>(const S*, double*, int64_t, cudaStream_t);   \
  template void LaunchCast<S, int64_t>(const S*, int64_t*, int64_t, cudaStream_t); \
  template void LaunchCast<S, bool>(const S*, bool*, int64_t, cudaStream_t);
TA_INSTANTIATE_CAST(float)
TA_INSTANTIATE_CAST(double)
TA_INSTANTIATE_CAST(int64_t)
TA_INSTANTIATE_CAST(bool)

}  // namespace gpu
}  // namespace tensoract
