// How TensorFlow's stateless random ops turn their seed into a generator, so that a seed
// gives TensorFlow's numbers.
//
// StatelessRandomUniform and the other V1 ops take a seed pair [seed0, seed1] (int32 values
// sign-extended to 64 bits). The pair is encrypted once with Philox under a fixed key; the
// first two words of the result become the key, the last two the counter's high half (its
// low half 0), so every bit of either seed reaches every output. The V2 ops take that key
// and counter directly (StatelessRandomGetKeyCounter makes them from a seed): the key as one
// uint64, the counter as two, each low word first.
#ifndef TENSORACT_KERNELS_RANDOM_STATELESS_H_
#define TENSORACT_KERNELS_RANDOM_STATELESS_H_

#include <cstdint>

#include "kernels/random/philox.h"

namespace tensoract {
namespace random {

// TensorFlow's algorithm ids (framework/rng_alg.h): the `alg` input of the V2 ops.
inline constexpr int kRngAlgPhilox = 1;
inline constexpr int kRngAlgThreeFry = 2;  // not implemented on TensorFlow's CPU either
inline constexpr int kRngAlgAutoSelect = 3;  // Philox on the CPU

inline uint32_t Low(uint64_t x) { return static_cast<uint32_t>(x); }
inline uint32_t High(uint64_t x) { return static_cast<uint32_t>(x >> 32); }
inline uint64_t Join(uint32_t low, uint32_t high) { return low | static_cast<uint64_t>(high) << 32; }

inline Philox GeneratorFromSeed(uint64_t seed0, uint64_t seed1) {
  constexpr Philox::Key kScrambleKey = {0x3ec8f720, 0x02461e29};
  Philox scramble({Low(seed0), High(seed0), Low(seed1), High(seed1)}, kScrambleKey);
  const Philox::Result mix = scramble();
  return Philox({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
}

inline Philox GeneratorFromKeyCounter(uint64_t key, uint64_t counter0, uint64_t counter1) {
  return Philox({Low(counter0), High(counter0), Low(counter1), High(counter1)}, {Low(key), High(key)});
}

}  // namespace random
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_RANDOM_STATELESS_H_
