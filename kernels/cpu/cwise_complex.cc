// Element-wise arithmetic of complex64 and complex128 on the CPU, as TensorFlow 2.21's kernels
// compute it: Add, AddV2, Sub, Mul, Div, RealDiv, DivNoNan, MulNoNan, SquaredDifference, Pow,
// Xdivy, Xlogy, Xlog1py, Equal, NotEqual; Neg, Square, Reciprocal (Inv), Sqrt, Rsqrt, Exp,
// Log, Log1p, Tanh, Sigmoid, Sign; the gradient helpers ReciprocalGrad (InvGrad), SqrtGrad,
// RsqrtGrad, TanhGrad, SigmoidGrad.
//
// TensorFlow's wheel runs these through Eigen built for AVX without FMA: the output's
// elements in whole vectors (4 complex64 or 2 complex128) take Eigen's vector forms, the last
// n % 4 (or n % 2) its scalar forms, and the two differ where it matters. A vector product is
// (ac - bd, ad + bc), each product rounded, so inf * (1 + 0i) gives NaN there; the scalar
// product is C's, which recovers the infinity. A vector quotient scales the divisor by its
// larger part (Smith-like), the scalar one is C's. So each functor here has both forms and
// the kernel picks by the element's place, as TensorFlow's does. This file is compiled with
// -ffp-contract=off (kernels/CMakeLists.txt): a product fused into an FMA would round
// differently from TensorFlow's separate multiply and add.
//
// Everything is computed element by element: complex tensors are rare in real graphs, and
// exact agreement matters more here than vector speed.
#include <cmath>
#include <complex>
#include <limits>

#include "kernels/cpu/complex_math.h"
#include "kernels/cpu/cwise_compare_ops.h"
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

using complex_math::Hypot;
using complex_math::kLanes;
using complex_math::ScalarDiv;
using complex_math::Sqrt;
using complex_math::VectorDiv;
using complex_math::VectorEnd;
using complex_math::VectorMul;
using complex_math::VectorSqrt;

// ---- the two forms of the products and quotients ------------------------------------------

template <class R>
std::complex<R> Mul(std::complex<R> a, std::complex<R> b, bool vector) {
  return vector ? VectorMul(a, b) : a * b;
}
template <class R>
std::complex<R> Div(std::complex<R> a, std::complex<R> b, bool vector) {
  return vector ? VectorDiv(a, b) : ScalarDiv(a, b);
}

// ---- Eigen's scalar complex functions, as TensorFlow's Eigen defines them -----------------

template <class R>
std::complex<R> Rsqrt(std::complex<R> z) {
  const R x = z.real(), y = z.imag();
  const R abs_z = Hypot(x, y);
  const R w = std::sqrt(R(0.5) * (std::abs(x) + abs_z));
  const R woz = w / abs_z;
  if (abs_z == R(0)) return {std::numeric_limits<R>::infinity(), std::numeric_limits<R>::quiet_NaN()};
  if (std::isinf(x) || std::isinf(y)) return {R(0), R(0)};
  if (x == R(0)) return {woz, y < R(0) ? woz : -woz};
  if (x > R(0)) return {woz, -y / (2 * w * abs_z)};
  return {std::abs(y) / (2 * w * abs_z), y < R(0) ? woz : -woz};
}

template <class R>
std::complex<R> Log(std::complex<R> z) {
  return {std::log(std::abs(z)), std::atan2(z.imag(), z.real())};
}

// Eigen's log1p for complex numbers: x * log(1 + x) / ((1 + x) - 1), x itself where 1 + x
// rounds to 1 or log(1 + x) equals it (infinities).
template <class R>
std::complex<R> Log1p(std::complex<R> x, bool vector) {
  const std::complex<R> x1p = R(1) + x;
  const std::complex<R> log_1p = Log(x1p);
  if (x1p == std::complex<R>(1) || x1p == log_1p) return x;
  return Mul(x, Div(log_1p, x1p - R(1), vector), vector);
}

// z / |z|, 0 at 0: in a vector divided by Eigen's hypot, in the scalar tail multiplied by
// the reciprocal of C's cabs (Eigen's sign_impl).
template <class R>
std::complex<R> Sign(std::complex<R> a, bool vector) {
  if (vector) {
    const R h = Hypot(a.real(), a.imag());
    if (h == R(0)) return {};
    return {a.real() / h, a.imag() / h};
  }
  R aa = std::abs(a);
  if (aa == R(0)) return {};
  aa = R(1) / aa;
  return {a.real() * aa, a.imag() * aa};
}

// ---- functors: f(x[, y], vector) ---------------------------------------------------------

template <class R>
using C = std::complex<R>;

struct AddF {
  template <class R> C<R> operator()(C<R> a, C<R> b, bool) const { return a + b; }
};
struct SubF {
  template <class R> C<R> operator()(C<R> a, C<R> b, bool) const { return a - b; }
};
struct MulF {
  template <class R> C<R> operator()(C<R> a, C<R> b, bool v) const { return Mul(a, b, v); }
};
struct DivF {
  template <class R> C<R> operator()(C<R> a, C<R> b, bool v) const { return Div(a, b, v); }
};
// 0 where b is 0, or where a * conj(b) is (so that an underflowing |b|^2 gives no NaN).
struct DivNoNanF {
  template <class R>
  C<R> operator()(C<R> a, C<R> b, bool v) const {
    if (b == C<R>(0) || Mul(a, std::conj(b), v) == C<R>(0)) return {};
    return Div(a, b, v);
  }
};
struct MulNoNanF {
  template <class R> C<R> operator()(C<R> a, C<R> b, bool v) const { return b == C<R>(0) ? C<R>() : Mul(a, b, v); }
};
// (x - y) * conj(x - y), as TensorFlow's (a real number with a zero or NaN imaginary part).
struct SquaredDifferenceF {
  template <class R>
  C<R> operator()(C<R> a, C<R> b, bool v) const {
    const C<R> d = a - b;
    return Mul(d, std::conj(d), v);
  }
};
struct PowF {
  template <class R> C<R> operator()(C<R> a, C<R> b, bool) const { return std::pow(a, b); }
};
// x itself where x is 0 (so -0 stays -0), as TensorFlow's vector forms select it.
struct XdivyF {
  template <class R> C<R> operator()(C<R> x, C<R> y, bool v) const { return x == C<R>(0) ? x : Div(x, y, v); }
};
struct XlogyF {
  template <class R> C<R> operator()(C<R> x, C<R> y, bool v) const { return x == C<R>(0) ? x : Mul(x, Log(y), v); }
};
struct Xlog1pyF {
  // No vector form in TensorFlow's Eigen (complex log1p has none): scalar throughout.
  template <class R>
  C<R> operator()(C<R> x, C<R> y, bool) const { return x == C<R>(0) ? x : x * Log1p(y, false); }
};

struct NegF {
  template <class R> C<R> operator()(C<R> a, bool) const { return -a; }
};
struct SquareF {
  template <class R> C<R> operator()(C<R> a, bool v) const { return Mul(a, a, v); }
};
struct ReciprocalF {
  template <class R> C<R> operator()(C<R> a, bool v) const { return Div(C<R>(1), a, v); }
};
struct SqrtF {
  template <class R> C<R> operator()(C<R> a, bool v) const { return v ? VectorSqrt(a) : Sqrt(a); }
};
struct RsqrtF {
  template <class R> C<R> operator()(C<R> a, bool) const { return Rsqrt(a); }
};
struct ExpF {
  template <class R> C<R> operator()(C<R> a, bool) const { return std::exp(a); }
};
struct LogF {
  template <class R> C<R> operator()(C<R> a, bool) const { return Log(a); }
};
struct Log1pF {
  template <class R> C<R> operator()(C<R> a, bool) const { return Log1p(a, false); }
};
struct TanhF {
  template <class R> C<R> operator()(C<R> a, bool) const { return std::tanh(a); }
};
// Eigen's complex logistic function (no vector form): e / (e + 1) with e = exp(x), 1 where
// e's real part is infinite.
struct SigmoidF {
  template <class R>
  C<R> operator()(C<R> a, bool) const {
    const C<R> e = std::exp(a);
    if (std::isinf(e.real())) return C<R>(1);
    return ScalarDiv(e, e + C<R>(1));
  }
};
struct SignF {
  template <class R> C<R> operator()(C<R> a, bool v) const { return Sign(a, v); }
};

// The gradient helpers f(y, dy): y is the forward output, dy the incoming gradient.
struct TanhGradF {
  template <class R> C<R> operator()(C<R> y, C<R> dy, bool v) const { return Mul(dy, C<R>(1) - Mul(y, y, v), v); }
};
struct SigmoidGradF {
  template <class R>
  C<R> operator()(C<R> y, C<R> dy, bool v) const {
    return v ? VectorMul(dy, VectorMul(y, C<R>(1) - y)) : dy * y * (C<R>(1) - y);
  }
};
// The vector form's mul_no_nan: 0 where its second factor is 0.
template <class R>
C<R> MulNoNan(C<R> a, C<R> b, bool v) { return b == C<R>(0) ? C<R>() : Mul(a, b, v); }
struct ReciprocalGradF {
  template <class R>
  C<R> operator()(C<R> y, C<R> dy, bool v) const {
    const C<R> yc = std::conj(y);
    if (v) return MulNoNan(-Mul(yc, yc, v), dy, v);
    if (dy == C<R>(0)) return {};
    return -yc * yc * dy;
  }
};
struct SqrtGradF {
  template <class R>
  C<R> operator()(C<R> y, C<R> dy, bool v) const {
    const C<R> yc = std::conj(y);
    if (v) return MulNoNan(Div(C<R>(0.5), yc, v), dy, v);
    if (dy == C<R>(0)) return {};
    return (C<R>(0.5) * dy) / yc;
  }
};
struct RsqrtGradF {
  template <class R>
  C<R> operator()(C<R> y, C<R> dy, bool v) const {
    const C<R> yc = std::conj(y);
    if (v) return MulNoNan(Mul(C<R>(-0.5), Mul(yc, yc, v), v), MulNoNan(yc, dy, v), v);
    if (dy == C<R>(0)) return {};
    return C<R>(-0.5) * (dy * yc) * (yc * yc);
  }
};

// ---- kernels -------------------------------------------------------------------------------

// f(x, y) with NumPy broadcasting; each output element knows whether TensorFlow's Eigen
// computes it in a vector or in the scalar tail.
template <class R, class F>
class ComplexBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    StatusOr<BroadcastPlan> plan = MakeBroadcastPlan(x.shape(), y.shape());
    OP_REQUIRES(ctx, plan.ok(), plan.status().WithContext(CwiseNodeContext(*this)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, plan->output_shape, &out));
    const C<R>* xp = x.base<C<R>>();
    const C<R>* yp = y.base<C<R>>();
    C<R>* op = out->base<C<R>>();
    const int64_t n = out->NumElements();
    if (n == 0) return;
    const int64_t vector_end = VectorEnd<R>(n);
    const int64_t xn = x.NumElements(), yn = y.NumElements();
    const bool direct = (xn == n || xn == 1) && (yn == n || yn == 1);
    F f;
    CwiseParallelFor(ctx, n, 8, [&](int64_t b, int64_t e) {
      if (direct) {
        for (int64_t i = b; i < e; ++i) op[i] = f(xp[xn == 1 ? 0 : i], yp[yn == 1 ? 0 : i], i < vector_end);
        return;
      }
      // The odometer over every dimension of the collapsed broadcast, from b.
      const BroadcastPlan& p = *plan;
      const int rank = static_cast<int>(p.dims.size());
      std::vector<int64_t> index(rank, 0);
      int64_t xo = 0, yo = 0, r = b;
      for (int d = rank - 1; d >= 0; --d) {
        index[d] = r % p.dims[d];
        r /= p.dims[d];
        xo += index[d] * p.x_strides[d];
        yo += index[d] * p.y_strides[d];
      }
      for (int64_t i = b; i < e; ++i) {
        op[i] = f(xp[xo], yp[yo], i < vector_end);
        for (int d = rank - 1; d >= 0; --d) {
          xo += p.x_strides[d];
          yo += p.y_strides[d];
          if (++index[d] < p.dims[d]) break;
          xo -= p.x_strides[d] * p.dims[d];
          yo -= p.y_strides[d] * p.dims[d];
          index[d] = 0;
        }
      }
    });
  }
};

template <class R, class F>
class ComplexUnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &out));
    const C<R>* xp = x.base<C<R>>();
    C<R>* op = out->base<C<R>>();
    const int64_t n = x.NumElements(), vector_end = VectorEnd<R>(n);
    F f;
    CwiseParallelFor(ctx, n, 20, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) op[i] = f(xp[i], i < vector_end);
    });
  }
};

// f(y, dy) over two inputs of as many elements (TensorFlow's SimpleBinaryOp).
template <class R, class F>
class ComplexGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& y = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, SimpleBinaryOutput(ctx, *this, &out));
    const C<R>* yp = y.base<C<R>>();
    const C<R>* dyp = dy.base<C<R>>();
    C<R>* op = out->base<C<R>>();
    const int64_t n = y.NumElements(), vector_end = VectorEnd<R>(n);
    F f;
    CwiseParallelFor(ctx, n, 8, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) op[i] = f(yp[i], dyp[i], i < vector_end);
    });
  }
};

#define TA_REGISTER_BINARY(OP, F, R) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<C<R>>("T"), ComplexBinaryOp<R, F>)
#define TA_REGISTER_UNARY(OP, F, R) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<C<R>>("T"), ComplexUnaryOp<R, F>)
#define TA_REGISTER_GRAD(OP, F, R) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<C<R>>("T"), ComplexGradOp<R, F>)
#define TA_REGISTER_COMPLEX(R)                                              \
  TA_REGISTER_BINARY("Add", AddF, R);                                       \
  TA_REGISTER_BINARY("AddV2", AddF, R);                                     \
  TA_REGISTER_BINARY("Sub", SubF, R);                                       \
  TA_REGISTER_BINARY("Mul", MulF, R);                                       \
  TA_REGISTER_BINARY("Div", DivF, R);                                       \
  TA_REGISTER_BINARY("RealDiv", DivF, R);                                   \
  TA_REGISTER_BINARY("DivNoNan", DivNoNanF, R);                             \
  TA_REGISTER_BINARY("MulNoNan", MulNoNanF, R);                             \
  TA_REGISTER_BINARY("SquaredDifference", SquaredDifferenceF, R);           \
  TA_REGISTER_BINARY("Pow", PowF, R);                                       \
  TA_REGISTER_BINARY("Xdivy", XdivyF, R);                                   \
  TA_REGISTER_BINARY("Xlogy", XlogyF, R);                                   \
  TA_REGISTER_BINARY("Xlog1py", Xlog1pyF, R);                               \
  TA_REGISTER_UNARY("Neg", NegF, R);                                        \
  TA_REGISTER_UNARY("Square", SquareF, R);                                  \
  TA_REGISTER_UNARY("Reciprocal", ReciprocalF, R);                          \
  TA_REGISTER_UNARY("Inv", ReciprocalF, R);                                 \
  TA_REGISTER_UNARY("Sqrt", SqrtF, R);                                      \
  TA_REGISTER_UNARY("Rsqrt", RsqrtF, R);                                    \
  TA_REGISTER_UNARY("Exp", ExpF, R);                                        \
  TA_REGISTER_UNARY("Log", LogF, R);                                        \
  TA_REGISTER_UNARY("Log1p", Log1pF, R);                                    \
  TA_REGISTER_UNARY("Tanh", TanhF, R);                                      \
  TA_REGISTER_UNARY("Sigmoid", SigmoidF, R);                                \
  TA_REGISTER_UNARY("Sign", SignF, R);                                      \
  TA_REGISTER_GRAD("TanhGrad", TanhGradF, R);                               \
  TA_REGISTER_GRAD("SigmoidGrad", SigmoidGradF, R);                         \
  TA_REGISTER_GRAD("ReciprocalGrad", ReciprocalGradF, R);                   \
  TA_REGISTER_GRAD("InvGrad", ReciprocalGradF, R);                          \
  TA_REGISTER_GRAD("SqrtGrad", SqrtGradF, R);                               \
  TA_REGISTER_GRAD("RsqrtGrad", RsqrtGradF, R);                             \
  REGISTER_KERNEL(Name("Equal").Device(DEVICE_CPU).TypeConstraint<C<R>>("T"), \
                  cwise::EqualityOp<C<R>, cwise::Equal>);                          \
  REGISTER_KERNEL(Name("NotEqual").Device(DEVICE_CPU).TypeConstraint<C<R>>("T"), \
                  cwise::EqualityOp<C<R>, cwise::NotEqual>);
TA_REGISTER_COMPLEX(float)
TA_REGISTER_COMPLEX(double)
#undef TA_REGISTER_COMPLEX
#undef TA_REGISTER_GRAD
#undef TA_REGISTER_UNARY
#undef TA_REGISTER_BINARY

}  // namespace
}  // namespace tensoract
