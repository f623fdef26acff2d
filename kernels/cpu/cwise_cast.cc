// Cast on the CPU between bool, uint8, int32, int64, half, bfloat16, float and double: the
// pairs graphs compute in (images' bytes to floats, labels, masks, mixed precision). The
// rules and the kernel are kernels/cpu/cast_op.h; the pairs of the other dtypes (the narrow
// and unsigned integers, complex) are kernels/more_dtypes/cast_more.cc, loaded on demand:
// each pair is a kernel of its own to compile (~62 s for all 225 on a 2-core Zen 3).
#include "kernels/cpu/cast_op.h"

namespace tensoract {
namespace {

TA_REGISTER_CAST(bool, bool);
TA_REGISTER_CAST(bool, uint8_t);
TA_REGISTER_CAST(bool, int32_t);
TA_REGISTER_CAST(bool, int64_t);
TA_REGISTER_CAST(bool, Eigen::half);
TA_REGISTER_CAST(bool, Eigen::bfloat16);
TA_REGISTER_CAST(bool, float);
TA_REGISTER_CAST(bool, double);
TA_REGISTER_CAST(uint8_t, bool);
TA_REGISTER_CAST(uint8_t, uint8_t);
TA_REGISTER_CAST(uint8_t, int32_t);
TA_REGISTER_CAST(uint8_t, int64_t);
TA_REGISTER_CAST(uint8_t, Eigen::half);
TA_REGISTER_CAST(uint8_t, Eigen::bfloat16);
TA_REGISTER_CAST(uint8_t, float);
TA_REGISTER_CAST(uint8_t, double);
TA_REGISTER_CAST(int32_t, bool);
TA_REGISTER_CAST(int32_t, uint8_t);
TA_REGISTER_CAST(int32_t, int32_t);
TA_REGISTER_CAST(int32_t, int64_t);
TA_REGISTER_CAST(int32_t, Eigen::half);
TA_REGISTER_CAST(int32_t, Eigen::bfloat16);
TA_REGISTER_CAST(int32_t, float);
TA_REGISTER_CAST(int32_t, double);
TA_REGISTER_CAST(int64_t, bool);
TA_REGISTER_CAST(int64_t, uint8_t);
TA_REGISTER_CAST(int64_t, int32_t);
TA_REGISTER_CAST(int64_t, int64_t);
TA_REGISTER_CAST(int64_t, Eigen::half);
TA_REGISTER_CAST(int64_t, Eigen::bfloat16);
TA_REGISTER_CAST(int64_t, float);
TA_REGISTER_CAST(int64_t, double);
TA_REGISTER_CAST(Eigen::half, bool);
TA_REGISTER_CAST(Eigen::half, uint8_t);
TA_REGISTER_CAST(Eigen::half, int32_t);
TA_REGISTER_CAST(Eigen::half, int64_t);
TA_REGISTER_CAST(Eigen::half, Eigen::half);
TA_REGISTER_CAST(Eigen::half, Eigen::bfloat16);
TA_REGISTER_CAST(Eigen::half, float);
TA_REGISTER_CAST(Eigen::half, double);
TA_REGISTER_CAST(Eigen::bfloat16, bool);
TA_REGISTER_CAST(Eigen::bfloat16, uint8_t);
TA_REGISTER_CAST(Eigen::bfloat16, int32_t);
TA_REGISTER_CAST(Eigen::bfloat16, int64_t);
TA_REGISTER_CAST(Eigen::bfloat16, Eigen::half);
TA_REGISTER_CAST(Eigen::bfloat16, Eigen::bfloat16);
TA_REGISTER_CAST(Eigen::bfloat16, float);
TA_REGISTER_CAST(Eigen::bfloat16, double);
TA_REGISTER_CAST(float, bool);
TA_REGISTER_CAST(float, uint8_t);
TA_REGISTER_CAST(float, int32_t);
TA_REGISTER_CAST(float, int64_t);
TA_REGISTER_CAST(float, Eigen::half);
TA_REGISTER_CAST(float, Eigen::bfloat16);
TA_REGISTER_CAST(float, float);
TA_REGISTER_CAST(float, double);
TA_REGISTER_CAST(double, bool);
TA_REGISTER_CAST(double, uint8_t);
TA_REGISTER_CAST(double, int32_t);
TA_REGISTER_CAST(double, int64_t);
TA_REGISTER_CAST(double, Eigen::half);
TA_REGISTER_CAST(double, Eigen::bfloat16);
TA_REGISTER_CAST(double, float);
TA_REGISTER_CAST(double, double);

}  // namespace
}  // namespace tensoract
