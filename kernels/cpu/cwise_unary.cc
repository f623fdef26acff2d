// Element-wise unary math on the CPU: Neg, Square, Sqrt, Rsqrt, Exp, Log, Tanh, Sigmoid, Abs,
// Sign, Reciprocal, Log1p, Floor, Ceil, Round. Eigen's vectorised array functions; Sigmoid is
// Eigen's logistic function, as TensorFlow's.
#include <cmath>
#include <type_traits>

#include "kernels/cpu/accurate_exp.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/ieee_sqrt.h"
#include "kernels/denormal.h"

namespace tensoract {
namespace {

// Floats flip their sign bit, as TensorFlow's do: Eigen 3.4's vectorised negation is 0 - x,
// which gives +0 for +0 and flushes denormals (issue 32's harness).
struct FlipSign {
  template <class T>
  T operator()(const T& x) const { return -x; }
  template <class Packet>
  Packet packetOp(const Packet& x) const {
    namespace ei = Eigen::internal;
    using T = typename ei::unpacket_traits<Packet>::type;
    return ei::pxor(x, ei::pset1<Packet>(T(-0.0)));
  }
};
}  // namespace
}  // namespace tensoract

template <>
struct Eigen::internal::functor_traits<tensoract::FlipSign> {
  enum { Cost = 1, PacketAccess = packet_traits<float>::Vectorizable };
};

namespace tensoract {
namespace {

struct Neg : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const {
    if constexpr (std::is_floating_point_v<typename A::Scalar>) return a.unaryExpr(FlipSign());
    else return -a;
  }
};
struct Square : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.square(); }
};
// The correctly rounded square root, vectorised (kernels/cpu/ieee_sqrt.h): Eigen's own
// vectorised float sqrt (a reciprocal-square-root estimate refined once, with
// EIGEN_FAST_MATH) gave NaN for +inf from 16 elements on, where TensorFlow gives inf.
struct Sqrt : CwiseFunctor {
  static constexpr int kCost = 4;
  template <class A>
  auto operator()(const A& a) const { return a.unaryExpr(IeeeSqrt<typename A::Scalar>()); }
};
// 1 / sqrt(x), both correctly rounded: Eigen 3.4's rsqrt was 50% off at the smallest normal
// float (1.4e19 for 1.2e-38, TensorFlow 9.2e18) and at double's extremes (issue 32's harness).
struct Rsqrt : CwiseFunctor {
  static constexpr int kCost = 5;
  template <class A>
  auto operator()(const A& a) const { return a.unaryExpr(IeeeSqrt<typename A::Scalar>()).inverse(); }
};
struct FullRangeExp {
  template <class T>
  T operator()(const T& x) const { return Eigen::numext::exp(x); }
  template <class Packet>
  Packet packetOp(const Packet& x) const { return AccurateExp(x); }
};
}  // namespace
}  // namespace tensoract

template <>
struct Eigen::internal::functor_traits<tensoract::FullRangeExp> {
  enum { Cost = 10, PacketAccess = packet_traits<float>::HasExp };
};

namespace tensoract {
namespace {

struct Exp : CwiseFunctor {
  static constexpr int kCost = 10;
  template <class A>
  auto operator()(const A& a) const {
    if constexpr (std::is_same_v<typename A::Scalar, float>) {
      return a.unaryExpr(FullRangeExp());
    } else {
      return a.exp();
    }
  }
};
// Eigen's vectorised log reads a denormal as zero (the kernels run with DAZ, as
// TensorFlow's): -inf. Its scalar path, std::log, reads the bits and gave -103.97 for
// 1.4e-45 at the ends of a chunk (issue 32's harness); it now sees the same zero.
struct DenormalsAreZeroLog {
  template <class T>
  T operator()(const T& x) const {
    return std::log(DenormalAsZero(x));
  }
  template <class Packet>
  Packet packetOp(const Packet& x) const { return Eigen::internal::plog(x); }
};
}  // namespace
}  // namespace tensoract

template <>
struct Eigen::internal::functor_traits<tensoract::DenormalsAreZeroLog> {
  enum { Cost = 10, PacketAccess = packet_traits<float>::HasLog };
};

namespace tensoract {
namespace {

struct Log : CwiseFunctor {
  static constexpr int kCost = 10;
  template <class A>
  auto operator()(const A& a) const { return a.unaryExpr(DenormalsAreZeroLog()); }
};
struct Tanh : CwiseFunctor {
  static constexpr int kCost = 12;
  template <class A>
  auto operator()(const A& a) const { return a.tanh(); }
};

struct Sigmoid : CwiseFunctor {
  static constexpr int kCost = 14;
  template <class A>
  auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (std::is_same_v<T, float>) {
      return a.unaryExpr(AccurateLogistic());
    } else {
      return a.unaryExpr(Eigen::internal::scalar_logistic_op<T>());
    }
  }
};
struct Abs : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.abs(); }
};
struct Sign : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.sign(); }
};
struct Reciprocal : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.inverse(); }
};
struct Log1p : CwiseFunctor {
  static constexpr int kCost = 12;
  template <class A>
  auto operator()(const A& a) const { return a.log1p(); }
};
struct Floor : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.floor(); }
};
struct Ceil : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.ceil(); }
};
// Half to even (rint in the default rounding mode); integers are already round.
struct Round : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const {
    if constexpr (std::is_integral_v<typename A::Scalar>) return a;
    else return a.rint();
  }
};

#define TA_REGISTER_UNARY(OP, F, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, F>)

#define TA_REGISTER_ALL_TYPES(T)             \
  TA_REGISTER_UNARY("Neg", Neg, T);          \
  TA_REGISTER_UNARY("Square", Square, T);    \
  TA_REGISTER_UNARY("Abs", Abs, T);          \
  TA_REGISTER_UNARY("Sign", Sign, T);        \
  TA_REGISTER_UNARY("Round", Round, T);
TA_REGISTER_ALL_TYPES(float)
TA_REGISTER_ALL_TYPES(double)
// Round of a float type is rint, half to even. Only float and double, as TensorFlow's CPU
// kernels (its OpDef allows half and bfloat16, which find no kernel there either).
TA_REGISTER_UNARY("Rint", Round, float);
TA_REGISTER_UNARY("Rint", Round, double);
TA_REGISTER_ALL_TYPES(int32_t)
TA_REGISTER_ALL_TYPES(int64_t)
#undef TA_REGISTER_ALL_TYPES

// The narrow integers (TensorFlow has no unsigned Neg, Abs or Sign, but Square of each).
#define TA_REGISTER_NARROW(T)             \
  TA_REGISTER_UNARY("Neg", Neg, T);       \
  TA_REGISTER_UNARY("Abs", Abs, T);       \
  TA_REGISTER_UNARY("Sign", Sign, T);     \
  TA_REGISTER_UNARY("Square", Square, T);
TA_REGISTER_NARROW(int8_t)
TA_REGISTER_NARROW(int16_t)
#undef TA_REGISTER_NARROW
TA_REGISTER_UNARY("Square", Square, uint8_t);
TA_REGISTER_UNARY("Square", Square, uint16_t);
TA_REGISTER_UNARY("Square", Square, uint32_t);
TA_REGISTER_UNARY("Square", Square, uint64_t);

// half and bfloat16 in float, rounded once per element.
#define TA_REGISTER_IN_FLOAT(T)                               \
  TA_REGISTER_UNARY("Neg", InFloat<Neg>, T);                  \
  TA_REGISTER_UNARY("Square", InFloat<Square>, T);            \
  TA_REGISTER_UNARY("Abs", InFloat<Abs>, T);                  \
  TA_REGISTER_UNARY("Sign", InFloat<Sign>, T);                \
  TA_REGISTER_UNARY("Round", InFloat<Round>, T);              \
  TA_REGISTER_UNARY("Sqrt", InFloat<Sqrt>, T);                \
  TA_REGISTER_UNARY("Rsqrt", InFloat<Rsqrt>, T);              \
  TA_REGISTER_UNARY("Exp", InFloat<Exp>, T);                  \
  TA_REGISTER_UNARY("Log", InFloat<Log>, T);                  \
  TA_REGISTER_UNARY("Tanh", InFloat<Tanh>, T);                \
  TA_REGISTER_UNARY("Sigmoid", InFloat<Sigmoid>, T);          \
  TA_REGISTER_UNARY("Reciprocal", InFloat<Reciprocal>, T);    \
  TA_REGISTER_UNARY("Inv", InFloat<Reciprocal>, T);           \
  TA_REGISTER_UNARY("Log1p", InFloat<Log1p>, T);              \
  TA_REGISTER_UNARY("Floor", InFloat<Floor>, T);              \
  TA_REGISTER_UNARY("Ceil", InFloat<Ceil>, T);
TA_REGISTER_IN_FLOAT(Eigen::half)
TA_REGISTER_IN_FLOAT(Eigen::bfloat16)
#undef TA_REGISTER_IN_FLOAT

#define TA_REGISTER_FLOAT_TYPES(T)                   \
  TA_REGISTER_UNARY("Sqrt", Sqrt, T);                \
  TA_REGISTER_UNARY("Rsqrt", Rsqrt, T);              \
  TA_REGISTER_UNARY("Exp", Exp, T);                  \
  TA_REGISTER_UNARY("Log", Log, T);                  \
  TA_REGISTER_UNARY("Tanh", Tanh, T);                \
  TA_REGISTER_UNARY("Sigmoid", Sigmoid, T);          \
  TA_REGISTER_UNARY("Reciprocal", Reciprocal, T);    \
  TA_REGISTER_UNARY("Inv", Reciprocal, T);           \
  TA_REGISTER_UNARY("Log1p", Log1p, T);              \
  TA_REGISTER_UNARY("Floor", Floor, T);              \
  TA_REGISTER_UNARY("Ceil", Ceil, T);
TA_REGISTER_FLOAT_TYPES(float)
TA_REGISTER_FLOAT_TYPES(double)
#undef TA_REGISTER_FLOAT_TYPES
#undef TA_REGISTER_UNARY

}  // namespace
}  // namespace tensoract
