// Ndtri, Erfinv, Lgamma, Digamma, Polygamma and Zeta on the CPU, with the types TensorFlow's
// CPU kernels take: float and double, and half too for Lgamma and Digamma (computed in float
// and rounded once, as Eigen's half does). Each is Eigen's implementation, the one
// TensorFlow's kernels call (Cephes' algorithms): Erfinv is TensorFlow's
// ndtri((x + 1) / 2) / sqrt(2) in T, Lgamma the C library's lgamma_r through Eigen.
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <type_traits>
#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

// ndtri with TensorFlow's domain: NaN outside [0, 1] (Debian's Eigen 3.4 gives -inf below
// and inf above), -inf at 0 and inf at 1.
template <class T>
T Ndtri(T p) {
  if (!(p >= T(0) && p <= T(1))) return std::numeric_limits<T>::quiet_NaN();
  return Eigen::numext::ndtri(p);
}
struct ScalarNdtri {
  template <class T>
  T operator()(const T& p) const { return Ndtri(p); }
};
struct ScalarErfinv {
  template <class T>
  T operator()(const T& x) const {
    const T half = T(0.5);
    return Ndtri(half * x + half) * T(M_SQRT1_2);
  }
};
struct ScalarLgamma {
  template <class T>
  T operator()(const T& x) const { return ViaFloat(x, [](auto v) { return Eigen::numext::lgamma(v); }); }
};
struct ScalarDigamma {
  template <class T>
  T operator()(const T& x) const { return ViaFloat(x, [](auto v) { return Eigen::numext::digamma(v); }); }
};
// zeta(x, q) as TensorFlow's Eigen gives it where Debian's 3.4 gives NaN: 0 for q = inf (x >
// 1), and for a float sum whose terms underflow (x = 92, q = 6: 6^-92), the double result
// rounded (0, or the tiny value).
template <class T>
T Zeta(T x, T q) {
  if (x > T(1) && q == std::numeric_limits<T>::infinity()) return T(0);
  const T z = Eigen::numext::zeta(x, q);
  if constexpr (std::is_same_v<T, float>) {
    if (std::isnan(z) && x > 1.f && q > 0.f) return static_cast<float>(Eigen::numext::zeta<double>(x, q));
  }
  return z;
}
// polygamma(n, x) = (-1)^(n + 1) n! zeta(n + 1, x) for n >= 1: at x = inf a zero of that sign
// where n! is finite in T, NaN where it overflows (TensorFlow's; Debian's Eigen 3.4 gives NaN
// for all).
struct ScalarPolygamma {
  template <class T>
  T operator()(const T& n, const T& x) const {
    if (n >= T(1) && n == std::floor(n) && x == std::numeric_limits<T>::infinity()) {
      if (!std::isfinite(static_cast<T>(std::tgamma(static_cast<double>(n) + 1)))) {
        return std::numeric_limits<T>::quiet_NaN();
      }
      return std::fmod(n, T(2)) == T(0) ? -T(0) : T(0);
    }
    return Eigen::numext::polygamma(n, x);
  }
};
struct ScalarZeta {
  template <class T>
  T operator()(const T& x, const T& q) const { return Zeta(x, q); }
};

#define TA_REGISTER_UNARY(OP, SCALAR, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, ScalarUnary<SCALAR, 40>>)
#define TA_REGISTER_BINARY(OP, SCALAR, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, ScalarBinary<SCALAR, 200>>)
#define TA_REGISTER_FLOATS(T)                       \
  TA_REGISTER_UNARY("Ndtri", ScalarNdtri, T);       \
  TA_REGISTER_UNARY("Erfinv", ScalarErfinv, T);     \
  TA_REGISTER_UNARY("Lgamma", ScalarLgamma, T);     \
  TA_REGISTER_UNARY("Digamma", ScalarDigamma, T);   \
  TA_REGISTER_BINARY("Polygamma", ScalarPolygamma, T); \
  TA_REGISTER_BINARY("Zeta", ScalarZeta, T)
TA_REGISTER_FLOATS(float);
TA_REGISTER_FLOATS(double);
TA_REGISTER_UNARY("Lgamma", ScalarLgamma, Eigen::half);
TA_REGISTER_UNARY("Digamma", ScalarDigamma, Eigen::half);
#undef TA_REGISTER_FLOATS
#undef TA_REGISTER_BINARY
#undef TA_REGISTER_UNARY

}  // namespace
}  // namespace tensoract
