// BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift, RightShift and PopulationCount on
// the CPU, for the eight integer types TensorFlow 2.21 registers them for.
//
// Shifts follow TensorFlow's functors: the shift amount is clamped to [0, bits - 1] (so a
// negative amount shifts by nothing and an amount of bits or more by bits - 1, never C++'s
// undefined behaviour), a left shift works on the unsigned representation (bits shifted out
// are lost, signed results wrap), and a right shift of a signed value is arithmetic (copies
// the sign bit). PopulationCount counts the set bits of the two's complement representation.
#include <bitset>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

// The shift amount y clamped to [0, bits - 1] of T.
template <class T>
int ClampedShift(T y) {
  constexpr int kMaxShift = static_cast<int>(sizeof(T) * CHAR_BIT) - 1;
  if constexpr (std::is_signed_v<T>) {
    if (y < T(0)) return 0;
  }
  return y > T(kMaxShift) ? kMaxShift : static_cast<int>(y);
}

struct ScalarBitwiseAnd {
  template <class T>
  T operator()(const T& x, const T& y) const { return static_cast<T>(x & y); }
};
struct ScalarBitwiseOr {
  template <class T>
  T operator()(const T& x, const T& y) const { return static_cast<T>(x | y); }
};
struct ScalarBitwiseXor {
  template <class T>
  T operator()(const T& x, const T& y) const { return static_cast<T>(x ^ y); }
};
struct ScalarLeftShift {
  template <class T>
  T operator()(const T& x, const T& y) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) << ClampedShift(y)));
  }
};
struct ScalarRightShift {
  template <class T>
  T operator()(const T& x, const T& y) const { return static_cast<T>(x >> ClampedShift(y)); }  // arithmetic if signed
};
struct ScalarInvert {
  template <class T>
  T operator()(const T& x) const { return static_cast<T>(~x); }
};
struct ScalarPopulationCount {
  template <class T>
  uint8_t operator()(const T& x) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<uint8_t>(std::bitset<sizeof(T) * CHAR_BIT>(static_cast<U>(x)).count());
  }
};

template <class Scalar>
struct Unary : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.unaryExpr(Scalar()); }
};
template <class Scalar>
struct Binary : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a.binaryExpr(b, Scalar()); }
};

#define TA_REGISTER_BINARY(OP, SCALAR, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, Binary<SCALAR>>)
#define TA_REGISTER_BITWISE(T)                                                                                   \
  TA_REGISTER_BINARY("BitwiseAnd", ScalarBitwiseAnd, T);                                                         \
  TA_REGISTER_BINARY("BitwiseOr", ScalarBitwiseOr, T);                                                           \
  TA_REGISTER_BINARY("BitwiseXor", ScalarBitwiseXor, T);                                                         \
  TA_REGISTER_BINARY("LeftShift", ScalarLeftShift, T);                                                           \
  TA_REGISTER_BINARY("RightShift", ScalarRightShift, T);                                                         \
  REGISTER_KERNEL(Name("Invert").Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, Unary<ScalarInvert>>); \
  REGISTER_KERNEL(Name("PopulationCount").Device(DEVICE_CPU).TypeConstraint<T>("T"),                             \
                  UnaryOp<T, Unary<ScalarPopulationCount>, uint8_t>)
TA_REGISTER_BITWISE(int8_t);
TA_REGISTER_BITWISE(int16_t);
TA_REGISTER_BITWISE(int32_t);
TA_REGISTER_BITWISE(int64_t);
TA_REGISTER_BITWISE(uint8_t);
TA_REGISTER_BITWISE(uint16_t);
TA_REGISTER_BITWISE(uint32_t);
TA_REGISTER_BITWISE(uint64_t);
#undef TA_REGISTER_BITWISE
#undef TA_REGISTER_BINARY

}  // namespace
}  // namespace tensoract
