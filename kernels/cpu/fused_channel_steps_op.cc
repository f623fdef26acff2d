// _FusedChannelSteps on the CPU: the fused product ops' epilogue (kernels/cpu/fused_epilogue.h)
// on a tensor of its own, its last dimension the channels. A pre-activation batch norm and
// Relu (Keras 3 writes Mul and AddV2 of channel vectors, then Relu) become one read and one
// write of the tensor instead of three of each; in place where the input may be reused.
#include <algorithm>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

template <class T>
class FusedChannelStepsOp : public OpKernel {
 public:
  explicit FusedChannelStepsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, epilogue_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() >= 1,
                errors::InvalidArgument(CwiseNodeContext(*this), ": x must have a channel dimension, got shape ",
                                        x.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    ChannelAffine<T> affine;
    OP_REQUIRES_OK(ctx, epilogue_.Channels(*this, ctx, 1, *out, &affine));
    const int64_t channels = x.dim_size(x.dims() - 1);
    if (out->NumElements() == 0 || channels == 0) return;
    const T* in = x.base<T>();
    T* o = out->base<T>();
    // Rows of channels, in blocks a thread copies (unless in place) and transforms in cache.
    CwiseParallelFor(ctx, out->NumElements() / channels, 4 * channels, [&](int64_t first, int64_t last) {
      if (o != in) std::copy(in + first * channels, in + last * channels, o + first * channels);
      epilogue_.Apply(o + first * channels, last - first, channels, channels, affine);
    });
  }

 private:
  FusedEpilogue epilogue_;
};

REGISTER_KERNEL(Name("_FusedChannelSteps").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedChannelStepsOp<float>);
REGISTER_KERNEL(Name("_FusedChannelSteps").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                FusedChannelStepsOp<double>);

}  // namespace
}  // namespace tensoract
