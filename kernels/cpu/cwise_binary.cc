// Element-wise arithmetic with broadcasting: Sub, RealDiv, Div, Maximum, Minimum,
// SquaredDifference, FloorDiv, FloorMod, Pow, DivNoNan on the CPU.
//
// Integer division follows TensorFlow: Div truncates toward zero, FloorDiv and FloorMod round
// toward negative infinity, and a zero divisor is an InvalidArgument (checked before any
// arithmetic, so the hardware never traps). The most negative integer divided by -1 wraps.
#include <cmath>
#include <type_traits>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/denormal.h"

namespace tensoract {
namespace {

// -x without signed overflow (the most negative value stays itself, as two's complement does).
template <class T>
T WrappingNeg(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(x));
}

template <class T>
struct TruncDivScalar {
  T operator()(T x, T y) const { return y == T(-1) ? WrappingNeg(x) : x / y; }
};

template <class T>
struct FloorDivScalar {
  T operator()(T x, T y) const {
    if (y == T(-1)) return WrappingNeg(x);
    const T q = x / y, r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? T(q - 1) : q;
  }
};

template <class T>
struct FloorModScalar {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == T(-1)) return T(0);
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? T(r + y) : r;
    } else {
      const T r = std::fmod(x, y);
      return (r != 0 && ((y < 0) != (r < 0))) ? r + y : r;
    }
  }
};

template <class T>
struct IntPowScalar {
  T operator()(T x, T y) const {  // y >= 0, checked by BinaryOp
    T result = 1;
    for (;;) {
      if (y & 1) result = static_cast<T>(result * x);
      y >>= 1;
      if (y == 0) return result;
      x = static_cast<T>(x * x);
    }
  }
};

template <class T>
struct DivNoNanScalar {
  T operator()(T x, T y) const { return y == T(0) ? T(0) : x / y; }
};

template <class A>
using ScalarOf = typename A::Scalar;

struct Sub : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a - b; }
};

struct Div : CwiseFunctor {
  static constexpr int kCost = 4;
  static constexpr bool kNoZeroDivisor = true;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    using T = ScalarOf<A>;
    if constexpr (std::is_integral_v<T>) return a.binaryExpr(b, TruncDivScalar<T>());
    else return a / b;
  }
};

// Float max and min as TensorFlow computes them: NaN from either side wins, and of two equal
// values (+0 and -0; a denormal, read as zero, and a zero) the second operand is the result
// (x86's maxps order). Eigen 3.4's PropagateNaN max gave the first: Maximum(-0, +0) was -0,
// TensorFlow's +0 (issue 32's harness).
template <bool kMax>
struct MaxMinSecondOnTies {
  template <class T>
  T operator()(const T& x, const T& y) const {
    if (std::isnan(x)) return x;
    if (std::isnan(y)) return y;
    return (kMax ? y < x : x < y) ? x : y;
  }
  template <class Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    namespace ei = Eigen::internal;
    const Packet pick = ei::pselect(kMax ? ei::pcmp_lt(y, x) : ei::pcmp_lt(x, y), x, y);
    return ei::pselect(ei::pcmp_eq(x, x), ei::pselect(ei::pcmp_eq(y, y), pick, y), x);
  }
};
}  // namespace
}  // namespace tensoract

template <bool kMax>
struct Eigen::internal::functor_traits<tensoract::MaxMinSecondOnTies<kMax>> {
  enum { Cost = 3, PacketAccess = packet_traits<float>::Vectorizable };
};

namespace tensoract {
namespace {

struct Maximum : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    if constexpr (std::is_integral_v<ScalarOf<A>>) return a.max(b);
    else return a.binaryExpr(b, MaxMinSecondOnTies<true>());
  }
};

struct Minimum : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    if constexpr (std::is_integral_v<ScalarOf<A>>) return a.min(b);
    else return a.binaryExpr(b, MaxMinSecondOnTies<false>());
  }
};

struct SquaredDifference : CwiseFunctor {
  static constexpr int kCost = 2;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return (a - b).square(); }
};

struct FloorDiv : CwiseFunctor {
  static constexpr int kCost = 8;
  static constexpr bool kNoZeroDivisor = true;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    using T = ScalarOf<A>;
    if constexpr (std::is_integral_v<T>) return a.binaryExpr(b, FloorDivScalar<T>());
    else return (a / b).floor();
  }
};

struct FloorMod : CwiseFunctor {
  static constexpr int kCost = 12;
  static constexpr bool kNoZeroDivisor = true;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a.binaryExpr(b, FloorModScalar<ScalarOf<A>>()); }
};

// std::pow element by element for floats: Eigen's vectorised pow lost the sign of an
// infinite result of a negative base and an odd exponent ((-2)^129 gave +inf from 16
// elements on); TensorFlow gives -inf, as the scalar path always did.
// Denormal operands are read as zeros of their sign, as the kernels' SSE arithmetic (DAZ)
// and TensorFlow's vectorised pow read them: pow(0, 1e-45) is 1 there, and was std::pow's 0
// here (issue 32's harness).
struct ExactPow {
  template <class T>
  T operator()(const T& x, const T& y) const { return std::pow(DenormalAsZero(x), DenormalAsZero(y)); }
};
struct Pow : CwiseFunctor {
  static constexpr int kCost = 20;
  static constexpr bool kNoNegativeExponent = true;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    using T = ScalarOf<A>;
    if constexpr (std::is_integral_v<T>) return a.binaryExpr(b, IntPowScalar<T>());
    else return a.binaryExpr(b, ExactPow());
  }
};

struct DivNoNan : CwiseFunctor {
  static constexpr int kCost = 4;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a.binaryExpr(b, DivNoNanScalar<ScalarOf<A>>()); }
};

#define TA_REGISTER_BINARY(OP, F, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, F>)

#define TA_REGISTER_ALL(T)                                      \
  TA_REGISTER_BINARY("Sub", Sub, T);                            \
  TA_REGISTER_BINARY("Div", Div, T);                            \
  TA_REGISTER_BINARY("Maximum", Maximum, T);                    \
  TA_REGISTER_BINARY("Minimum", Minimum, T);                    \
  TA_REGISTER_BINARY("SquaredDifference", SquaredDifference, T); \
  TA_REGISTER_BINARY("FloorDiv", FloorDiv, T);                  \
  TA_REGISTER_BINARY("FloorMod", FloorMod, T);                  \
  TA_REGISTER_BINARY("Pow", Pow, T);
TA_REGISTER_ALL(float)
TA_REGISTER_ALL(double)
TA_REGISTER_ALL(int32_t)
TA_REGISTER_ALL(int64_t)
#undef TA_REGISTER_ALL

TA_REGISTER_BINARY("RealDiv", Div, float);
TA_REGISTER_BINARY("RealDiv", Div, double);
TA_REGISTER_BINARY("DivNoNan", DivNoNan, float);
TA_REGISTER_BINARY("DivNoNan", DivNoNan, double);
#undef TA_REGISTER_BINARY

}  // namespace
}  // namespace tensoract
