// Gradients of Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and Atanh, built as
// TensorFlow's math_grad.py builds them. TensorFlow conjugates x first for complex types;
// without a Conj op here, a complex input's gradient is refused with a message saying so
// rather than computed wrong.
#include "graph/builder/math_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

Status RealTrigInput(const Node& op) {
  const DataType type = InputOf(op, 0).type();
  if (type == tensorflow::DT_COMPLEX64 || type == tensorflow::DT_COMPLEX128) {
    return errors::Unimplemented("the gradient of ", op.type_string(), " for ", DataTypeString(type),
                                 " needs Conj, which is not registered yet (node '", op.name(), "')");
  }
  return Status::OK();
}

// 1 - x^2, the inverse functions' common term.
Output OneMinusSquare(const Scope& s, const Output& x) {
  return ops::Sub(s, ScalarLike(s, 1.0, x), ops::Square(s, x));
}

// d tan(x) = sec(x)^2.
Status TanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  (*dx)[0] = ops::Mul(s, dy[0], ops::Square(s, ops::Reciprocal(s, ops::Cos(s, InputOf(op, 0)))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Tan", TanGrad);

// d asin(x) = 1 / sqrt(1 - x^2); d acos(x) is its negative.
Status AsinGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  const Output x = InputOf(op, 0);
  (*dx)[0] = ops::Mul(s, dy[0], ops::Reciprocal(s, ops::Sqrt(s, OneMinusSquare(s, x))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Asin", AsinGrad);

Status AcosGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  const Output x = InputOf(op, 0);
  (*dx)[0] = ops::Neg(s, ops::Mul(s, dy[0], ops::Reciprocal(s, ops::Sqrt(s, OneMinusSquare(s, x)))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Acos", AcosGrad);

// d atan(x) = 1 / (1 + x^2).
Status AtanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  const Output x = InputOf(op, 0);
  (*dx)[0] = ops::Mul(s, dy[0], ops::Reciprocal(s, ops::Add(s, ScalarLike(s, 1.0, x), ops::Square(s, x))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Atan", AtanGrad);

// d sinh(x) = cosh(x); d cosh(x) = sinh(x).
Status SinhGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  (*dx)[0] = ops::Mul(s, dy[0], ops::Cosh(s, InputOf(op, 0)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Sinh", SinhGrad);

Status CoshGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  (*dx)[0] = ops::Mul(s, dy[0], ops::Sinh(s, InputOf(op, 0)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Cosh", CoshGrad);

// From the output y: d asinh(x) = 1 / cosh(y), d acosh(x) = 1 / sinh(y).
Status AsinhGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  (*dx)[0] = ops::RealDiv(s, dy[0], ops::Cosh(s, OpOutput(op, 0)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Asinh", AsinhGrad);

Status AcoshGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  (*dx)[0] = ops::RealDiv(s, dy[0], ops::Sinh(s, OpOutput(op, 0)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Acosh", AcoshGrad);

// d atanh(x) = 1 / (1 - x^2).
Status AtanhGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(RealTrigInput(op));
  const Output x = InputOf(op, 0);
  (*dx)[0] = ops::Mul(s, dy[0], ops::Reciprocal(s, OneMinusSquare(s, x)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Atanh", AtanhGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
