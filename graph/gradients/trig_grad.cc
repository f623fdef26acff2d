// Gradients of Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and Atanh, built as
// TensorFlow's math_grad.py builds them: a complex x (or y) is conjugated first, as
// TensorFlow's math_ops.conj does (a real one is used as it is).
#include "graph/builder/math_more_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

// The op's input x, conjugated when complex.
Output TrigConjInput(const Scope& s, const Node& op) { return ops::ConjIfComplex(s, InputOf(op, 0)); }

// 1 - x^2, the inverse functions' common term.
Output OneMinusSquare(const Scope& s, const Output& x) {
  return ops::Sub(s, ScalarLike(s, 1.0, x), ops::Square(s, x));
}

// d tan(x) = sec(x)^2.
Status TanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, dy[0], ops::Square(s, ops::Reciprocal(s, ops::Cos(s, TrigConjInput(s, op)))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Tan", TanGrad);

// d asin(x) = 1 / sqrt(1 - x^2); d acos(x) is its negative.
Status AsinGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = TrigConjInput(s, op);
  (*dx)[0] = ops::Mul(s, dy[0], ops::Reciprocal(s, ops::Sqrt(s, OneMinusSquare(s, x))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Asin", AsinGrad);

Status AcosGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = TrigConjInput(s, op);
  (*dx)[0] = ops::Neg(s, ops::Mul(s, dy[0], ops::Reciprocal(s, ops::Sqrt(s, OneMinusSquare(s, x)))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Acos", AcosGrad);

// d atan(x) = 1 / (1 + x^2).
Status AtanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = TrigConjInput(s, op);
  (*dx)[0] = ops::Mul(s, dy[0], ops::Reciprocal(s, ops::Add(s, ScalarLike(s, 1.0, x), ops::Square(s, x))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Atan", AtanGrad);

// d sinh(x) = cosh(x); d cosh(x) = sinh(x).
Status SinhGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, dy[0], ops::Cosh(s, TrigConjInput(s, op)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Sinh", SinhGrad);

Status CoshGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, dy[0], ops::Sinh(s, TrigConjInput(s, op)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Cosh", CoshGrad);

// From the output y: d asinh(x) = 1 / cosh(y), d acosh(x) = 1 / sinh(y).
Status AsinhGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::RealDiv(s, dy[0], ops::Cosh(s, ops::ConjIfComplex(s, OpOutput(op, 0))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Asinh", AsinhGrad);

Status AcoshGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::RealDiv(s, dy[0], ops::Sinh(s, ops::ConjIfComplex(s, OpOutput(op, 0))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Acosh", AcoshGrad);

// d atanh(x) = 1 / (1 - x^2).
Status AtanhGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = TrigConjInput(s, op);
  (*dx)[0] = ops::Mul(s, dy[0], ops::Reciprocal(s, OneMinusSquare(s, x)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Atanh", AtanhGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
