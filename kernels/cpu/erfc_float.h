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

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ERFC_FLOAT_H_
