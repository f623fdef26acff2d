// LeakyRelu and Selu with their gradients, and L2Loss, on the CPU: Eigen expressions on the
// device's ThreadPoolDevice, as TensorFlow's kernels are.
//
// LeakyRelu selects on features > 0 rather than taking max(x, alpha x): alpha may be above
// 1 or negative. Selu's exp(x) - 1 is the C library's expm1, element by element, so a
// tensor's vectorised packets and its scalar tail agree (Eigen's packet exp and std::exp can
// differ in the last bit), and it does not cancel near 0 as TensorFlow's exp(x) - 1 does
// (tests/compat/accuracy_sweep.py: 2^24 ulps off at x = -1e-38 there); the two differ by at
// most a few ulps of scale * alpha.
#include <cmath>

#include "kernels/cpu/activation_util.h"

namespace tensoract {
namespace {

// TensorFlow's constants, rounded to T as its kernel rounds them.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

template <class T>
class LeakyReluOp : public UnaryActivationOp<T> {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : UnaryActivationOp<T>(ctx) {
    float alpha = 0.2f;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
    alpha_ = static_cast<T>(alpha);
  }
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat x,
               typename TTypes<T>::Flat y) const override {
    y.device(d) = (x > T(0)).select(x, x * alpha_);
  }

 private:
  T alpha_;
};

// `features` may be LeakyRelu's input or its output: for alpha > 0 both have one sign.
template <class T>
class LeakyReluGradOp : public BinaryActivationGradOp<T> {
 public:
  explicit LeakyReluGradOp(OpKernelConstruction* ctx) : BinaryActivationGradOp<T>(ctx) {
    float alpha = 0.2f;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
    alpha_ = static_cast<T>(alpha);
  }
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat g, typename TTypes<T>::Flat f,
               typename TTypes<T>::Flat out) const override {
    out.device(d) = (f > T(0)).select(g, g * alpha_);
  }

 private:
  T alpha_;
};

// expm1 in T (half types through float), one element at a time on every path.
struct ScalarExpm1 {
  template <class T>
  T operator()(const T& x) const {
    if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
      return T(std::expm1(static_cast<float>(x)));
    } else {
      return std::expm1(x);
    }
  }
};

template <class T>
class SeluOp : public UnaryActivationOp<T> {
 public:
  using UnaryActivationOp<T>::UnaryActivationOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat x,
               typename TTypes<T>::Flat y) const override {
    const T scale(kSeluScale), scale_alpha(kSeluScaleAlpha);
    y.device(d) = (x < T(0)).select(x.unaryExpr(ScalarExpm1()) * scale_alpha, x * scale);
  }
};

// From Selu's outputs: d/dx selu = selu(x) + scale * alpha below zero, scale above.
template <class T>
class SeluGradOp : public BinaryActivationGradOp<T> {
 public:
  using BinaryActivationGradOp<T>::BinaryActivationGradOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat g, typename TTypes<T>::Flat a,
               typename TTypes<T>::Flat out) const override {
    const T scale(kSeluScale), scale_alpha(kSeluScaleAlpha);
    out.device(d) = (a < T(0)).select(g * (a + scale_alpha), g * scale);
  }
};

// Half the sum of squares, summed by Eigen's full reduction on the thread pool as
// TensorFlow's kernel sums it. An empty tensor gives 0.
template <class T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    auto x = t.flat<T>();
    out->scalar<T>().device(*ctx->device()->eigen_cpu_device()) = (x.square() * T(0.5)).sum();
  }
};

#define TA_REGISTER(T)                                                                                   \
  REGISTER_KERNEL(Name("LeakyRelu").Device(DEVICE_CPU).TypeConstraint<T>("T"), LeakyReluOp<T>);          \
  REGISTER_KERNEL(Name("LeakyReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), LeakyReluGradOp<T>);  \
  REGISTER_KERNEL(Name("Selu").Device(DEVICE_CPU).TypeConstraint<T>("T"), SeluOp<T>);                    \
  REGISTER_KERNEL(Name("SeluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), SeluGradOp<T>);            \
  REGISTER_KERNEL(Name("L2Loss").Device(DEVICE_CPU).TypeConstraint<T>("T"), L2LossOp<T>);
TA_REGISTER(float)
TA_REGISTER(double)
TA_REGISTER(Eigen::half)
TA_REGISTER(Eigen::bfloat16)
// LeakyRelu of an integer: alpha rounded toward zero to the type (0 for 0.2), as TensorFlow's
// static_cast<T>(alpha).
#define TA_REGISTER_LEAKY(T)                                                                          \
  REGISTER_KERNEL(Name("LeakyRelu").Device(DEVICE_CPU).TypeConstraint<T>("T"), LeakyReluOp<T>);         \
  REGISTER_KERNEL(Name("LeakyReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), LeakyReluGradOp<T>);
TA_REGISTER_LEAKY(int8_t)
TA_REGISTER_LEAKY(int16_t)
TA_REGISTER_LEAKY(int32_t)
TA_REGISTER_LEAKY(int64_t)
TA_REGISTER_LEAKY(uint8_t)
TA_REGISTER_LEAKY(uint16_t)
TA_REGISTER_LEAKY(uint32_t)
TA_REGISTER_LEAKY(uint64_t)
#undef TA_REGISTER_LEAKY
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
