// Element-wise arithmetic with broadcasting on the CPU for the narrow and unsigned integers,
// as TensorFlow registers them: Sub, Div, Maximum, Minimum, FloorDiv, FloorMod for int8,
// int16, uint8, uint16, uint32 and uint64, Pow for int8 and int16 (no unsigned Pow, and no
// SquaredDifference of these, in TensorFlow). Results wrap as the type does.
#include "kernels/cpu/cwise_binary_functors.h"

namespace tensoract {
namespace {

using namespace cwise;  // NOLINT: the functors this file registers

#define TA_REGISTER_BINARY(OP, F, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, F>)

#define TA_REGISTER_INTEGER(T)                 \
  TA_REGISTER_BINARY("Sub", Sub, T);           \
  TA_REGISTER_BINARY("Div", Div, T);           \
  TA_REGISTER_BINARY("Maximum", Maximum, T);   \
  TA_REGISTER_BINARY("Minimum", Minimum, T);   \
  TA_REGISTER_BINARY("FloorDiv", FloorDiv, T); \
  TA_REGISTER_BINARY("FloorMod", FloorMod, T);
TA_REGISTER_INTEGER(int8_t)
TA_REGISTER_INTEGER(int16_t)
TA_REGISTER_INTEGER(uint8_t)
TA_REGISTER_INTEGER(uint16_t)
TA_REGISTER_INTEGER(uint32_t)
TA_REGISTER_INTEGER(uint64_t)
#undef TA_REGISTER_INTEGER
TA_REGISTER_BINARY("Pow", Pow, int8_t);
TA_REGISTER_BINARY("Pow", Pow, int16_t);
#undef TA_REGISTER_BINARY

}  // namespace
}  // namespace tensoract
