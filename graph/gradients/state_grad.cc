// Gradients of the variable ops: reading a resource variable passes the gradient to its
// handle, so AddSymbolicGradients can differentiate with respect to a variable (its
// VarHandleOp output) and every read of it counts, as in TensorFlow.
#include "graph/gradients/gradient_registry.h"

namespace tensoract {
namespace {

Status ReadVariableOpGrad(const Scope& scope, const Node& op, const std::vector<Output>& dy,
                          std::vector<Output>* dx) {
  (*dx)[0] = dy[0];
  return Status::OK();
}
REGISTER_GRADIENT_OP("ReadVariableOp", ReadVariableOpGrad);

}  // namespace
}  // namespace tensoract
