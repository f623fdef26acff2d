// Relu, Relu6 and Elu with their gradients on the CPU (half and bfloat16 too, for mixed
// precision's Keras layers, as TensorFlow's CPU kernels): element-wise Eigen expressions,
// spread over the device's threads when the tensor is large (Eigen's cost model keeps small
// ones on the calling thread).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/cpu/activation_util.h"

namespace tensoract {
namespace {

template <class T>
constexpr bool kHalfWidth = std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// TensorFlow's half and bfloat16 max(x, 0), which differs from its float one at zero: -0
// stays -0, and a bfloat16 denormal is read as a zero of its sign (its threads flush them).
template <class T>
T HalfWidthRelu(T x, float cap) {
  float v = static_cast<float>(x);
  if (v != 0.f && std::fabs(v) < std::numeric_limits<float>::min()) v = std::copysign(0.f, v);
  return static_cast<T>(v < 0.f ? 0.f : (v > cap ? cap : v));
}

// HalfWidthRelu of a bfloat16, on its bits (the same results without a conversion either
// way: MobileNetV2's Relu6s under Keras' mixed_bfloat16 policy took 29 ms at batch 1): a
// NaN becomes the quiet NaN of its sign, a zero or denormal the zero of its sign, a negative
// +0, and a positive above `cap_bits` (a positive bfloat16's bits order as its value) the cap.
inline Eigen::bfloat16 Bfloat16Relu(Eigen::bfloat16 x, uint16_t cap_bits) {
  const uint16_t b = Eigen::numext::bit_cast<uint16_t>(x);
  uint16_t r = b;
  if ((b & 0x7FFF) > 0x7F80) r = (b & 0x8000) | 0x7FC0;
  else if ((b & 0x7F80) == 0) r = b & 0x8000;
  else if (b & 0x8000) r = 0;
  else if (b > cap_bits) r = cap_bits;
  return Eigen::numext::bit_cast<Eigen::bfloat16>(r);
}
constexpr uint16_t kBfloat16Infinity = 0x7F80, kBfloat16Six = 0x40C0;

template <class T>
class ReluOp : public UnaryActivationOp<T> {
 public:
  using UnaryActivationOp<T>::UnaryActivationOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat x,
               typename TTypes<T>::Flat y) const override {
    if constexpr (std::is_same_v<T, Eigen::bfloat16>) {
      y.device(d) = x.unaryExpr([](T v) { return Bfloat16Relu(v, kBfloat16Infinity); });
    } else if constexpr (kHalfWidth<T>) {
      y.device(d) = x.unaryExpr([](T v) { return HalfWidthRelu(v, std::numeric_limits<float>::infinity()); });
    } else {
      // + 0 turns Eigen 3.4's max(-0, 0) = -0 into TensorFlow's +0 (issue 32's harness).
      y.device(d) = x.cwiseMax(T(0)) + T(0);
    }
  }
};

template <class T>
class Relu6Op : public UnaryActivationOp<T> {
 public:
  using UnaryActivationOp<T>::UnaryActivationOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat x,
               typename TTypes<T>::Flat y) const override {
    if constexpr (std::is_same_v<T, Eigen::bfloat16>) {
      y.device(d) = x.unaryExpr([](T v) { return Bfloat16Relu(v, kBfloat16Six); });
    } else if constexpr (kHalfWidth<T>) {
      y.device(d) = x.unaryExpr([](T v) { return HalfWidthRelu(v, 6.f); });
    } else {
      y.device(d) = x.cwiseMax(T(0)).cwiseMin(T(6)) + T(0);  // +0 for -0, as Relu
    }
  }
};

// expm1 below zero, not TensorFlow's exp(x) - 1: that cancels near 0 (all 24 bits lost at
// x = -1e-19, where it gives 0; tests/compat/accuracy_sweep.py); the two differ by at most
// an ulp of 1 (the harness's EXP_MINUS_ONE bound).
template <class T>
class EluOp : public UnaryActivationOp<T> {
 public:
  using UnaryActivationOp<T>::UnaryActivationOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat x,
               typename TTypes<T>::Flat y) const override {
    y.device(d) = (x < T(0)).select(x.expm1(), x);
  }
};

// The gradient times 1 where the feature was positive (at exactly 0 it is not), times 0
// elsewhere: a product, as TensorFlow's, not a select, so a NaN or infinite gradient stays
// NaN where it is blocked and -0 keeps its sign.
template <class T>
class ReluGradOp : public BinaryActivationGradOp<T> {
 public:
  using BinaryActivationGradOp<T>::BinaryActivationGradOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat g, typename TTypes<T>::Flat f,
               typename TTypes<T>::Flat out) const override {
    out.device(d) = g * (f > T(0)).template cast<T>();
  }
};

template <class T>
class Relu6GradOp : public BinaryActivationGradOp<T> {
 public:
  using BinaryActivationGradOp<T>::BinaryActivationGradOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat g, typename TTypes<T>::Flat f,
               typename TTypes<T>::Flat out) const override {
    out.device(d) = g * ((f > T(0)) && (f < T(6))).template cast<T>();  // a product, as ReluGrad
  }
};

// Takes Elu's outputs, not its features: d/dx elu = elu(x) + 1 for x < 0.
template <class T>
class EluGradOp : public BinaryActivationGradOp<T> {
 public:
  using BinaryActivationGradOp<T>::BinaryActivationGradOp;
  void Operate(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat g, typename TTypes<T>::Flat a,
               typename TTypes<T>::Flat out) const override {
    out.device(d) = (a < T(0)).select(g * (a + T(1)), g);
  }
};

#define TA_REGISTER_RELU(T)                                                                       \
  REGISTER_KERNEL(Name("Relu").Device(DEVICE_CPU).TypeConstraint<T>("T"), ReluOp<T>);             \
  REGISTER_KERNEL(Name("ReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), ReluGradOp<T>);     \
  REGISTER_KERNEL(Name("Relu6").Device(DEVICE_CPU).TypeConstraint<T>("T"), Relu6Op<T>);           \
  REGISTER_KERNEL(Name("Relu6Grad").Device(DEVICE_CPU).TypeConstraint<T>("T"), Relu6GradOp<T>);
TA_REGISTER_RELU(Eigen::half)
TA_REGISTER_RELU(Eigen::bfloat16)
TA_REGISTER_RELU(float)
TA_REGISTER_RELU(double)
TA_REGISTER_RELU(int8_t)
TA_REGISTER_RELU(int16_t)
TA_REGISTER_RELU(int32_t)
TA_REGISTER_RELU(int64_t)
TA_REGISTER_RELU(uint8_t)
TA_REGISTER_RELU(uint16_t)
TA_REGISTER_RELU(uint32_t)
TA_REGISTER_RELU(uint64_t)
#undef TA_REGISTER_RELU

#define TA_REGISTER_ELU(T)                                                                 \
  REGISTER_KERNEL(Name("Elu").Device(DEVICE_CPU).TypeConstraint<T>("T"), EluOp<T>);        \
  REGISTER_KERNEL(Name("EluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), EluGradOp<T>);
TA_REGISTER_ELU(Eigen::half)
TA_REGISTER_ELU(Eigen::bfloat16)
TA_REGISTER_ELU(float)
TA_REGISTER_ELU(double)
#undef TA_REGISTER_ELU

}  // namespace
}  // namespace tensoract
