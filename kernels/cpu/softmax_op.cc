// Softmax and LogSoftmax on the CPU, along the last dimension, a row at a time
// (kernels/cpu/softmax_row.h; half and bfloat16 in TensorFlow's steps, rounded as its are).
// Rows are spread over the device's threads when there are many.
#include "kernels/cpu/softmax_row.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace {

using Index = Eigen::DenseIndex;

template <class T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(ctx, logits.dims() >= 1,
                errors::InvalidArgument("logits must have >= 1 dimension, got ", logits.shape().DebugString(),
                                        " (node '", name(), "')"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    const Index n = logits.NumElements();
    const Index classes = logits.dim_size(logits.dims() - 1);
    if (n == 0) return;
    const Index rows = n / classes;
    const T* in = logits.base<T>();
    T* o = out->base<T>();
    auto work = [=](Index first, Index last) {
      for (Index r = first; r < last; ++r) SoftmaxRow<T, kLog>(in + r * classes, o + r * classes, classes, r * classes);
    };
    ctx->device()->eigen_cpu_device()->parallelFor(
        rows, Eigen::TensorOpCost(classes * sizeof(T), classes * sizeof(T), 20 * classes), work);
  }
  bool IsExpensive() const override { return false; }
};

#define TA_REGISTER_SOFTMAX(T)                                                                      \
  REGISTER_KERNEL(Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), SoftmaxOp<T, false>);  \
  REGISTER_KERNEL(Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), SoftmaxOp<T, true>);
TA_REGISTER_SOFTMAX(float)
TA_REGISTER_SOFTMAX(double)
TA_REGISTER_SOFTMAX(Eigen::half)
TA_REGISTER_SOFTMAX(Eigen::bfloat16)
#undef TA_REGISTER_SOFTMAX

}  // namespace
}  // namespace tensoract
