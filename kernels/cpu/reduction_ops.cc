// Reductions on the CPU for float, double, int32 and int64 (Sum, Mean, Prod, Max, Min) and
// bool (All, Any); the kernel is in reduction_ops.h, the other types in
// reduction_ops_small.cc.
#include "kernels/cpu/reduction_ops.h"

namespace tensoract {
namespace reduction {

// The floating reductions every file uses (see reduction_ops.h).
TA_REDUCE_GROUPS_FLOATING(, float);
TA_REDUCE_GROUPS_FLOATING(, double);

}  // namespace reduction
namespace {

using namespace reduction;  // NOLINT: the kernel and finishers this file registers

#define TA_REGISTER_REDUCTION(NAME, T, ...) \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), ReductionOp<T, __VA_ARGS__>)

#define TA_REGISTER_NUMERIC(T)                                       \
  TA_REGISTER_REDUCTION("Sum", T, Eigen::internal::SumReducer<T>);   \
  TA_REGISTER_REDUCTION("Prod", T, Eigen::internal::ProdReducer<T>); \
  TA_REGISTER_REDUCTION("Max", T, MaxPropagatingNaN<T>);             \
  TA_REGISTER_REDUCTION("Min", T, MinPropagatingNaN<T>);
TA_REGISTER_NUMERIC(float)
TA_REGISTER_NUMERIC(double)
TA_REGISTER_NUMERIC(int32_t)
TA_REGISTER_NUMERIC(int64_t)
#undef TA_REGISTER_NUMERIC

TA_REGISTER_REDUCTION("Mean", float, Eigen::internal::SumReducer<float>, FloatDivideByCount);
TA_REGISTER_REDUCTION("Mean", double, Eigen::internal::SumReducer<double>, FloatDivideByCount);
TA_REGISTER_REDUCTION("Mean", int32_t, Eigen::internal::SumReducer<int64_t>, DivideByCount, int64_t);
TA_REGISTER_REDUCTION("Mean", int64_t, Eigen::internal::SumReducer<int64_t>, DivideByCount);

REGISTER_KERNEL(Name("All").Device(DEVICE_CPU), ReductionOp<bool, Eigen::internal::AndReducer>);
REGISTER_KERNEL(Name("Any").Device(DEVICE_CPU), ReductionOp<bool, Eigen::internal::OrReducer>);
#undef TA_REGISTER_REDUCTION

}  // namespace
}  // namespace tensoract
