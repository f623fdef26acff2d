// Cast on the CPU to or from uint16, uint32, uint64, int8, int16, complex64 and complex128
// (kernels/cpu/cast_op.h's rules): the pairs kernels/cpu/cwise_cast.cc leaves to this
// library, which the registry loads on demand.
#include "kernels/cpu/cast_op.h"

namespace tensoract {
namespace {

TA_REGISTER_CASTS_TO_OTHERS(bool)
TA_REGISTER_CASTS_TO_OTHERS(uint8_t)
TA_REGISTER_CASTS_TO_OTHERS(int32_t)
TA_REGISTER_CASTS_TO_OTHERS(int64_t)
TA_REGISTER_CASTS_TO_OTHERS(Eigen::half)
TA_REGISTER_CASTS_TO_OTHERS(Eigen::bfloat16)
TA_REGISTER_CASTS_TO_OTHERS(float)
TA_REGISTER_CASTS_TO_OTHERS(double)
TA_REGISTER_CASTS_TO_COMMON(uint16_t)
TA_REGISTER_CASTS_TO_OTHERS(uint16_t)
TA_REGISTER_CASTS_TO_COMMON(uint32_t)
TA_REGISTER_CASTS_TO_OTHERS(uint32_t)
TA_REGISTER_CASTS_TO_COMMON(uint64_t)
TA_REGISTER_CASTS_TO_OTHERS(uint64_t)
TA_REGISTER_CASTS_TO_COMMON(int8_t)
TA_REGISTER_CASTS_TO_OTHERS(int8_t)
TA_REGISTER_CASTS_TO_COMMON(int16_t)
TA_REGISTER_CASTS_TO_OTHERS(int16_t)
TA_REGISTER_CASTS_TO_COMMON(complex64)
TA_REGISTER_CASTS_TO_OTHERS(complex64)
TA_REGISTER_CASTS_TO_COMMON(complex128)
TA_REGISTER_CASTS_TO_OTHERS(complex128)

}  // namespace
}  // namespace tensoract
