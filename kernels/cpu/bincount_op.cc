// Bincount on the CPU: bins[v] counts (or sums the weights of) the entries of arr equal
// to v, for v in [0, size); larger values are dropped, negative ones refused. The sums run
// in arr's order (TensorFlow's threads sum partial bins, so float weights may round
// differently there; integer-valued weights agree exactly).
#include <cstdint>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T>
class BincountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& arr = ctx->input(0);
    const Tensor& size_in = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    OP_REQUIRES(ctx, size_in.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "Shape must be rank 0 but is rank ", size_in.dims()));
    const int32_t size = size_in.base<int32_t>()[0];
    OP_REQUIRES(ctx, size >= 0, errors::InvalidArgument(NodePrefix(*this), "size (", size, ") must be non-negative"));
    OP_REQUIRES(ctx, weights.NumElements() == 0 || weights.shape() == arr.shape(),
                errors::InvalidArgument(NodePrefix(*this),
                                        "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which "
                                        "case it acts as all weights equal to 1. Received ",
                                        weights.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    const int32_t* a = arr.base<int32_t>();
    const int64_t n = arr.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, a[i] >= 0, errors::InvalidArgument(NodePrefix(*this), "Input arr must be non-negative!"));
    }
    T* bins = out->base<T>();
    for (int32_t b = 0; b < size; ++b) bins[b] = T(0);
    const bool weighted = weights.NumElements() != 0;
    for (int64_t i = 0; i < n; ++i) {
      if (a[i] < size) bins[a[i]] += weighted ? weights.base<T>()[i] : T(1);
    }
  }
};

REGISTER_KERNEL(Name("Bincount").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"), BincountOp<int32_t>);
REGISTER_KERNEL(Name("Bincount").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"), BincountOp<int64_t>);
REGISTER_KERNEL(Name("Bincount").Device(DEVICE_CPU).TypeConstraint<float>("T"), BincountOp<float>);
REGISTER_KERNEL(Name("Bincount").Device(DEVICE_CPU).TypeConstraint<double>("T"), BincountOp<double>);

}  // namespace
}  // namespace tensoract
