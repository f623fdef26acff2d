// Ndtri, Erfinv, Lgamma, Digamma, Polygamma, Zeta, the incomplete gamma functions (Igamma,
// Igammac, IgammaGradA, RandomGammaGrad) and the incomplete beta function (Betainc) on the
// CPU, with the types TensorFlow's CPU kernels take: float and double, and half too for
// Lgamma and Digamma (computed in float and rounded once, as Eigen's half does). Each is Eigen's implementation, the one
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

// The incomplete gamma functions are series and continued fractions whose float forms lose
// up to 1.6% (Debian's Eigen 3.4: Igammac(24894, 26497) is 1.254e-23, the true value
// 1.2737e-23, mpmath): float is computed in double and rounded once, within half an ulp
// of the double result, which stays within ~1e-14 of the true value where checked.
template <class F>
struct InDouble {
  template <class T>
  T operator()(const T& a, const T& x) const {
    return static_cast<T>(F()(static_cast<double>(a), static_cast<double>(x)));
  }
};
struct Igamma {
  double operator()(double a, double x) const { return Eigen::numext::igamma(a, x); }
};
struct Igammac {
  double operator()(double a, double x) const { return Eigen::numext::igammac(a, x); }
};
struct IgammaGradA {
  double operator()(double a, double x) const { return Eigen::numext::igamma_der_a(a, x); }
};
struct RandomGammaGrad {
  double operator()(double alpha, double sample) const { return Eigen::numext::gamma_sample_der_alpha(alpha, sample); }
};
using ScalarIgamma = InDouble<Igamma>;
using ScalarIgammac = InDouble<Igammac>;
using ScalarIgammaGradA = InDouble<IgammaGradA>;
using ScalarRandomGammaGrad = InDouble<RandomGammaGrad>;

// Betainc(a, b, x): the three of one shape, or scalars (TensorFlow's rule: no other
// broadcasting), InvalidArgument naming the shapes otherwise.
template <class T>
class BetaincOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor* in[3] = {&ctx->input(0), &ctx->input(1), &ctx->input(2)};
    const TensorShape* shape = &in[0]->shape();
    for (const Tensor* t : in) {
      if (t->dims() > 0) shape = &t->shape();
    }
    for (const Tensor* t : in) {
      OP_REQUIRES(ctx, t->dims() == 0 || t->shape() == *shape,
                  errors::InvalidArgument("node '", name(), "': shapes of a, b and x are inconsistent: ",
                                          in[0]->shape().DebugString(), " vs. ", in[1]->shape().DebugString(), " vs. ",
                                          in[2]->shape().DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const T* a = in[0]->base<T>();
    const T* b = in[1]->base<T>();
    const T* x = in[2]->base<T>();
    const bool a_one = in[0]->dims() == 0, b_one = in[1]->dims() == 0, x_one = in[2]->dims() == 0;
    T* z = out->base<T>();
    CwiseParallelFor(ctx, out->NumElements(), 400, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        // In double, as the incomplete gamma functions above.
        z[i] = static_cast<T>(Eigen::numext::betainc(static_cast<double>(a[a_one ? 0 : i]),
                                                     static_cast<double>(b[b_one ? 0 : i]),
                                                     static_cast<double>(x[x_one ? 0 : i])));
      }
    });
  }
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
  TA_REGISTER_BINARY("Zeta", ScalarZeta, T);       \
  TA_REGISTER_BINARY("Igamma", ScalarIgamma, T);   \
  TA_REGISTER_BINARY("Igammac", ScalarIgammac, T); \
  TA_REGISTER_BINARY("IgammaGradA", ScalarIgammaGradA, T); \
  TA_REGISTER_BINARY("RandomGammaGrad", ScalarRandomGammaGrad, T); \
  REGISTER_KERNEL(Name("Betainc").Device(DEVICE_CPU).TypeConstraint<T>("T"), BetaincOp<T>)
TA_REGISTER_FLOATS(float);
TA_REGISTER_FLOATS(double);
TA_REGISTER_UNARY("Lgamma", ScalarLgamma, Eigen::half);
TA_REGISTER_UNARY("Digamma", ScalarDigamma, Eigen::half);
#undef TA_REGISTER_FLOATS
#undef TA_REGISTER_BINARY
#undef TA_REGISTER_UNARY

}  // namespace
}  // namespace tensoract
