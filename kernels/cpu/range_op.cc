// Range, LinSpace and InvertPermutation on the CPU: vectors computed from scalars or from
// a permutation. Small, so they run inline.
#include <cmath>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                  errors::InvalidArgument(NodePrefix(*this), i == 0 ? "start" : i == 1 ? "limit" : "delta",
                                          " must be a scalar, not shape ", ctx->input(i).shape().DebugString()));
    }
    const T start = ctx->input(0).base<T>()[0], limit = ctx->input(1).base<T>()[0],
            delta = ctx->input(2).base<T>()[0];
    OP_REQUIRES(ctx, delta != T(0), errors::InvalidArgument(NodePrefix(*this), "Requires delta != 0: ", delta));
    if (delta > T(0)) {
      OP_REQUIRES(ctx, start <= limit,
                  errors::InvalidArgument(NodePrefix(*this), "Requires start <= limit when delta > 0: ", start, "/",
                                          limit));
    } else {
      OP_REQUIRES(ctx, start >= limit,
                  errors::InvalidArgument(NodePrefix(*this), "Requires start >= limit when delta < 0: ", start, "/",
                                          limit));
    }
    // The element count, checked against int64 before it becomes a size (TensorFlow's
    // "Requires ((limit - start) / delta) <= ..."): an infinite or huge span is an error,
    // not an overflowing cast.
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    int64_t size;
    if constexpr (std::is_integral_v<T>) {
      const __int128 span = static_cast<__int128>(limit) - static_cast<__int128>(start);
      const __int128 step = static_cast<__int128>(delta);
      const __int128 n = ((span < 0 ? -span : span) + (step < 0 ? -step : step) - 1) / (step < 0 ? -step : step);
      OP_REQUIRES(ctx, n <= kMax,
                  errors::InvalidArgument(NodePrefix(*this), "Requires ((limit - start) / delta) <= ", kMax));
      size = static_cast<int64_t>(n);
    } else {
      // The span and the division in T, as TensorFlow's kernel and shape function compute
      // them (float Range(0, 0.3, 0.1) has 3 elements; in double it would have 4).
      const double n = std::ceil(std::abs(static_cast<double>((limit - start) / delta)));
      OP_REQUIRES(ctx, n < 0x1p63,  // false for inf and NaN too
                  errors::InvalidArgument(NodePrefix(*this), "Requires ((limit - start) / delta) <= ", kMax));
      size = static_cast<int64_t>(n);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    T* o = out->base<T>();
    // start + i * delta, as TensorFlow computes each element: a running sum drifts (float
    // Range(0, 1, 0.1)'s 8th value was 0.70000005, TensorFlow's 0.69999999; issue 32).
    for (int64_t i = 0; i < size; ++i) o[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  }
};

// start + step * i for 0 < i < n - 1, the product and the sum each rounded, as TensorFlow
// computes them: GCC would otherwise fuse them into one FMA (its default for C++), which
// rounds once and differs in the last bit (float LinSpace(0.1, 1, 7)[3]).
template <class T>
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
void FillLinSpace(T start, T step, int64_t n, T* o) {
  for (int64_t i = 1; i < n - 1; ++i) o[i] = start + step * static_cast<T>(i);
}

// LinSpace as TensorFlow's kernel computes it: start + step * i in T's arithmetic, the last
// value stop itself.
template <class T, class Index>
class LinSpaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                  errors::InvalidArgument(NodePrefix(*this), i == 0 ? "start" : i == 1 ? "stop" : "num",
                                          " must be a scalar, not shape ", ctx->input(i).shape().DebugString()));
    }
    const T start = ctx->input(0).base<T>()[0], stop = ctx->input(1).base<T>()[0];
    const Index num = ctx->input(2).base<Index>()[0];
    OP_REQUIRES(ctx, num > 0, errors::InvalidArgument(NodePrefix(*this), "Requires num > 0: ", num));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({static_cast<int64_t>(num)}), &out));
    T* o = out->base<T>();
    o[0] = start;
    if (num > 1) {
      FillLinSpace<T>(start, (stop - start) / static_cast<T>(num - 1), static_cast<int64_t>(num), o);
      o[num - 1] = stop;
    }
  }
};

template <class T>
class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "invert_permutation expects a 1D vector."));
    const int64_t n = x.NumElements();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    T* y = out->base<T>();
    for (int64_t i = 0; i < n; ++i) y[i] = T(-1);
    for (int64_t i = 0; i < n; ++i) {
      const T d = x.base<T>()[i];
      OP_REQUIRES(ctx, d >= 0 && d < n,
                  errors::InvalidArgument(NodePrefix(*this), d, " is not between 0 and ", n));
      OP_REQUIRES(ctx, y[d] == T(-1), errors::InvalidArgument(NodePrefix(*this), d, " is duplicated in the input."));
      y[d] = static_cast<T>(i);
    }
  }
};

#define TA_REGISTER_RANGE(T) \
  REGISTER_KERNEL(Name("Range").Device(DEVICE_CPU).TypeConstraint<T>("Tidx"), RangeOp<T>)
TA_REGISTER_RANGE(float);
TA_REGISTER_RANGE(double);
// half and bfloat16 in their own arithmetic, each step rounded, as TensorFlow's kernel
// computes them (the length from a rounded quotient, each value start + i * delta).
TA_REGISTER_RANGE(Eigen::half);
TA_REGISTER_RANGE(Eigen::bfloat16);
TA_REGISTER_RANGE(int32_t);
TA_REGISTER_RANGE(int64_t);
#undef TA_REGISTER_RANGE

// TensorFlow's CPU LinSpace: float and double only (its OpDef allows half and bfloat16 too).
#define TA_REGISTER_LINSPACE(T, I)                                                                              \
  REGISTER_KERNEL(Name("LinSpace").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<I>("Tidx"), \
                  LinSpaceOp<T, I>)
TA_REGISTER_LINSPACE(float, int32_t);
TA_REGISTER_LINSPACE(float, int64_t);
TA_REGISTER_LINSPACE(double, int32_t);
TA_REGISTER_LINSPACE(double, int64_t);
#undef TA_REGISTER_LINSPACE

REGISTER_KERNEL(Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"), InvertPermutationOp<int32_t>);
REGISTER_KERNEL(Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"), InvertPermutationOp<int64_t>);

}  // namespace
}  // namespace tensoract
