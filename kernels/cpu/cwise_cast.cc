// Cast on the CPU between bool, uint8, int32, int64, half, bfloat16, float and double: the
// pairs graphs compute in (images' bytes to floats, labels, masks, mixed precision). The
// rules and the kernel are kernels/cpu/cast_op.h; the pairs of the other dtypes (the narrow
// and unsigned integers, complex) are kernels/more_dtypes/cast_more.cc, loaded on demand:
// each pair is a kernel of its own to compile (~62 s for all 225 on a 2-core Zen 3).
#include "kernels/cpu/cast_op.h"

namespace tensoract {
namespace {

TA_REGISTER_CASTS_TO_COMMON(bool)
TA_REGISTER_CASTS_TO_COMMON(uint8_t)
TA_REGISTER_CASTS_TO_COMMON(int32_t)
TA_REGISTER_CASTS_TO_COMMON(int64_t)
TA_REGISTER_CASTS_TO_COMMON(Eigen::half)
TA_REGISTER_CASTS_TO_COMMON(Eigen::bfloat16)
TA_REGISTER_CASTS_TO_COMMON(float)
TA_REGISTER_CASTS_TO_COMMON(double)

}  // namespace
}  // namespace tensoract
