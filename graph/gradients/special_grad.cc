// Gradients of Erf, Erfc, Sin, Cos, Atan2, TruncateDiv, LeakyRelu, Selu (and of their gradient
// helpers) and L2Loss, built as TensorFlow's math_grad.py and nn_grad.py build them.
#include <cmath>

#include "graph/builder/math_more_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

// d erf(x) = 2 / sqrt(pi) * exp(-x^2); the constant in dy's type, as TensorFlow makes it.
Status ErfGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0);
  Output two_over_root_pi = ops::Cast(s, 2 / std::sqrt(M_PI), dy[0].type());
  (*dx)[0] = ops::Mul(s, ops::Mul(s, dy[0], two_over_root_pi), ops::Exp(s, ops::Neg(s, ops::Square(s, x))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Erf", ErfGrad);

// d erfc(x) = -2 / sqrt(pi) * exp(-x^2) (math_grad.py's _ErfcGrad: the same product, negated).
Status ErfcGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0);
  Output minus_two_over_root_pi = ops::Cast(s, -2 / std::sqrt(M_PI), dy[0].type());
  (*dx)[0] = ops::Mul(s, ops::Mul(s, dy[0], minus_two_over_root_pi), ops::Exp(s, ops::Neg(s, ops::Square(s, x))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Erfc", ErfcGrad);

// dy cos(x) and -dy sin(x), a complex x conjugated first.
Status SinGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, dy[0], ops::Cos(s, ops::ConjIfComplex(s, InputOf(op, 0))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Sin", SinGrad);

Status CosGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, ops::Neg(s, dy[0]), ops::Sin(s, ops::ConjIfComplex(s, InputOf(op, 0))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Cos", CosGrad);

// atan2(y, x): dy * x / (y^2 + x^2) for y, dy * -y / (y^2 + x^2) for x, each summed back
// to its input's shape.
Status Atan2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output y = InputOf(op, 0), x = InputOf(op, 1);
  Output grad_inv = ops::RealDiv(s, dy[0], ops::Add(s, ops::Square(s, y), ops::Square(s, x)));
  ReduceBroadcast(s, y, x, ops::Mul(s, x, grad_inv), ops::Mul(s, ops::Neg(s, y), grad_inv), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Atan2", Atan2Grad);

// Piecewise constant: TensorFlow returns no gradient for either input.
REGISTER_NO_GRADIENT_OP("TruncateDiv");

float AlphaOf(const Node& op) {
  float alpha = 0.2f;
  GetNodeAttr(op.def(), "alpha", &alpha);  // the OpDef's default stands in if absent
  return alpha;
}

Status LeakyReluGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::LeakyReluGrad(s, dy[0], InputOf(op, 0), AlphaOf(op));
  return Status::OK();
}
REGISTER_GRADIENT_OP("LeakyRelu", LeakyReluGrad);

// LeakyReluGrad is linear in its gradients; its features only choose the branch.
Status LeakyReluGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 1);
  (*dx)[0] = ops::LeakyReluGrad(s, dy[0], x, AlphaOf(op));
  (*dx)[1] = ops::ZerosLike(s, x);
  return Status::OK();
}
REGISTER_GRADIENT_OP("LeakyReluGrad", LeakyReluGradGrad);

Status SeluGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::SeluGrad(s, dy[0], OpOutput(op, 0));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Selu", SeluGrad);

// SeluGrad(g, a) = g * (a + scale alpha) below zero, g * scale above: its gradient with
// respect to a is g below zero and 0 above.
Status SeluGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output gradients = InputOf(op, 0), outputs = InputOf(op, 1);
  Output zeros = ops::ZerosLike(s, outputs);
  (*dx)[0] = ops::SeluGrad(s, dy[0], outputs);
  (*dx)[1] = ops::SelectV2(s, ops::Less(s, outputs, zeros), ops::Mul(s, dy[0], gradients), zeros);
  return Status::OK();
}
REGISTER_GRADIENT_OP("SeluGrad", SeluGradGrad);

Status L2LossGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, InputOf(op, 0), dy[0]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("L2Loss", L2LossGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
