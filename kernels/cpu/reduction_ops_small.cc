// Reductions on the CPU for the narrow and unsigned integers, half and bfloat16, as
// TensorFlow 2.21's CPU kernels: Sum, Prod, Max and Min of an integer in its own type
// (wrapping); Mean of an integer summed in int64 or uint64 and divided there, then narrowed
// (TensorFlow's CASTING_SPECIALIZATION); half and bfloat16 reduced in float and rounded once.
#include "kernels/cpu/reduction_ops.h"

namespace tensoract {
namespace {

using namespace reduction;  // NOLINT: the kernel and finishers this file registers

#define TA_REGISTER_REDUCTION(NAME, T, ...) \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), ReductionOp<T, __VA_ARGS__>)

#define TA_REGISTER_INTEGER(T, WIDE)                                                        \
  TA_REGISTER_REDUCTION("Sum", T, Eigen::internal::SumReducer<T>);                          \
  TA_REGISTER_REDUCTION("Prod", T, Eigen::internal::ProdReducer<T>);                        \
  TA_REGISTER_REDUCTION("Max", T, MaxPropagatingNaN<T>);     \
  TA_REGISTER_REDUCTION("Min", T, MinPropagatingNaN<T>);     \
  TA_REGISTER_REDUCTION("Mean", T, Eigen::internal::SumReducer<WIDE>, DivideByCount, WIDE);
TA_REGISTER_INTEGER(int8_t, int64_t)
TA_REGISTER_INTEGER(int16_t, int64_t)
TA_REGISTER_INTEGER(uint8_t, uint64_t)
TA_REGISTER_INTEGER(uint16_t, uint64_t)
TA_REGISTER_INTEGER(uint32_t, uint64_t)
#undef TA_REGISTER_INTEGER
TA_REGISTER_REDUCTION("Sum", uint64_t, Eigen::internal::SumReducer<uint64_t>);
TA_REGISTER_REDUCTION("Prod", uint64_t, Eigen::internal::ProdReducer<uint64_t>);
TA_REGISTER_REDUCTION("Max", uint64_t, MaxPropagatingNaN<uint64_t>);
TA_REGISTER_REDUCTION("Min", uint64_t, MinPropagatingNaN<uint64_t>);
TA_REGISTER_REDUCTION("Mean", uint64_t, Eigen::internal::SumReducer<uint64_t>, DivideByCount);

#define TA_REGISTER_IN_FLOAT(T)                                                                             \
  TA_REGISTER_REDUCTION("Sum", T, Eigen::internal::SumReducer<float>, NoFinish, float);                    \
  TA_REGISTER_REDUCTION("Prod", T, Eigen::internal::ProdReducer<float>, NoFinish, float);                  \
  TA_REGISTER_REDUCTION("Max", T, MaxPropagatingNaN<float>, NoFinish, float); \
  TA_REGISTER_REDUCTION("Min", T, MinPropagatingNaN<float>, NoFinish, float); \
  TA_REGISTER_REDUCTION("Mean", T, Eigen::internal::SumReducer<float>, FloatDivideByCount, float);
TA_REGISTER_IN_FLOAT(Eigen::half)
TA_REGISTER_IN_FLOAT(Eigen::bfloat16)
#undef TA_REGISTER_IN_FLOAT
#undef TA_REGISTER_REDUCTION

}  // namespace
}  // namespace tensoract
