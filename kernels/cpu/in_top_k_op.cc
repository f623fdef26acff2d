// InTopKV2 on the CPU, as TensorFlow's InTopKFunctor: row b is true when fewer than k of its
// predictions are larger than that of class targets[b]; false when the target is out of
// [0, classes) or any prediction of the row is not finite (ties count as not larger).
// Targets and k are int32 or int64.
#include <cmath>
#include <cstdint>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T>
class InTopKOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& predictions = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    const Tensor& k_in = ctx->input(2);
    OP_REQUIRES(ctx, k_in.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "k must be 0-D, got shape ", k_in.shape().DebugString()));
    OP_REQUIRES(ctx, predictions.dims() == 2,
                errors::InvalidArgument(NodePrefix(*this), "predictions must be 2-dimensional"));
    OP_REQUIRES(ctx, targets.dims() == 1, errors::InvalidArgument(NodePrefix(*this), "targets must be 1-dimensional"));
    OP_REQUIRES(ctx, predictions.dim_size(0) == targets.dim_size(0),
                errors::InvalidArgument(NodePrefix(*this), "First dimension of predictions ", predictions.dim_size(0),
                                        " must match length of targets ", targets.dim_size(0)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({targets.dim_size(0)}), &out));
    const int64_t k = static_cast<int64_t>(k_in.base<T>()[0]);
    const int64_t rows = predictions.dim_size(0), classes = predictions.dim_size(1);
    const float* p = predictions.base<float>();
    const T* t = targets.base<T>();
    bool* o = out->base<bool>();
    for (int64_t b = 0; b < rows; ++b) {
      const float* row = p + b * classes;
      const T target = t[b];
      bool cannot_say = target < 0 || static_cast<int64_t>(target) >= classes || !std::isfinite(row[target]);
      int64_t larger = 0;
      if (!cannot_say) {
        const float own = row[target];
        for (int64_t c = 0; c < classes; ++c) {
          if (!std::isfinite(row[c])) {
            cannot_say = true;
            break;
          }
          if (row[c] > own && ++larger > k) break;
        }
      }
      o[b] = !cannot_say && larger < k;
    }
  }
};

REGISTER_KERNEL(Name("InTopKV2").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"), InTopKOp<int32_t>);
REGISTER_KERNEL(Name("InTopKV2").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"), InTopKOp<int64_t>);

}  // namespace
}  // namespace tensoract
