// Element-wise arithmetic with broadcasting on the CPU for float, double, int32 and int64:
// Sub, RealDiv, Div, Maximum, Minimum, SquaredDifference, FloorDiv, FloorMod, Pow, DivNoNan
// (functors in cwise_binary_functors.h; the other types in cwise_binary_narrow.cc and
// cwise_binary_half.cc).
#include "kernels/cpu/cwise_binary_functors.h"

namespace tensoract {
namespace {

using namespace cwise;  // NOLINT: the functors this file registers

#define TA_REGISTER_BINARY(OP, F, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, F>)

#define TA_REGISTER_ALL(T)                                      \
  TA_REGISTER_BINARY("Sub", Sub, T);                            \
  TA_REGISTER_BINARY("Div", Div, T);                            \
  TA_REGISTER_BINARY("Maximum", Maximum, T);                    \
  TA_REGISTER_BINARY("Minimum", Minimum, T);                    \
  TA_REGISTER_BINARY("SquaredDifference", SquaredDifference, T); \
  TA_REGISTER_BINARY("FloorDiv", FloorDiv, T);                  \
  TA_REGISTER_BINARY("FloorMod", FloorMod, T);                  \
  TA_REGISTER_BINARY("Pow", Pow, T);
TA_REGISTER_ALL(float)
TA_REGISTER_ALL(double)
TA_REGISTER_ALL(int32_t)
TA_REGISTER_ALL(int64_t)
#undef TA_REGISTER_ALL

TA_REGISTER_BINARY("RealDiv", Div, float);
TA_REGISTER_BINARY("RealDiv", Div, double);
TA_REGISTER_BINARY("DivNoNan", DivNoNan, float);
TA_REGISTER_BINARY("DivNoNan", DivNoNan, double);
#undef TA_REGISTER_BINARY

}  // namespace
}  // namespace tensoract
