// Numeric checks (central differences through a Session, client/gradient_checker.h) of the
// gradients of Erf, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Atan2
// (broadcast both ways), LeakyRelu, LeakyReluGrad, Selu, SeluGrad, L2Loss, Igamma, Igammac
// and Betainc (x only, as TensorFlow), in double.
// TruncateDiv has none, as in TensorFlow.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"

namespace tensoract {
namespace {

using testing::kDouble;
using testing::Values;


// None at 0, where LeakyRelu and Selu have their kinks.
const Tensor kSpecialX = Values({1, 2.5, -3, 0.5, 1.75, -0.2}, {2, 3});

template <class F>
void CheckSpecialGradient(const char* what, F f, const Tensor& value = kSpecialX) {
  INFO(what);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape(value.shape().dim_sizes()));
  testing::CheckGradient(root, {x}, {value}, f(root, x));
}

TEST_CASE("Erf, Sin and Cos gradients", "[gradients]") {
  CheckSpecialGradient("Erf", [](const Scope& s, Output x) { return ops::Erf(s, x); });
  CheckSpecialGradient("Sin", [](const Scope& s, Output x) { return ops::Sin(s, x); });
  CheckSpecialGradient("Cos", [](const Scope& s, Output x) { return ops::Cos(s, x); });
  CheckSpecialGradient("Sin of Cos", [](const Scope& s, Output x) { return ops::Sin(s, ops::Cos(s, ops::Square(s, x))); });
}

TEST_CASE("the trigonometric and hyperbolic functions' and their inverses' gradients", "[gradients]") {
  // Inside the inverses' domains: |x| < 1 for Asin, Acos and Atanh, x > 1 for Acosh.
  const Tensor unit = Values({0.1, -0.5, 0.75, -0.9, 0.3, 0.05}, {2, 3});
  const Tensor above_one = Values({1.5, 2.5, 3, 1.3, 7, 2}, {2, 3});
  // Central differences lose accuracy where these curve sharply (Atanh near +-1, Acosh near 1).
  const Tensor inside = Values({0.1, -0.5, 0.6, -0.7, 0.3, 0.05}, {2, 3});
  CheckSpecialGradient("Tan", [](const Scope& s, Output x) { return ops::Tan(s, ops::Mul(s, x, 0.4)); });
  CheckSpecialGradient("Asin", [](const Scope& s, Output x) { return ops::Asin(s, x); }, unit);
  CheckSpecialGradient("Acos", [](const Scope& s, Output x) { return ops::Acos(s, x); }, unit);
  CheckSpecialGradient("Atan", [](const Scope& s, Output x) { return ops::Atan(s, x); });
  CheckSpecialGradient("Sinh", [](const Scope& s, Output x) { return ops::Sinh(s, x); });
  CheckSpecialGradient("Cosh", [](const Scope& s, Output x) { return ops::Cosh(s, x); });
  CheckSpecialGradient("Asinh", [](const Scope& s, Output x) { return ops::Asinh(s, x); });
  CheckSpecialGradient("Acosh", [](const Scope& s, Output x) { return ops::Acosh(s, x); }, above_one);
  CheckSpecialGradient("Atanh", [](const Scope& s, Output x) { return ops::Atanh(s, x); }, inside);
}

TEST_CASE("Inv, TensorFlow 1's Reciprocal, and its InvGrad have Reciprocal's gradients", "[gradients]") {
  // Away from 0, where 1/x curves too sharply for central differences.
  const Tensor away_from_zero = Values({1, 2.5, -3, 0.5, 1.75, -1.2}, {2, 3});
  CheckSpecialGradient("Inv", [](const Scope& s, Output x) { return ops::TypedOp(s, "Inv", {x}); }, away_from_zero);
  // InvGrad(y, dy) in both arguments (the second-order gradient of Inv).
  CheckSpecialGradient("InvGrad", [](const Scope& s, Output x) { return ops::TypedOp(s, "InvGrad", {x, ops::Sin(s, x)}); },
           away_from_zero);
}

TEST_CASE("Atan2's gradient reaches both inputs and sums broadcast dimensions", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto y = ops::Placeholder(root.WithOpName("y"), kDouble, PartialTensorShape({2, 1}));
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({3}));
  testing::CheckGradient(root, {y, x}, {Values({0.5, -2}, {2, 1}), Values({1, -1.5, 0.25}, {3})}, ops::Atan2(root, y, x));
}

TEST_CASE("LeakyRelu, Selu, their gradient helpers and L2Loss gradients", "[gradients]") {
  CheckSpecialGradient("LeakyRelu", [](const Scope& s, Output x) { return ops::LeakyRelu(s, x, 0.3f); });
  CheckSpecialGradient("LeakyRelu, alpha above 1", [](const Scope& s, Output x) { return ops::LeakyRelu(s, x, 2.5f); });
  CheckSpecialGradient("LeakyReluGrad", [](const Scope& s, Output x) {
    return ops::LeakyReluGrad(s, ops::Square(s, x), Input({{1.0, 2.5, -3.0}, {0.5, 1.75, -0.2}}), 0.1f);
  });
  CheckSpecialGradient("Selu", [](const Scope& s, Output x) { return ops::Selu(s, x); });
  // SeluGrad in both its inputs: its outputs input away from 0.
  CheckSpecialGradient("SeluGrad", [](const Scope& s, Output x) {
    return ops::SeluGrad(s, ops::Square(s, x), ops::Selu(s, x));
  });
  CheckSpecialGradient("L2Loss", [](const Scope& s, Output x) { return ops::L2Loss(s, ops::Mul(s, x, x)); });
}

TEST_CASE("Igamma's and Igammac's gradients reach a and x and sum broadcast dimensions; Betainc's reaches x",
          "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), kDouble, PartialTensorShape({2, 1}));
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({3}));
  const Tensor a_value = Values({1.5, 3}, {2, 1}), x_value = Values({0.5, 2, 4.5}, {3});
  testing::CheckGradient(root, {a, x}, {a_value, x_value}, ops::TypedOp(root, "Igamma", {a, x}));
  testing::CheckGradient(root, {a, x}, {a_value, x_value}, ops::TypedOp(root, "Igammac", {a, x}));

  Scope beta = Scope::NewRootScope();
  auto bx = ops::Placeholder(beta.WithOpName("x"), kDouble, PartialTensorShape({3}));
  testing::CheckGradient(beta, {bx}, {Values({0.2, 0.5, 0.85}, {3})},
                         ops::TypedOp(beta, "Betainc", {ops::Const(beta, Input({2.5, 1.0, 0.7})), ops::Const(beta, 1.5), bx}));
}

}  // namespace
}  // namespace tensoract
