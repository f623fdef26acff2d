// Scalar complex arithmetic as TensorFlow's Eigen computes it (its wheel's, newer than
// Debian's): the vector product without FMA, its hypot and its complex square root. Shared by
// the element-wise complex kernels (cwise_complex.cc) and EuclideanNorm
// (reduction_ops_euclidean.cc). A file that needs the products rounded as TensorFlow rounds
// them compiles with -ffp-contract=off (kernels/CMakeLists.txt).
#ifndef TENSORACT_KERNELS_CPU_COMPLEX_MATH_H_
#define TENSORACT_KERNELS_CPU_COMPLEX_MATH_H_

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

namespace tensoract {
namespace complex_math {

// Eigen's vector product: (ac - bd, ad + bc), each product rounded, no recovery of
// infinities (inf * (1 + 0i) is NaN + NaN i).
template <class R>
std::complex<R> VectorMul(std::complex<R> a, std::complex<R> b) {
  const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const R rr = ar * br, ii = ai * bi, ri = ar * bi, ir = ai * br;
  return {rr - ii, ri + ir};
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

}  // namespace complex_math
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_COMPLEX_MATH_H_
