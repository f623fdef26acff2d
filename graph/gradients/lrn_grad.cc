// LRN's gradient: LRNGrad(dy, x, y) with LRN's attrs, as TensorFlow's nn_grad.py builds it.
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

Status LrnGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::TypedOp(s, "LRNGrad", {dy[0], InputOf(op, 0), OpOutput(op, 0)},
                          AttrsOf(op, {"depth_radius", "bias", "alpha", "beta"}));
  return Status::OK();
}
REGISTER_GRADIENT_OP("LRN", LrnGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
