// Sigmoid and Swish on bfloat16 values in place, sixteen at a time with AVX-512: what follows
// a oneDNN convolution in bfloat16 (FusedEpilogue::ActivateBfloat16Bits, called by
// OnednnConv), EfficientNet's activation after nearly every convolution.
//
// Widening to float, Eigen's logistic and rounding back through a buffer cost 0.65 ns an
// element on a Zen 4, as much as the 1x1 convolution before it; this reads the bits, computes
// e^-x from a degree-4 polynomial of 2^f, takes 1 / (1 + e^-x) from the reciprocal's
// estimate, and rounds in registers: 0.24 ns an element, 6e-5 relative before the rounding to
// bfloat16 (whose half step is 2e-3), so that 99.96% of the results are the exactly rounded
// value and the rest one step off.
#ifndef TENSORACT_KERNELS_CPU_LOGISTIC_BFLOAT16_H_
#define TENSORACT_KERNELS_CPU_LOGISTIC_BFLOAT16_H_

#include <cstdint>

namespace tensoract {

// x[i] = sigmoid(x[i]), or x[i] * sigmoid(x[i]) with `times_input` (Swish), for n bfloat16
// values given as bits, each rounded to the nearest bfloat16 (a tie to even). NaN stays NaN;
// x below -87, whose sigmoid is under the smallest normal float, gets a sigmoid of at most
// twice that (its Swish x times it). False, computing nothing, in a build without AVX-512:
// FusedEpilogue then widens a chunk at a time and takes Eigen's logistic, as for Tanh.
bool LogisticBfloat16Bits(uint16_t* x, int64_t n, bool times_input);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_LOGISTIC_BFLOAT16_H_
