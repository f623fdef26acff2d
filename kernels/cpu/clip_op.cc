// ClipByValue on the CPU: max(min(t, clip_value_max), clip_value_min), the bounds scalars or
// of t's shape. The order and std::min/std::max's comparisons are TensorFlow's (Eigen's
// cwiseMin then cwiseMax), which decide the corner cases: a min above the max gives the
// min, a NaN in t stays NaN, a NaN bound clips nothing. Complex numbers clip part by part
// under the same rule, as TensorFlow 2.21's CPU kernel computes them.
#include <Eigen/Core>
#include <complex>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

// std::max(std::min(x, hi), lo), with std::min/std::max's comparisons.
template <class T>
T ClipOne(T x, T lo, T hi) {
  const T below = hi < x ? hi : x;
  return below < lo ? lo : below;
}

template <class F>
std::complex<F> ClipOne(std::complex<F> x, std::complex<F> lo, std::complex<F> hi) {
  return {ClipOne(x.real(), lo.real(), hi.real()), ClipOne(x.imag(), lo.imag(), hi.imag())};
}

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
      for (int64_t i = begin; i < end; ++i) y[i] = ClipOne(x[i], l[i * l_step], h[i * h_step]);
    });
  }
};

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
TA_REGISTER(complex64);
TA_REGISTER(complex128);
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
