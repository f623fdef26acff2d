// The functors of the element-wise arithmetic with broadcasting (Sub, Div and RealDiv,
// Maximum, Minimum, SquaredDifference, FloorDiv, FloorMod, Pow, DivNoNan), shared by the
// files that register them for a few types each (cwise_binary.cc: float, double, int32,
// int64; cwise_binary_narrow.cc: the narrow and unsigned integers; cwise_binary_half.cc:
// half and bfloat16), so that no one file instantiates every kernel.
//
// Integer division follows TensorFlow: Div truncates toward zero, FloorDiv and FloorMod round
// toward negative infinity, and a zero divisor is an InvalidArgument (checked before any
// arithmetic, so the hardware never traps). The most negative integer divided by -1 wraps.
#ifndef TENSORACT_KERNELS_CPU_CWISE_BINARY_FUNCTORS_H_
#define TENSORACT_KERNELS_CPU_CWISE_BINARY_FUNCTORS_H_

#include <cmath>
#include <type_traits>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/denormal.h"

namespace tensoract {
namespace cwise {

// -x without signed overflow (the most negative value stays itself, as two's complement does).
template <class T>
T WrappingNeg(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(x));
}

template <class T>
struct TruncDivScalar {
  T operator()(T x, T y) const {
    if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return WrappingNeg(x);
    }
    return x / y;
  }
};

template <class T>
struct FloorDivScalar {
  T operator()(T x, T y) const {
    if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return WrappingNeg(x);
      const T q = x / y, r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? T(q - 1) : q;
    } else {
      return x / y;  // unsigned: truncation is the floor
    }
  }
};

template <class T>
struct FloorModScalar {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (y == T(-1)) return T(0);
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? T(r + y) : r;
    } else if constexpr (std::is_integral_v<T>) {
      return x % y;
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
}  // namespace cwise
}  // namespace tensoract

template <bool kMax>
struct Eigen::internal::functor_traits<tensoract::cwise::MaxMinSecondOnTies<kMax>> {
  enum { Cost = 3, PacketAccess = packet_traits<float>::Vectorizable };
};

namespace tensoract {
namespace cwise {
// half and bfloat16 max and min as TensorFlow computes them: NaN from either side wins, and
// of two equal values (+0 and -0; a bfloat16 denormal, read as zero, and a zero) the first
// operand is the result (Eigen's half max is (a < b) ? b : a).
template <bool kMax>
struct MaxMinFirstOnTies {
  template <class T>
  T operator()(const T& x, const T& y) const {
    if (std::isnan(x)) return x;
    if (std::isnan(y)) return y;
    return (kMax ? x < y : y < x) ? y : x;
  }
  template <class Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    namespace ei = Eigen::internal;
    const Packet pick = ei::pselect(kMax ? ei::pcmp_lt(x, y) : ei::pcmp_lt(y, x), y, x);
    return ei::pselect(ei::pcmp_eq(x, x), ei::pselect(ei::pcmp_eq(y, y), pick, y), x);
  }
};
}  // namespace cwise
}  // namespace tensoract

template <bool kMax>
struct Eigen::internal::functor_traits<tensoract::cwise::MaxMinFirstOnTies<kMax>> {
  enum { Cost = 3, PacketAccess = packet_traits<float>::Vectorizable };
};

namespace tensoract {
namespace cwise {

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


// MulNoNan, Xdivy, Xlogy and Xlog1py: 0 where one argument is 0 (y for MulNoNan, x for the
// others), whatever the other is (NaN and infinities too), as TensorFlow's functors. As its
// vectorised ones, the x-is-0 ops return x itself there (so -0 stays -0), and denormals are
// zeros (its kernels run with DAZ; the C library's log would see them).
template <class T>
struct MulNoNanScalar {
  T operator()(T x, T y) const { return y == T(0) ? T(0) : x * y; }
};
template <class T>
struct XdivyScalar {
  T operator()(T x, T y) const {
    x = DenormalAsZero(x);
    return x == T(0) ? x : x / DenormalAsZero(y);
  }
};
template <class T>
struct XlogyScalar {
  T operator()(T x, T y) const {
    x = DenormalAsZero(x);
    return x == T(0) ? x : x * std::log(DenormalAsZero(y));
  }
};
template <class T>
struct Xlog1pyScalar {
  T operator()(T x, T y) const {
    x = DenormalAsZero(x);
    return x == T(0) ? x : x * std::log1p(DenormalAsZero(y));
  }
};
// Each of DivNoNan, MulNoNan, Xdivy, Xlogy and Xlog1py: its scalar function element-wise.
template <template <class> class Scalar, int kCostPerElement>
struct ZeroWhereBinary : CwiseFunctor {
  static constexpr int kCost = kCostPerElement;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a.binaryExpr(b, Scalar<ScalarOf<A>>()); }
};
using DivNoNan = ZeroWhereBinary<DivNoNanScalar, 4>;
using MulNoNan = ZeroWhereBinary<MulNoNanScalar, 2>;
using Xdivy = ZeroWhereBinary<XdivyScalar, 4>;
using Xlogy = ZeroWhereBinary<XlogyScalar, 20>;
using Xlog1py = ZeroWhereBinary<Xlog1pyScalar, 20>;

}  // namespace cwise
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_CWISE_BINARY_FUNCTORS_H_
