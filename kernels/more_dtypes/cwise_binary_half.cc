// Element-wise arithmetic with broadcasting on the CPU for half and bfloat16: Sub, Div,
// RealDiv, Maximum, Minimum, SquaredDifference, FloorDiv, FloorMod, Pow, DivNoNan. Each is
// computed in float and rounded to the type once, as TensorFlow's Eigen computes these types
// (InFloat), except where TensorFlow rounds an intermediate too (below).
#include "kernels/cpu/cwise_binary_functors.h"

namespace tensoract {
namespace {

using namespace cwise;  // NOLINT: the functors this file registers

// Where TensorFlow rounds more than once. Each operand is widened to
// float and each result rounded to T, as Eigen's half arithmetic does op by op.
template <class A>
auto Widen(const A& a) { return a.template cast<float>(); }

template <class T, bool kMax>
struct SmallMaxMin : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return Widen(a).binaryExpr(Widen(b), MaxMinFirstOnTies<kMax>()).template cast<T>();
  }
};

template <class T>
using SmallMax = SmallMaxMin<T, true>;
template <class T>
using SmallMin = SmallMaxMin<T, false>;

// (x - y) rounded, then squared and rounded.
template <class T>
struct SmallSquaredDifference : CwiseFunctor {
  static constexpr int kCost = 2;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return Widen((Widen(a) - Widen(b)).template cast<T>()).square().template cast<T>();
  }
};

// floor(x / y) of the rounded quotient: a tiny negative quotient rounds to -0, whose floor is
// -0 (the float quotient's floor would be -1).
template <class T>
struct SmallFloorDiv : CwiseFunctor {
  static constexpr int kCost = 8;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return Widen((Widen(a) / Widen(b)).template cast<T>()).floor().template cast<T>();
  }
};

// pow in float of the values as they are: TensorFlow reads a bfloat16 denormal exponent as
// itself (pow(0, 9e-41) is 0), where its float pow reads a denormal as zero.
struct PlainPow {
  float operator()(float x, float y) const { return std::pow(x, y); }
};
template <class T>
struct SmallPow : CwiseFunctor {
  static constexpr int kCost = 20;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return Widen(a).binaryExpr(Widen(b), PlainPow()).template cast<T>();
  }
};

#define TA_REGISTER_BINARY(OP, F, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, F>)

#define TA_REGISTER_IN_FLOAT(T)                                            \
  TA_REGISTER_BINARY("Sub", InFloat<Sub>, T);                              \
  TA_REGISTER_BINARY("Div", InFloat<Div>, T);                              \
  TA_REGISTER_BINARY("RealDiv", InFloat<Div>, T);                          \
  TA_REGISTER_BINARY("Maximum", SmallMax<T>, T);                           \
  TA_REGISTER_BINARY("Minimum", SmallMin<T>, T);                           \
  TA_REGISTER_BINARY("SquaredDifference", SmallSquaredDifference<T>, T);   \
  TA_REGISTER_BINARY("FloorDiv", SmallFloorDiv<T>, T);                     \
  TA_REGISTER_BINARY("FloorMod", InFloat<FloorMod>, T);                    \
  TA_REGISTER_BINARY("Pow", SmallPow<T>, T);                               \
  TA_REGISTER_BINARY("DivNoNan", InFloat<DivNoNan>, T);                    \
  TA_REGISTER_BINARY("MulNoNan", InFloat<MulNoNan>, T);                    \
  TA_REGISTER_BINARY("Xdivy", InFloat<Xdivy>, T);                          \
  TA_REGISTER_BINARY("Xlogy", InFloat<Xlogy>, T);                          \
  TA_REGISTER_BINARY("Xlog1py", InFloat<Xlog1py>, T);
TA_REGISTER_IN_FLOAT(Eigen::half)
TA_REGISTER_IN_FLOAT(Eigen::bfloat16)
#undef TA_REGISTER_IN_FLOAT
#undef TA_REGISTER_BINARY

}  // namespace
}  // namespace tensoract
