// Cumsum, Cumprod and CumulativeLogsumexp on the CPU. The input is seen as [outer, n, inner]
// around the scan axis; every line of n elements is accumulated in order, from its end when
// `reverse`, each output taking the running value before (exclusive) or after (inclusive) its
// own element. That is the order of Eigen's scan, which TensorFlow's kernels use, so float
// results are TensorFlow's bit for bit; half and bfloat16 accumulate in their own type as
// there. Integers wrap.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

struct SumOp {
  static constexpr int kCost = 1;  // per element, for CwiseParallelFor
  template <class T>
  static T Identity() { return T(0); }
  template <class T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};

struct ProdOp {
  static constexpr int kCost = 1;
  template <class T>
  static T Identity() { return T(1); }
  template <class T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      // Unsigned arithmetic wraps; unsigned short would be promoted to int (and overflow).
      using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
};

// TensorFlow's LogSumExp scan reducer (its scan_ops.h): the running value starts at -inf and
// takes each element x as
//   mi = min(acc, x), ma = max(acc, x)   (std::min and std::max: a NaN x leaves acc in both)
//   acc = ma < lowest ? ma : log1p(exp(mi - ma)) + ma
// in T (half and bfloat16 round after every operation, as Eigen's do).
struct LogSumExpOp {
  static constexpr int kCost = 40;
  template <class T>
  static T Identity() { return -std::numeric_limits<T>::infinity(); }
  template <class T>
  static T Apply(T acc, T x) {
    const T mi = std::min(acc, x), ma = std::max(acc, x);
    if (ma < Eigen::NumTraits<T>::lowest()) return ma;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      return std::log1p(std::exp(mi - ma)) + ma;
    } else {
      const T d = mi - ma;
      const T e = T(std::exp(static_cast<float>(d)));
      const T l = T(std::log1p(static_cast<float>(e)));
      return l + ma;
    }
  }
};

template <class T, class Op>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("exclusive", &exclusive_);
    if (s.ok()) s = ctx->GetAttr("reverse", &reverse_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, axis_t.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "ScanOp: axis must be a scalar, not ",
                                        axis_t.shape().DebugString()));
    const int rank = input.dims();
    int64_t axis = IndexValues(axis_t)[0];
    if (axis < 0) axis += rank;
    // TensorFlow's message names the axis after adding the rank to a negative one.
    OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                errors::InvalidArgument(NodePrefix(*this), "ScanOp: Expected scan axis in the range [", -rank, ", ",
                                        rank, "), but got ", axis));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    int64_t outer = 1, inner = 1;
    const int64_t n = input.dim_size(static_cast<int>(axis));
    for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) inner *= input.dim_size(d);
    const T* x = input.base<T>();
    T* y = out->base<T>();
    const bool exclusive = exclusive_, reverse = reverse_;
    // Each outer block is independent: its `inner` lines run side by side, one running value each.
    CwiseParallelFor(ctx, outer, n * inner * Op::kCost, [&](int64_t begin, int64_t end) {
      std::vector<T> acc(inner);
      for (int64_t o = begin; o < end; ++o) {
        for (auto& a : acc) a = Op::template Identity<T>();
        for (int64_t step = 0; step < n; ++step) {
          const int64_t j = reverse ? n - 1 - step : step;
          const T* xs = x + (o * n + j) * inner;
          T* ys = y + (o * n + j) * inner;
          for (int64_t k = 0; k < inner; ++k) {
            if (exclusive) {
              ys[k] = acc[k];
              acc[k] = Op::Apply(acc[k], xs[k]);
            } else {
              acc[k] = Op::Apply(acc[k], xs[k]);
              ys[k] = acc[k];
            }
          }
        }
      }
    });
  }

 private:
  bool exclusive_ = false, reverse_ = false;
};

#define TA_REGISTER(T)                                                                                  \
  REGISTER_KERNEL(Name("Cumsum").Device(DEVICE_CPU).TypeConstraint<T>("T"), ScanOp<T, SumOp>);        \
  REGISTER_KERNEL(Name("Cumprod").Device(DEVICE_CPU).TypeConstraint<T>("T"), ScanOp<T, ProdOp>)
TA_CALL_NUMBER_TYPES(TA_REGISTER);
#undef TA_REGISTER

#define TA_REGISTER_LOGSUMEXP(T) \
  REGISTER_KERNEL(Name("CumulativeLogsumexp").Device(DEVICE_CPU).TypeConstraint<T>("T"), ScanOp<T, LogSumExpOp>)
TA_REGISTER_LOGSUMEXP(float);
TA_REGISTER_LOGSUMEXP(double);
TA_REGISTER_LOGSUMEXP(Eigen::half);
TA_REGISTER_LOGSUMEXP(Eigen::bfloat16);
#undef TA_REGISTER_LOGSUMEXP

}  // namespace
}  // namespace tensoract
