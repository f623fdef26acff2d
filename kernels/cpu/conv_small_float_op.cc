// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter for half and bfloat16 on the CPU, as
// TensorFlow's CPU kernels claim them: the float kernel of the same node on widened copies
// of the T inputs, its outputs rounded once to T. (bfloat16's Conv2D runs on oneDNN's
// bfloat16 kernels where the CPU has them, as TensorFlow's oneDNN build does: conv_bfloat16_op.cc.) TensorFlow's Eigen convolutions in T round
// their sums as they go; both are within the summation bound the differential harness
// holds them to (tests/compat/fidelity_catalogue_nn.py).
#include <Eigen/Core>

#include "kernels/cpu/via_float_op.h"

namespace tensoract {
namespace {

#define TA_REGISTER_VIA_FLOAT(OP, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), ViaFloatOp<T>)
#define TA_REGISTER_GRADS_VIA_FLOAT(T)                  \
  TA_REGISTER_VIA_FLOAT("Conv2DBackpropInput", T);      \
  TA_REGISTER_VIA_FLOAT("Conv2DBackpropFilter", T)
TA_REGISTER_VIA_FLOAT("Conv2D", Eigen::half);
TA_REGISTER_GRADS_VIA_FLOAT(Eigen::half);
TA_REGISTER_GRADS_VIA_FLOAT(Eigen::bfloat16);
#undef TA_REGISTER_GRADS_VIA_FLOAT
#undef TA_REGISTER_VIA_FLOAT

}  // namespace
}  // namespace tensoract
