// erfc of float elements, vectorised: exact GELU (Keras' default activation, written by
// TensorFlow as 0.5 x erfc(-x / sqrt 2)) spends most of a transformer's or ConvNeXt's
// element-wise time here, and the C library's erfcf goes one element at a time.
#ifndef TENSORACT_KERNELS_CPU_ERFC_FLOAT_H_
#define TENSORACT_KERNELS_CPU_ERFC_FLOAT_H_

#include <cstdint>

namespace tensoract {

// y[i] = erfc(x[i]) for i < n (y may be x). Within one ulp of the true value (the same as the
// C library's erfcf to the last bit but for about one element in 10^5; tests/kernels), NaN
// for NaN, 2 and 0 at the infinities, and denormal results flushed to zero as TensorFlow's
// kernels flush them. An element's result does not depend on its neighbours or on n.
void ErfcFloat(const float* x, float* y, int64_t n);

// Exact GELU, x = 0.5 x (1 + erf(x / sqrt 2)), in place, in float with Eigen's vectorised
// erf: within 3e-7 of max(1, |x|) of the true value (2.6e-7 at worst, near x = 5.65, where
// Eigen's erf stops), not within an ulp.
// For products whose operands were rounded to bfloat16 (4e-3 relative already): there
// ErfcFloat, in double to keep its ulp, was a third of ConvNeXtTiny's batch-1 step (2.35
// ns an element on a Zen 4 core against 0.32 here).
void GeluExactFast(float* x, int64_t n);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ERFC_FLOAT_H_
