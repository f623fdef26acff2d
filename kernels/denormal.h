// Kernels run with denormal floats flushed to zero, as TensorFlow's do (its executor wraps
// every kernel in port::ScopedFlushDenormal and its pool threads start with flushing on).
// Besides matching TensorFlow's values, this keeps training fast: once a model fits, Adam's
// second moments and tiny gradients fall into the denormal range, where x86 arithmetic takes
// ~100 cycles an instruction (an MLP step here went from 1.3 ms to 2.5 ms that way).
#ifndef TENSORACT_KERNELS_DENORMAL_H_
#define TENSORACT_KERNELS_DENORMAL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tensoract {

// Sets flush-to-zero and denormals-are-zero on the calling thread (a no-op off x86).
void FlushDenormalsOnThisThread();

// Flushes denormals for its lifetime, then restores the thread's previous mode, so that
// non-kernel code sharing the thread (actors, the client) keeps IEEE behaviour.
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal();
  ~ScopedFlushDenormal();
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
  unsigned int saved_mode_;
};

// `x`, or a zero of its sign when `x` is denormal: what SSE arithmetic under DAZ reads, for
// scalar code that inspects a float's bits instead (the C library's log and pow). Tested on
// the bits: under DAZ, std::fpclassify's comparisons see a denormal as zero.
template <class T>
T DenormalAsZero(T x) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr int kMantissa = std::numeric_limits<T>::digits - 1;
  constexpr Bits kExponent = ((Bits(1) << (sizeof(T) * 8 - 1 - kMantissa)) - 1) << kMantissa;
  Bits bits;
  std::memcpy(&bits, &x, sizeof(T));
  if ((bits & kExponent) != 0 || (bits & ((Bits(1) << kMantissa) - 1)) == 0) return x;
  return std::signbit(x) ? T(-0.0) : T(0.0);
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_DENORMAL_H_
