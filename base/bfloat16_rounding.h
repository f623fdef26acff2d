// float to bfloat16 rounding, shared by Cast (kernels/cpu/cast_op.h), the bfloat16
// products (kernels/cpu/bfloat16_products.cc) and Range's shape function
// (graph/ops/array_slice_ops.cc), so that each rounds as Cast does.
#ifndef TENSORACT_BASE_BFLOAT16_ROUNDING_H_
#define TENSORACT_BASE_BFLOAT16_ROUNDING_H_

#include <cstdint>

namespace tensoract {

// The bfloat16 bits nearest the float of `bits`, a tie to the even one, as TensorFlow's Cast
// rounds: adding 0x7FFF rounds up exactly when the dropped half is above one half, and the
// kept half's lowest bit breaks a tie. An overflow carries into the exponent, which is right
// (the largest finite floats round to infinity). A NaN, whose payload could round to
// infinity, becomes the quiet NaN of its sign. Branch-free, so that loops of it vectorise.
inline uint16_t RoundedBfloat16Bits(uint32_t bits) {
  const uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  const bool nan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
  return static_cast<uint16_t>(nan ? ((bits >> 16) & 0x8000u) | 0x7FC0u : rounded);
}

}  // namespace tensoract

#endif  // TENSORACT_BASE_BFLOAT16_ROUNDING_H_
