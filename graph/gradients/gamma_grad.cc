// Gradients of Ndtri, Erfinv, Lgamma, Digamma, Polygamma and Zeta, built as TensorFlow's
// math_grad.py builds them (the constants in dy's type; Polygamma's order and Zeta's
// exponent get no gradient, None there).
#include <cmath>

#include "graph/builder/attr_util.h"
#include "graph/builder/math_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

// d ndtri(p) = sqrt(2 pi) * exp(ndtri(p)^2 / 2), from the op's output.
Status NdtriGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output y = OpOutput(op, 0);
  Output root_two_pi = ScalarLike(s, std::sqrt(2 * M_PI), dy[0]);
  (*dx)[0] = ops::Mul(s, ops::Mul(s, dy[0], root_two_pi),
                      ops::Exp(s, ops::RealDiv(s, ops::Square(s, y), ScalarLike(s, 2.0, y))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Ndtri", NdtriGrad);

// d erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x)^2).
Status ErfinvGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output y = OpOutput(op, 0);
  Output root_pi_over_two = ScalarLike(s, std::sqrt(M_PI) / 2, dy[0]);
  (*dx)[0] = ops::Mul(s, ops::Mul(s, dy[0], root_pi_over_two), ops::Exp(s, ops::Square(s, y)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Erfinv", ErfinvGrad);

// d lgamma(x) = digamma(x).
Status LgammaGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, dy[0], ops::TypedOp(s, "Digamma", {InputOf(op, 0)}));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Lgamma", LgammaGrad);

// d digamma(x) = polygamma(1, x).
Status DigammaGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0);
  (*dx)[0] = ops::Mul(s, dy[0], ops::TypedOp(s, "Polygamma", {ScalarLike(s, 1.0, x), x}));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Digamma", DigammaGrad);

// d polygamma(n, x) / dx = polygamma(n + 1, x), summed to x's shape.
Status PolygammaGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output n = InputOf(op, 0), x = InputOf(op, 1);
  Output next = ops::TypedOp(s, "Polygamma", {ops::Add(s, n, ScalarLike(s, 1.0, n)), x});
  (*dx)[1] = SumToShapeOf(s, ops::Mul(s, dy[0], next), x);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Polygamma", PolygammaGrad);

// d zeta(x, q) / dq = -x * zeta(x + 1, q), summed to q's shape.
Status ZetaGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), q = InputOf(op, 1);
  Output partial = ops::Mul(s, ops::Neg(s, x), ops::TypedOp(s, "Zeta", {ops::Add(s, x, ScalarLike(s, 1.0, x)), q}));
  (*dx)[1] = SumToShapeOf(s, ops::Mul(s, dy[0], partial), q);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Zeta", ZetaGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
