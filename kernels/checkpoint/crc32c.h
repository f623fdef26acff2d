// CRC32C (Castagnoli), the checksum of LevelDB tables and TensorFlow checkpoints.
//
// Value(data, n) is the standard CRC-32C (Value("123456789") == 0xe3069283); Extend
// continues a CRC over more bytes, so Extend(Value(a), b) == Value(a + b). A CRC stored
// next to the data it covers is Mask()ed first: the CRC of a string that itself contains
// CRCs is otherwise prone to degenerate values.
//
// Thread-safety: pure functions.
#ifndef TENSORACT_KERNELS_CHECKPOINT_CRC32C_H_
#define TENSORACT_KERNELS_CHECKPOINT_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace tensoract {
namespace crc32c {

uint32_t Extend(uint32_t crc, const char* data, size_t n);
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace crc32c
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CHECKPOINT_CRC32C_H_
