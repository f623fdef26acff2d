// Comparisons with broadcasting on the CPU for the narrow and unsigned integers, half and
// bfloat16, as TensorFlow registers them: Greater, GreaterEqual, Less, LessEqual, Equal,
// NotEqual. half and bfloat16 compare as the floats they are (exact).
#include "kernels/cpu/cwise_compare_ops.h"

namespace tensoract {
namespace {

using namespace cwise;  // NOLINT: the functors this file registers

#define TA_REGISTER_COMPARE(OP, F, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, F, bool>)
#define TA_REGISTER_EQUALITY(T)                                                                      \
  REGISTER_KERNEL(Name("Equal").Device(DEVICE_CPU).TypeConstraint<T>("T"), EqualityOp<T, Equal>);    \
  REGISTER_KERNEL(Name("NotEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"), EqualityOp<T, NotEqual>);
#define TA_REGISTER_ALL(T)                                 \
  TA_REGISTER_COMPARE("Greater", Greater, T);              \
  TA_REGISTER_COMPARE("GreaterEqual", GreaterEqual, T);    \
  TA_REGISTER_COMPARE("Less", Less, T);                    \
  TA_REGISTER_COMPARE("LessEqual", LessEqual, T);          \
  TA_REGISTER_EQUALITY(T)
TA_REGISTER_ALL(int8_t)
TA_REGISTER_ALL(int16_t)
TA_REGISTER_ALL(uint8_t)
TA_REGISTER_ALL(uint16_t)
TA_REGISTER_ALL(uint32_t)
TA_REGISTER_ALL(uint64_t)
#undef TA_REGISTER_ALL

// half and bfloat16 compared as the floats they are (exact).
#define TA_REGISTER_IN_FLOAT(T)                                                                            \
  TA_REGISTER_COMPARE("Greater", InFloat<Greater>, T);                                                     \
  TA_REGISTER_COMPARE("GreaterEqual", InFloat<GreaterEqual>, T);                                           \
  TA_REGISTER_COMPARE("Less", InFloat<Less>, T);                                                           \
  TA_REGISTER_COMPARE("LessEqual", InFloat<LessEqual>, T);                                                 \
  REGISTER_KERNEL(Name("Equal").Device(DEVICE_CPU).TypeConstraint<T>("T"), EqualityOp<T, InFloat<Equal>>); \
  REGISTER_KERNEL(Name("NotEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"), EqualityOp<T, InFloat<NotEqual>>);
TA_REGISTER_IN_FLOAT(Eigen::half)
TA_REGISTER_IN_FLOAT(Eigen::bfloat16)
#undef TA_REGISTER_IN_FLOAT
#undef TA_REGISTER_EQUALITY
#undef TA_REGISTER_COMPARE

}  // namespace
}  // namespace tensoract
