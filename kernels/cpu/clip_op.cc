// ClipByValue on the CPU: max(min(t, clip_value_max), clip_value_min), the bounds scalars or
// of t's shape. The order and std::min/std::max's comparisons are TensorFlow's (Eigen's
// cwiseMin then cwiseMax), which decide the corner cases: a min above the max gives the
// min, a NaN in t stays NaN, a NaN bound clips nothing.
#include <Eigen/Core>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T>
class ClipByValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    OP_REQUIRES(ctx, (lo.shape() == t.shape() || lo.dims() == 0) && (hi.shape() == t.shape() || hi.dims() == 0),
                errors::InvalidArgument(NodePrefix(*this),
                                        "clip_value_min and clip_value_max must be either of the same shape as input, "
                                        "or a scalar. input shape: ", t.shape().DebugString(), "clip_value_min shape: ",
                                        lo.shape().DebugString(), "clip_value_max shape: ", hi.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, t.shape(), &out));
    const T* x = t.base<T>();
    const T* l = lo.base<T>();
    const T* h = hi.base<T>();
    const int64_t l_step = lo.dims() == 0 ? 0 : 1, h_step = hi.dims() == 0 ? 0 : 1;
    T* y = out->base<T>();
    CwiseParallelFor(ctx, t.NumElements(), 2, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const T below = h[i * h_step] < x[i] ? h[i * h_step] : x[i];  // std::min(x, hi)
        y[i] = below < l[i * l_step] ? l[i * l_step] : below;           // std::max(below, lo)
      }
    });
  }
};

// TensorFlow's CPU kernels also take complex numbers, which have no order; not here.
#define TA_REGISTER(T) REGISTER_KERNEL(Name("ClipByValue").Device(DEVICE_CPU).TypeConstraint<T>("T"), ClipByValueOp<T>)
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
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
