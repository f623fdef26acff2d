// TopKV2 on the CPU: the k largest entries of each row (the last dimension), largest first,
// and their positions; equal values come in the order of their positions, as TensorFlow
// gives them. The result is always sorted: with sorted = false TensorFlow leaves the order
// unspecified, and sorted is one such order. NaN counts as larger than every number (a
// strict order is needed to sort at all; TensorFlow's comparison leaves NaN's place to its
// algorithm).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T, class Index>
class TopKV2Op : public OpKernel {
 public:
  explicit TopKV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& k_t = ctx->input(1);
    OP_REQUIRES(ctx, k_t.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "k must be scalar, got shape ", k_t.shape().DebugString()));
    const int64_t k = IndexValues(k_t)[0];
    OP_REQUIRES(ctx, k >= 0, errors::InvalidArgument(NodePrefix(*this), "Need k >= 0, got ", k));
    OP_REQUIRES(ctx, input.dims() >= 1,
                errors::InvalidArgument(NodePrefix(*this), "input must be >= 1-D, got shape ",
                                        input.shape().DebugString()));
    const int64_t cols = input.dim_size(input.dims() - 1);
    OP_REQUIRES(ctx, cols >= k,
                errors::InvalidArgument(NodePrefix(*this), "input must have at least k columns. Had ", cols,
                                        ", needed ", k));
    OP_REQUIRES(ctx, cols - 1 <= static_cast<int64_t>(std::numeric_limits<Index>::max()),
                errors::InvalidArgument(NodePrefix(*this), "input has ", cols,
                                        " columns, more than index_type can number"));
    std::vector<int64_t> dims = input.shape().dim_sizes();
    dims.back() = k;
    Tensor *values = nullptr, *indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(dims), &indices));
    if (values->NumElements() == 0) return;
    const int64_t rows = input.NumElements() / cols;
    const T* x = input.base<T>();
    T* v = values->base<T>();
    Index* idx = indices->base<Index>();
    const int64_t log_k = 1 + static_cast<int64_t>(std::log2(static_cast<double>(k)));
    CwiseParallelFor(ctx, rows, cols * log_k, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> order(cols);
      for (int64_t r = begin; r < end; ++r) {
        const T* row = x + r * cols;
        // a before b: a larger (NaN largest), or equal and earlier.
        auto before = [row](int64_t a, int64_t b) {
          const T va = row[a], vb = row[b];
          if constexpr (!std::is_integral_v<T>) {
            const bool na = Eigen::numext::isnan(va), nb = Eigen::numext::isnan(vb);
            if (na || nb) return na && (!nb || a < b);
          }
          return va > vb || (!(vb > va) && a < b);
        };
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        for (int64_t j = 0; j < k; ++j) {
          v[r * k + j] = row[order[j]];
          idx[r * k + j] = static_cast<Index>(order[j]);
        }
      }
    });
  }
};

#define TA_REGISTER_INDEX(T, I)                                                                           \
  REGISTER_KERNEL(Name("TopKV2").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<I>("index_type"), \
                  TopKV2Op<T, I>)
#define TA_REGISTER(T)            \
  TA_REGISTER_INDEX(T, int16_t); \
  TA_REGISTER_INDEX(T, int32_t); \
  TA_REGISTER_INDEX(T, int64_t)
TA_REGISTER(float);
TA_REGISTER(double);
TA_REGISTER(Eigen::half);
TA_REGISTER(Eigen::bfloat16);
TA_REGISTER(int8_t);
TA_REGISTER(int16_t);
TA_REGISTER(int32_t);
TA_REGISTER(int64_t);
TA_REGISTER(uint8_t);
TA_REGISTER(uint16_t);
TA_REGISTER(uint32_t);
TA_REGISTER(uint64_t);
#undef TA_REGISTER
#undef TA_REGISTER_INDEX

}  // namespace
}  // namespace tensoract
