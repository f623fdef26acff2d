// Softplus, Softsign and their gradients on the CPU.
#include "kernels/cpu/activation_util.h"

namespace tensoract {
namespace {

// log(1 + exp(x)), without overflow for large x nor lost precision for very negative x:
// beyond the threshold the result is x, or exp(x), to the type's precision (TensorFlow's
// formulation).
template <class T>
class SoftplusOp : public UnaryActivationOp<T> {
 public:
  using UnaryActivationOp<T>::UnaryActivationOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat x,
               typename TTypes<T>::Flat y) const override {
    const T threshold = Eigen::numext::log(Eigen::NumTraits<T>::epsilon()) + T(2);
    y.device(d) = (x > -threshold).select(x, (x < threshold).select(x.exp(), x.exp().log1p()));
  }
};

template <class T>
class SoftplusGradOp : public BinaryActivationGradOp<T> {
 public:
  using BinaryActivationGradOp<T>::BinaryActivationGradOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat g, typename TTypes<T>::Flat f,
               typename TTypes<T>::Flat out) const override {
    out.device(d) = g / ((-f).exp() + T(1));
  }
};

// x / (1 + |x|), and its gradient g / (1 + |x|)^2, as TensorFlow's Eigen expressions.
template <class T>
class SoftsignOp : public UnaryActivationOp<T> {
 public:
  using UnaryActivationOp<T>::UnaryActivationOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat x,
               typename TTypes<T>::Flat y) const override {
    y.device(d) = x / (x.abs() + T(1));
  }
};

template <class T>
class SoftsignGradOp : public BinaryActivationGradOp<T> {
 public:
  using BinaryActivationGradOp<T>::BinaryActivationGradOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat g, typename TTypes<T>::Flat f,
               typename TTypes<T>::Flat out) const override {
    out.device(d) = g / (f.abs() + T(1)).square();
  }
};

#define TA_REGISTER_SOFTSIGN(T)                                                                    \
  REGISTER_KERNEL(Name("Softsign").Device(DEVICE_CPU).TypeConstraint<T>("T"), SoftsignOp<T>);      \
  REGISTER_KERNEL(Name("SoftsignGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), SoftsignGradOp<T>);
TA_REGISTER_SOFTSIGN(float)
TA_REGISTER_SOFTSIGN(double)
TA_REGISTER_SOFTSIGN(Eigen::half)
TA_REGISTER_SOFTSIGN(Eigen::bfloat16)
#undef TA_REGISTER_SOFTSIGN

#define TA_REGISTER_SOFTPLUS(T)                                                                    \
  REGISTER_KERNEL(Name("Softplus").Device(DEVICE_CPU).TypeConstraint<T>("T"), SoftplusOp<T>);      \
  REGISTER_KERNEL(Name("SoftplusGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), SoftplusGradOp<T>);
TA_REGISTER_SOFTPLUS(float)
TA_REGISTER_SOFTPLUS(double)
TA_REGISTER_SOFTPLUS(Eigen::half)
TA_REGISTER_SOFTPLUS(Eigen::bfloat16)
#undef TA_REGISTER_SOFTPLUS

}  // namespace
}  // namespace tensoract
