#include "kernels/cpu/erfc_float.h"

#include <algorithm>
#include <limits>

#include <Eigen/Core>

namespace tensoract {
namespace {

// erfc(x) = exp(-x^2) erfcx(|x|) for x >= 0, and 2 - erfc(-x) below. erfcx, the scaled
// function, is smooth and slowly varying: a polynomial of degree 12 in u = (1 - a x) / (1 + a x)
// (which maps [0, inf) onto (-1, 1]) gives it within 4.4e-11 relative on [0, 10.5], fitted by
// tests/compat/fit_erfc_float.py (least squares of the relative error against mpmath's
// erfc at 40 digits). Everything is computed in double, where x^2 of a float is exact and
// the rounding errors stay far below a float's half ulp (3e-8), then rounded once.
// Beyond 10.5 erfc is below float's smallest normal (erfc(9.2) already is): 0.
constexpr double kScale = 0.4;  // a
constexpr double kLargest = 10.5;
constexpr double kCoefficients[] = {  // of u^0 .. u^12
    0x1.afbb3f3b63f25p-3,  0x1.7ca88dead31abp-2,  0x1.01c11a75234d6p-2,  0x1.001154cea64bcp-3,
    0x1.470ba23fe6754p-5,  0x1.05ba01bbf4a1ap-8,  -0x1.5a57ba390c6e5p-9, -0x1.caf9d43a8ffdcp-11,
    0x1.df0f6e44ad6a6p-13, 0x1.0aa921b5daaa1p-13, -0x1.1c6c8869f836ep-15, -0x1.04661d9ef5295p-16,
    0x1.9b957ca28d94dp-18,
};
constexpr int kDegree = 12;

// Elements go through fixed-size blocks, the last one padded: every element takes the same
// vector instructions wherever it lies (a tail element on a scalar path could differ in
// its last bit from the same value inside a block).
constexpr int kBlock = 64;
using Block = Eigen::Array<double, kBlock, 1>;

void ErfcBlock(const float* x, float* y, int n) {
  Block v;
  for (int i = 0; i < n; ++i) v[i] = x[i];
  for (int i = n; i < kBlock; ++i) v[i] = 0.0;
  const Block ax = v.abs().min(kLargest);
  const Block u = (1.0 - kScale * ax) / (1.0 + kScale * ax);
  Block p = Block::Constant(kCoefficients[kDegree]);
  for (int k = kDegree - 1; k >= 0; --k) p = p * u + kCoefficients[k];
  Block r = (-(ax * ax)).exp() * p;
  r = (v < 0.0).select(2.0 - r, r);
  // Denormal results are flushed whatever the thread's floating-point mode.
  r = (r < static_cast<double>(std::numeric_limits<float>::min())).select(0.0, r);
  for (int i = 0; i < n; ++i) y[i] = x[i] != x[i] ? x[i] : static_cast<float>(r[i]);
}

}  // namespace

void ErfcFloat(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += kBlock) {
    ErfcBlock(x + i, y + i, static_cast<int>(std::min<int64_t>(kBlock, n - i)));
  }
}

}  // namespace tensoract
