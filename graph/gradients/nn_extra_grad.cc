// Gradients of the activations beyond Relu and of LogSoftmax (nn_grad.cc has the rest of
// the neural-net family). The activations have kernels for their gradients.
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

using ops::TypedOp;

// Relu6Grad and SoftplusGrad take the features (the op's input).
template <const char* kGradOp>
Status FeaturesGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = TypedOp(s, kGradOp, {dy[0], InputOf(op, 0)});
  return Status::OK();
}
constexpr char kRelu6Grad[] = "Relu6Grad";
constexpr char kSoftplusGrad[] = "SoftplusGrad";
constexpr char kSoftsignGrad[] = "SoftsignGrad";
REGISTER_GRADIENT_OP("Relu6", FeaturesGrad<kRelu6Grad>);
REGISTER_GRADIENT_OP("Softplus", FeaturesGrad<kSoftplusGrad>);
REGISTER_GRADIENT_OP("Softsign", FeaturesGrad<kSoftsignGrad>);

// EluGrad takes the op's output.
Status EluGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = TypedOp(s, "EluGrad", {dy[0], OpOutput(op, 0)});
  return Status::OK();
}
REGISTER_GRADIENT_OP("Elu", EluGrad);

// d logsoftmax: dy - softmax * sum(dy, last axis).
Status LogSoftmaxGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output softmax = ops::Exp(s, OpOutput(op, 0));
  Output sum = ops::Sum(s, dy[0], -1, {/*keep_dims=*/true});
  (*dx)[0] = ops::Sub(s, dy[0], ops::Mul(s, softmax, sum));
  return Status::OK();
}
REGISTER_GRADIENT_OP("LogSoftmax", LogSoftmaxGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
