// IsNan, IsInf and IsFinite on the CPU: bool outputs, for float, double, half and bfloat16.
// half and bfloat16 are classified as the floats they widen to (exactly). A denormal is
// finite and not NaN: the classification reads the bits, never the DAZ arithmetic.
#include <cmath>

#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

struct IsNan : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.isNaN(); }
};
struct IsInf : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.isInf(); }
};
struct IsFinite : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.isFinite(); }
};

#define TA_REGISTER_CLASS(T, F)                                                                 \
  REGISTER_KERNEL(Name("IsNan").Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, F<IsNan>, bool>); \
  REGISTER_KERNEL(Name("IsInf").Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, F<IsInf>, bool>); \
  REGISTER_KERNEL(Name("IsFinite").Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, F<IsFinite>, bool>);

template <class G>
using Direct = G;
TA_REGISTER_CLASS(float, Direct)
TA_REGISTER_CLASS(double, Direct)
TA_REGISTER_CLASS(Eigen::half, InFloat)
TA_REGISTER_CLASS(Eigen::bfloat16, InFloat)
#undef TA_REGISTER_CLASS

}  // namespace
}  // namespace tensoract
