// Gradients of Ndtri, Erfinv, Lgamma, Digamma, Polygamma, Zeta, Igamma, Igammac and Betainc,
// built as TensorFlow's math_grad.py builds them (the constants in dy's type; Polygamma's
// order, Zeta's exponent and Betainc's a and b get no gradient, None there).
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

// y * log(x), 0 where y is 0 (TensorFlow's xlogy, so a tail's derivative at 0 or 1 is 0).
Output XLogY(const Scope& s, const Output& y, const Output& log_x) {
  return ops::SelectV2(s, ops::Equal(s, y, ScalarLike(s, 0.0, y)), ops::ZerosLike(s, y), ops::Mul(s, y, log_x));
}

// d P(a, x) / da = IgammaGradA(a, x); d P(a, x) / dx = exp(-x + (a - 1) log x - lgamma(a)),
// in log space (Gamma(a) overflows long before the quotient does); each summed to its
// input's shape. Igammac's are their negatives.
Status IgammaPartials(const Scope& s, const Node& op, const std::vector<Output>& dy, double sign,
                      std::vector<Output>* dx) {
  Output a = InputOf(op, 0), x = InputOf(op, 1);
  Output g = sign > 0 ? dy[0] : ops::Neg(s, dy[0]);
  if (Needed(op, 0)) {
    (*dx)[0] = SumToShapeOf(s, ops::Mul(s, g, ops::TypedOp(s, "IgammaGradA", {a, x})), a);
  }
  if (Needed(op, 1)) {
    Output log_partial = ops::Sub(s, ops::Sub(s, ops::Mul(s, ops::Sub(s, a, ScalarLike(s, 1.0, a)), ops::Log(s, x)), x),
                                  ops::TypedOp(s, "Lgamma", {a}));
    (*dx)[1] = SumToShapeOf(s, ops::Mul(s, g, ops::Exp(s, log_partial)), x);
  }
  return Status::OK();
}
Status IgammaGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return IgammaPartials(s, op, dy, 1, dx);
}
Status IgammacGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return IgammaPartials(s, op, dy, -1, dx);
}
REGISTER_GRADIENT_OP("Igamma", IgammaGrad);
REGISTER_GRADIENT_OP("Igammac", IgammacGrad);

// d I_x(a, b) / dx = x^(a-1) (1-x)^(b-1) / B(a, b), in log space; x's only (TensorFlow's).
Status BetaincGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output a = InputOf(op, 0), b = InputOf(op, 1), x = InputOf(op, 2);
  Output log_beta = ops::Sub(s, ops::Add(s, ops::TypedOp(s, "Lgamma", {a}), ops::TypedOp(s, "Lgamma", {b})),
                             ops::TypedOp(s, "Lgamma", {ops::Add(s, a, b)}));
  Output one = ScalarLike(s, 1.0, x);
  Output log_partial = ops::Sub(s,
                                ops::Add(s, XLogY(s, ops::Sub(s, b, one), ops::Log1p(s, ops::Neg(s, x))),
                                         XLogY(s, ops::Sub(s, a, one), ops::Log(s, x))),
                                log_beta);
  // a and b have x's shape or are scalars: summing to x's shape undoes any broadcast.
  (*dx)[2] = SumToShapeOf(s, ops::Mul(s, dy[0], ops::Exp(s, log_partial)), x);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Betainc", BetaincGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
