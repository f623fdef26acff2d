// Scalar complex arithmetic as TensorFlow's Eigen computes it (its wheel's, newer than
// Debian's): the vector and scalar products and quotients without FMA, its hypot and its
// vector and scalar complex square roots, and which elements of an output its vectors
// cover. Shared by the element-wise complex kernels (cwise_complex.cc), EuclideanNorm
// (reduction_ops_euclidean.cc) and the optimizer updates (training_ops.cc). A file that needs
// the products rounded as TensorFlow rounds them compiles with -ffp-contract=off
// (kernels/CMakeLists.txt), and so the functions here have internal linkage: each file keeps
// its own copies, compiled with its own flags (with external linkage the dynamic linker binds
// every library's calls to one copy, and a kernel library loaded on demand rounded with the
// core's training_ops.cc copies: complex Sqrt an ulp off TensorFlow).
#ifndef TENSORACT_KERNELS_CPU_COMPLEX_MATH_H_
#define TENSORACT_KERNELS_CPU_COMPLEX_MATH_H_

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

namespace tensoract {
namespace complex_math {
namespace {

// Elements per vector in TensorFlow's Eigen (256-bit AVX): 4 complex64, 2 complex128.
template <class R>
constexpr int64_t kLanes = 32 / static_cast<int64_t>(sizeof(std::complex<R>));

// The first index that takes the scalar forms in an output of n elements.
template <class R>
int64_t VectorEnd(int64_t n) { return n - n % kLanes<R>; }


// Eigen's vector product: (ac - bd, ad + bc), each product rounded, no recovery of
// infinities (inf * (1 + 0i) is NaN + NaN i).
template <class R>
std::complex<R> VectorMul(std::complex<R> a, std::complex<R> b) {
  const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const R rr = ar * br, ii = ai * bi, ri = ar * bi, ir = ai * br;
  return {rr - ii, ri + ir};
}

// Eigen's pdiv_complex: the divisor scaled by max(|c|, |d|) before its squared norm.
template <class R>
std::complex<R> VectorDiv(std::complex<R> a, std::complex<R> b) {
  const R m = std::max(std::abs(b.real()), std::abs(b.imag()));
  const R c = b.real() / m, d = b.imag() / m;
  const R denom = c * c + d * d;
  const std::complex<R> scaled = VectorMul(a, std::complex<R>(c, -d));
  return {scaled.real() / denom / m, scaled.imag() / denom / m};
}

// The scalar quotient of TensorFlow's wheel: Smith's algorithm (the divisor's smaller part
// over its larger), with C's recovery of infinities and zeros where both parts are NaN.
template <class R>
std::complex<R> ScalarDiv(std::complex<R> z, std::complex<R> w) {
  R a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  R re, im, denom;
  if (std::abs(c) >= std::abs(d)) {
    const R ratio = d / c;
    denom = c + d * ratio;
    re = (a + b * ratio) / denom;
    im = (b - a * ratio) / denom;
  } else {
    const R ratio = c / d;
    denom = c * ratio + d;
    re = (a * ratio + b) / denom;
    im = (b * ratio - a) / denom;
  }
  if (std::isnan(re) && std::isnan(im)) {
    const R inf = std::numeric_limits<R>::infinity();
    if (c == R(0) && d == R(0) && (!std::isnan(a) || !std::isnan(b))) {
      re = std::copysign(inf, c) * a;
      im = std::copysign(inf, c) * b;
    } else if ((std::isinf(a) || std::isinf(b)) && std::isfinite(c) && std::isfinite(d)) {
      a = std::copysign(std::isinf(a) ? R(1) : R(0), a);
      b = std::copysign(std::isinf(b) ? R(1) : R(0), b);
      re = inf * (a * c + b * d);
      im = inf * (b * c - a * d);
    } else if ((std::isinf(c) || std::isinf(d)) && std::isfinite(a) && std::isfinite(b)) {
      c = std::copysign(std::isinf(c) ? R(1) : R(0), c);
      d = std::copysign(std::isinf(d) ? R(1) : R(0), d);
      re = R(0) * (a * c + b * d);
      im = R(0) * (b * c - a * d);
    }
  }
  return {re, im};
}

// Eigen's hypot: max * sqrt(1 + (min / max)^2), infinities first, then NaN.
template <class R>
R Hypot(R x, R y) {
  x = std::abs(x);
  y = std::abs(y);
  if (std::isinf(x) || std::isinf(y)) return std::numeric_limits<R>::infinity();
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<R>::quiet_NaN();
  const R p = std::max(x, y);
  if (p == R(0)) return R(0);
  const R qp = std::min(y, x) / p;
  return p * std::sqrt(R(1) + qp * qp);
}

// Eigen's scalar complex square root (complex_sqrt): w = sqrt((|x| + |z|) / 2), the other
// part y / 2w, C's answers at infinities.
template <class R>
std::complex<R> Sqrt(std::complex<R> z) {
  const R x = z.real(), y = z.imag();
  const R w = std::sqrt(R(0.5) * (std::abs(x) + Hypot(x, y)));
  if (std::isinf(y)) return {std::numeric_limits<R>::infinity(), y};
  if (x == R(0)) return {w, y < R(0) ? -w : w};
  if (x > R(0)) return {w, y / (2 * w)};
  return {std::abs(y) / (2 * w), y < R(0) ? -w : w};
}

// Eigen's vector square root (psqrt_complex), one element: l = |z| by the scaled formula
// (max itself where min is zero), rho = sqrt((|x| + l) / 2), eta = y / rho / 2; x < 0 swaps
// them; infinities as C says.
template <class R>
std::complex<R> VectorSqrt(std::complex<R> z) {
  const R x = z.real(), y = z.imag();
  const R ax = std::abs(x), ay = std::abs(y);
  const R mx = std::max(ax, ay), mn = std::min(ax, ay);
  const R r = mn / mx;
  const R l = mn == R(0) ? mx : mx * std::sqrt(R(1) + r * r);
  const R rho = std::sqrt(R(0.5) * (ax + l));
  const R eta = mx == R(0) ? R(0) : R(0.5) * (y / rho);
  const R inf = std::numeric_limits<R>::infinity();
  if (std::isinf(ay)) return {inf, y};
  if (std::isinf(ax)) return x < R(0) ? std::complex<R>(ay * R(0), inf) : std::complex<R>(inf, ay * R(0));
  if (std::isnan(x) || std::isnan(y)) return {std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN()};
  const std::complex<R> result = x < R(0) ? std::complex<R>(std::abs(eta), std::copysign(rho, y))
                                          : std::complex<R>(rho, eta);
  return result;
}

}  // namespace
}  // namespace complex_math
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_COMPLEX_MATH_H_
