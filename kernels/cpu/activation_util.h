// The shape of every element-wise activation kernel and of its gradient, for relu_op.cc and
// softplus_op.cc: input checks and output allocation here (in the input's buffer when the
// kernel holds its only reference), the arithmetic in Operate, an Eigen expression evaluated
// on the device's ThreadPoolDevice.
//
// The kernels layer compiles with EIGEN_USE_THREADS defined (kernels/CMakeLists.txt).
#ifndef TENSORACT_KERNELS_CPU_ACTIVATION_UTIL_H_
#define TENSORACT_KERNELS_CPU_ACTIVATION_UTIL_H_

#include "kernels/kernel_registry.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {

template <class T>
class UnaryActivationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    Operate(*ctx->device()->eigen_cpu_device(), x.flat<T>(), y->flat<T>());
  }
  bool IsExpensive() const override { return false; }
  virtual void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat x,
                       typename TTypes<T>::Flat y) const = 0;
};

// Inputs (gradients, features-or-outputs) of one shape.
template <class T>
class BinaryActivationGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& f = ctx->input(1);
    OP_REQUIRES(ctx, g.shape() == f.shape(),
                errors::InvalidArgument("Inputs to operation ", name(), " of type ", type_string(),
                                        " must have the same size and shape.  Input 0: ", g.shape().DebugString(),
                                        " != input 1: ", f.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, g.shape(), &out));
    if (g.NumElements() == 0) return;
    Operate(*ctx->device()->eigen_cpu_device(), g.flat<T>(), f.flat<T>(), out->flat<T>());
  }
  bool IsExpensive() const override { return false; }
  virtual void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat g, typename TTypes<T>::Flat f,
                       typename TTypes<T>::Flat out) const = 0;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ACTIVATION_UTIL_H_
