// The bitwise ops have no gradient: TensorFlow's bitwise_ops.py declares each of them
// NotDifferentiable, so a gradient through one reaches neither of its inputs.
#include "graph/gradients/gradient_registry.h"

namespace tensoract {
namespace grad {
namespace {

REGISTER_NO_GRADIENT_OP("BitwiseAnd");
REGISTER_NO_GRADIENT_OP("BitwiseOr");
REGISTER_NO_GRADIENT_OP("BitwiseXor");
REGISTER_NO_GRADIENT_OP("Invert");
REGISTER_NO_GRADIENT_OP("PopulationCount");
REGISTER_NO_GRADIENT_OP("LeftShift");
REGISTER_NO_GRADIENT_OP("RightShift");

}  // namespace
}  // namespace grad
}  // namespace tensoract
