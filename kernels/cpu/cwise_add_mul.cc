// Add, AddV2 and Mul on the CPU.
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

#define TA_REGISTER_ADD_MUL(T)                                                                   \
  REGISTER_KERNEL(Name("Add").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, functor::Add>); \
  REGISTER_KERNEL(Name("AddV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, functor::Add>); \
  REGISTER_KERNEL(Name("Mul").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, functor::Mul>);
TA_REGISTER_ADD_MUL(float)
TA_REGISTER_ADD_MUL(double)
TA_REGISTER_ADD_MUL(int32_t)
TA_REGISTER_ADD_MUL(int64_t)
#undef TA_REGISTER_ADD_MUL

}  // namespace
}  // namespace tensoract
