// Expm1 (e^x - 1) on the CPU, element by element with the C library's expm1, which keeps
// full relative accuracy near 0 where exp(x) - 1 cancels: within an ulp of the truth,
// TensorFlow's (Eigen's Kahan-style exp(x) - 1 correction) within a few. Every path (packets,
// tails, threads) gives what one element alone gives. A denormal is returned as it is
// (expm1(x) rounds to x there; glibc's expm1 under the kernels' denormals-as-zero mode would
// give 0), as TensorFlow's does. half and bfloat16 compute in float and round once.
//
// Complex: expm1(a + ib) = (expm1(a) - 2 e^a sin^2(b/2)) + i e^a sin b, as TensorFlow's Eigen
// computes it; its real part does not cancel near 0 as e^a cos b - 1 does.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

template <class R>
R RealExpm1(R x) {
  if (std::abs(x) < std::numeric_limits<R>::min()) return x;  // zeros and denormals
  return std::expm1(x);
}

struct ScalarExpm1 {
  template <class T>
  T operator()(const T& x) const {
    if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
      return T(RealExpm1(static_cast<float>(x)));
    } else if constexpr (std::is_floating_point_v<T>) {
      return RealExpm1(x);
    } else {
      // TensorFlow's Eigen's form: (expm1(a) - 2 e^a sin^2(b/2), e^a sin b) with e^a taken as
      // expm1(a) + 1 (so an overflowing e^a gives inf - inf = NaN in the real part, there too).
      using R = typename T::value_type;
      const R a = x.real(), b = x.imag();
      const R erm1 = RealExpm1(a), er = erm1 + R(1);
      R sin2 = std::sin(b / R(2));
      sin2 = sin2 * sin2;
      return T(erm1 - R(2) * er * sin2, er * std::sin(b));
    }
  }
};

struct Expm1 : CwiseFunctor {
  static constexpr int kCost = 20;
  template <class A>
  auto operator()(const A& a) const { return a.unaryExpr(ScalarExpm1()); }
};

#define TA_REGISTER(T) REGISTER_KERNEL(Name("Expm1").Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, Expm1>)
TA_REGISTER(float);
TA_REGISTER(double);
TA_REGISTER(Eigen::half);
TA_REGISTER(Eigen::bfloat16);
TA_REGISTER(complex64);
TA_REGISTER(complex128);
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
