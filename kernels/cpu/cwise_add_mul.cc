// Add, AddV2 and Mul on the CPU, for TensorFlow's number types (not complex).
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

#define TA_REGISTER_ADD_MUL(T)                                                                   \
  REGISTER_KERNEL(Name("Add").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, functor::Add>); \
  REGISTER_KERNEL(Name("AddV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, functor::Add>); \
  REGISTER_KERNEL(Name("Mul").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, functor::Mul>);
TA_REGISTER_ADD_MUL(float)
TA_REGISTER_ADD_MUL(double)
TA_REGISTER_ADD_MUL(int8_t)
TA_REGISTER_ADD_MUL(int16_t)
TA_REGISTER_ADD_MUL(int32_t)
TA_REGISTER_ADD_MUL(int64_t)
TA_REGISTER_ADD_MUL(uint8_t)
#undef TA_REGISTER_ADD_MUL

// TensorFlow's Add (the v1 op) has no kernels for the wider unsigned types; AddV2 and Mul do.
#define TA_REGISTER_V2_MUL(T)                                                                    \
  REGISTER_KERNEL(Name("AddV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, functor::Add>); \
  REGISTER_KERNEL(Name("Mul").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, functor::Mul>);
TA_REGISTER_V2_MUL(uint16_t)
TA_REGISTER_V2_MUL(uint32_t)
TA_REGISTER_V2_MUL(uint64_t)
#undef TA_REGISTER_V2_MUL

// half and bfloat16 in float, rounded once per element.
#define TA_REGISTER_ADD_MUL_IN_FLOAT(T)                                                                     \
  REGISTER_KERNEL(Name("Add").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, InFloat<functor::Add>>);   \
  REGISTER_KERNEL(Name("AddV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, InFloat<functor::Add>>); \
  REGISTER_KERNEL(Name("Mul").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, InFloat<functor::Mul>>);
TA_REGISTER_ADD_MUL_IN_FLOAT(Eigen::half)
TA_REGISTER_ADD_MUL_IN_FLOAT(Eigen::bfloat16)
#undef TA_REGISTER_ADD_MUL_IN_FLOAT

}  // namespace
}  // namespace tensoract
