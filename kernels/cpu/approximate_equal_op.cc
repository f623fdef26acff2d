// ApproximateEqual on the CPU: |x - y| <= tolerance element by element (TensorFlow's kernel
// compares with <=, though its op documentation says <), computed in T (the
// float attr converted to T once, as TensorFlow's kernel does), for float and double as
// TensorFlow's CPU registers it. x and y must have one shape: no broadcasting.
#include <cmath>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T>
class ApproximateEqualOp : public OpKernel {
 public:
  explicit ApproximateEqualOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float tolerance = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tolerance", &tolerance));
    tolerance_ = static_cast<T>(tolerance);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, x.shape() == y.shape(),
                errors::InvalidArgument(NodePrefix(*this), "x and y must be of the same shape. x shape: ",
                                        x.shape().DebugString(), ". y shape: ", y.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* xp = x.base<T>();
    const T* yp = y.base<T>();
    bool* zp = out->base<bool>();
    const T tolerance = tolerance_;
    CwiseParallelFor(ctx, x.NumElements(), 2, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) zp[i] = std::abs(xp[i] - yp[i]) <= tolerance;
    });
  }

 private:
  T tolerance_;
};

REGISTER_KERNEL(Name("ApproximateEqual").Device(DEVICE_CPU).TypeConstraint<float>("T"), ApproximateEqualOp<float>);
REGISTER_KERNEL(Name("ApproximateEqual").Device(DEVICE_CPU).TypeConstraint<double>("T"), ApproximateEqualOp<double>);

}  // namespace
}  // namespace tensoract
