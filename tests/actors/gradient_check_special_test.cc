// Numeric checks (central differences through a Session, client/gradient_checker.h) of the
// gradients of Erf, Sin, Cos, Atan2 (broadcast both ways), LeakyRelu, LeakyReluGrad, Selu,
// SeluGrad and L2Loss, in double. TruncateDiv has none, as in TensorFlow.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"

namespace tensoract {
namespace {

const DataType kDouble = tensorflow::DT_DOUBLE;

Tensor Values(std::vector<double> v, TensorShape shape) { return Tensor::FromVector<double>(v, shape); }
// None at 0, where LeakyRelu and Selu have their kinks.
const Tensor kX23 = Values({1, 2.5, -3, 0.5, 1.75, -0.2}, {2, 3});

template <class F>
void CheckOne(const char* what, F f, const Tensor& value = kX23) {
  INFO(what);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape(value.shape().dim_sizes()));
  testing::CheckGradient(root, {x}, {value}, f(root, x));
}

TEST_CASE("Erf, Sin and Cos gradients", "[gradients]") {
  CheckOne("Erf", [](const Scope& s, Output x) { return ops::Erf(s, x); });
  CheckOne("Sin", [](const Scope& s, Output x) { return ops::Sin(s, x); });
  CheckOne("Cos", [](const Scope& s, Output x) { return ops::Cos(s, x); });
  CheckOne("Sin of Cos", [](const Scope& s, Output x) { return ops::Sin(s, ops::Cos(s, ops::Square(s, x))); });
}

TEST_CASE("Atan2's gradient reaches both inputs and sums broadcast dimensions", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto y = ops::Placeholder(root.WithOpName("y"), kDouble, PartialTensorShape({2, 1}));
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({3}));
  testing::CheckGradient(root, {y, x}, {Values({0.5, -2}, {2, 1}), Values({1, -1.5, 0.25}, {3})}, ops::Atan2(root, y, x));
}

TEST_CASE("LeakyRelu, Selu, their gradient helpers and L2Loss gradients", "[gradients]") {
  CheckOne("LeakyRelu", [](const Scope& s, Output x) { return ops::LeakyRelu(s, x, 0.3f); });
  CheckOne("LeakyRelu, alpha above 1", [](const Scope& s, Output x) { return ops::LeakyRelu(s, x, 2.5f); });
  CheckOne("LeakyReluGrad", [](const Scope& s, Output x) {
    return ops::LeakyReluGrad(s, ops::Square(s, x), Input({{1.0, 2.5, -3.0}, {0.5, 1.75, -0.2}}), 0.1f);
  });
  CheckOne("Selu", [](const Scope& s, Output x) { return ops::Selu(s, x); });
  // SeluGrad in both its inputs: its outputs input away from 0.
  CheckOne("SeluGrad", [](const Scope& s, Output x) {
    return ops::SeluGrad(s, ops::Square(s, x), ops::Selu(s, x));
  });
  CheckOne("L2Loss", [](const Scope& s, Output x) { return ops::L2Loss(s, ops::Mul(s, x, x)); });
}

}  // namespace
}  // namespace tensoract
