// CumulativeLogsumexp on the CPU: the running log(sum(exp(x))) along an axis, as TensorFlow's
// scan kernel computes it (scan_ops.h's LogSumExp reducer): the running value starts at -inf
// and takes each element x as
//   mi = min(acc, x), ma = max(acc, x)   (std::min and std::max: a NaN x leaves acc in both)
//   acc = ma < lowest ? ma : log1p(exp(mi - ma)) + ma
// in T (half and bfloat16 round after every operation, as Eigen's do), in order along the
// axis (from its end when reverse); exclusive outputs the value before each element's turn.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

template <class T>
T CumulativeLogAddExp(T acc, T x) {
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

template <class T>
class CumulativeLogsumexpOp : public OpKernel {
 public:
  explicit CumulativeLogsumexpOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
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
    CwiseParallelFor(ctx, outer, n * inner * 40, [&](int64_t begin, int64_t end) {
      std::vector<T> acc(inner);
      for (int64_t o = begin; o < end; ++o) {
        std::fill(acc.begin(), acc.end(), -std::numeric_limits<T>::infinity());
        for (int64_t step = 0; step < n; ++step) {
          const int64_t j = reverse ? n - 1 - step : step;
          const T* xs = x + (o * n + j) * inner;
          T* ys = y + (o * n + j) * inner;
          for (int64_t k = 0; k < inner; ++k) {
            if (exclusive) {
              ys[k] = acc[k];
              acc[k] = CumulativeLogAddExp(acc[k], xs[k]);
            } else {
              acc[k] = CumulativeLogAddExp(acc[k], xs[k]);
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

#define TA_REGISTER_LOGSUMEXP(T)                                                                   \
  REGISTER_KERNEL(Name("CumulativeLogsumexp").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                  CumulativeLogsumexpOp<T>)
TA_REGISTER_LOGSUMEXP(float);
TA_REGISTER_LOGSUMEXP(double);
TA_REGISTER_LOGSUMEXP(Eigen::half);
TA_REGISTER_LOGSUMEXP(Eigen::bfloat16);
#undef TA_REGISTER_LOGSUMEXP

}  // namespace
}  // namespace tensoract
