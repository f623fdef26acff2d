// The gradients of the complex number ops, CheckNumerics, EuclideanNorm and the TensorScatter
// ops, and the complex gradients that conjugate their input first, as TensorFlow's
// math_grad.py builds them (the values are the harness's and the kernels' tests' concern;
// these pin the graphs).
#include <catch2/catch.hpp>
#include <string>

#include "graph/builder/math_more_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/tensor_scatter_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"
#include "graph/node_def_util.h"

namespace tensoract {
namespace {

// How many nodes of `type` the scope's graph holds.
int CountOfType(const Scope& root, const std::string& type) {
  int n = 0;
  for (const Node* node : root.graph()->op_nodes()) n += node->type_string() == type;
  return n;
}

TEST_CASE("Real's and Imag's gradients are complex, Complex's real and Conj's conjugated", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto z = ops::Placeholder(root.WithOpName("z"), tensorflow::DT_COMPLEX128, PartialTensorShape({3}));
  std::vector<Output> grads;
  REQUIRE(AddSymbolicGradients(root, {ops::Real(root, z)}, {z}, &grads).ok());
  CHECK(grads[0].node->type_string() == "Complex");
  CHECK(grads[0].type() == tensorflow::DT_COMPLEX128);
  REQUIRE(AddSymbolicGradients(root, {ops::Imag(root, z)}, {z}, &grads).ok());
  CHECK(grads[0].node->type_string() == "Complex");
  REQUIRE(AddSymbolicGradients(root, {ops::Conj(root, z)}, {z}, &grads).ok());
  CHECK(grads[0].node->type_string() == "Conj");

  auto re = ops::Placeholder(root.WithOpName("re"), tensorflow::DT_FLOAT, PartialTensorShape({2, 1}));
  auto im = ops::Placeholder(root.WithOpName("im"), tensorflow::DT_FLOAT, PartialTensorShape({3}));
  auto c = ops::Complex(root, re, im);
  CHECK(c.type() == tensorflow::DT_COMPLEX64);
  REQUIRE(AddSymbolicGradients(root, {c}, {re, im}, &grads).ok());
  CHECK(grads[0].type() == tensorflow::DT_FLOAT);
  CHECK(grads[1].type() == tensorflow::DT_FLOAT);
  CHECK(CountOfType(root, "Real") >= 1);
  CHECK(CountOfType(root, "Imag") >= 1);
}

TEST_CASE("a complex Tan's gradient conjugates x, a real one's does not", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  std::vector<Output> grads;
  REQUIRE(AddSymbolicGradients(root, {ops::Tan(root, x)}, {x}, &grads).ok());
  CHECK(CountOfType(root, "Conj") == 0);
  auto z = ops::Placeholder(root.WithOpName("z"), tensorflow::DT_COMPLEX64);
  for (auto f : {ops::Tan, ops::Asinh, ops::Expm1}) {
    const int before = CountOfType(root, "Conj");
    REQUIRE(AddSymbolicGradients(root, {f(root, z)}, {z}, &grads).ok());
    CHECK(CountOfType(root, "Conj") == before + 1);
    CHECK(grads[0].type() == tensorflow::DT_COMPLEX64);
  }
}

// math_grad.py's math_ops.conj is the identity for reals: their graphs keep no Conj node.
TEST_CASE("Mul's, MatMul's, Exp's and Tanh's gradients conjugate complex inputs, not real ones", "[gradients]") {
  for (DataType t : {tensorflow::DT_DOUBLE, tensorflow::DT_COMPLEX128}) {
    INFO(tensorflow::DataType_Name(t));
    const int conj = t == tensorflow::DT_COMPLEX128 ? 1 : 0;
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), t, PartialTensorShape({2, 2}));
    auto y = ops::Placeholder(root.WithOpName("y"), t, PartialTensorShape({2, 2}));
    std::vector<Output> grads;
    REQUIRE(AddSymbolicGradients(root, {ops::Mul(root, x, y)}, {x, y}, &grads).ok());
    CHECK(CountOfType(root, "Conj") == 2 * conj);  // dy * conj(y), conj(x) * dy
    REQUIRE(AddSymbolicGradients(root, {ops::MatMul(root, x, y)}, {x, y}, &grads).ok());
    CHECK(CountOfType(root, "Conj") == 4 * conj);
    CHECK(grads[0].type() == t);
    for (auto f : {ops::Exp, ops::Tanh}) {
      const int before = CountOfType(root, "Conj");
      REQUIRE(AddSymbolicGradients(root, {f(root, x)}, {x}, &grads).ok());
      CHECK(CountOfType(root, "Conj") == before + conj);  // of the output, before the product or TanhGrad
    }
  }
}

TEST_CASE("ApproximateEqual has no gradient; CheckNumerics checks its gradient", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({2}));
  std::vector<Output> grads;
  REQUIRE(AddSymbolicGradients(root, {ops::Cast(root, ops::ApproximateEqual(root, x, x), tensorflow::DT_FLOAT)},
                               {x}, &grads)
              .ok());
  CHECK(grads[0].node == nullptr);
  REQUIRE(AddSymbolicGradients(root, {ops::CheckNumericsV2(root, x, "loss")}, {x}, &grads).ok());
  REQUIRE(grads[0].node != nullptr);
  CHECK(grads[0].node->type_string() == "CheckNumericsV2");
  std::string message;
  REQUIRE(GetNodeAttr(grads[0].node->def(), "message", &message).ok());
  CHECK(message == "Not a number (NaN) or infinity (Inf) values detected in gradient. loss");
}

TEST_CASE("EuclideanNorm's gradient is x / (norm / dy), reshaped to keep the reduced dimensions", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({2, 3}));
  std::vector<Output> grads;
  REQUIRE(AddSymbolicGradients(root, {ops::EuclideanNorm(root, x, ops::Const(root, {1}))}, {x}, &grads).ok());
  REQUIRE(grads[0].node != nullptr);
  CHECK(grads[0].node->type_string() == "RealDiv");
  CHECK(CountOfType(root, "Reshape") >= 2);  // norm and dy (ReducedShape reshapes the axes too)
}

TEST_CASE("the TensorScatter ops' gradients reach the tensor and the updates, not the indices", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto t = ops::Placeholder(root.WithOpName("t"), tensorflow::DT_FLOAT, PartialTensorShape({4}));
  auto u = ops::Placeholder(root.WithOpName("u"), tensorflow::DT_FLOAT, PartialTensorShape({2}));
  auto i = ops::Const(root, {{1}, {3}});
  for (auto f : {ops::TensorScatterUpdate, ops::TensorScatterAdd, ops::TensorScatterSub, ops::TensorScatterMax,
                 ops::TensorScatterMin}) {
    auto y = f(root, t, i, u);
    INFO(y.node->type_string());
    std::vector<Output> grads;
    REQUIRE(AddSymbolicGradients(root, {y}, {t, u}, &grads).ok());
    CHECK(grads[0].node != nullptr);
    CHECK(grads[1].node != nullptr);
    CHECK(grads[1].type() == tensorflow::DT_FLOAT);
  }
}

}  // namespace
}  // namespace tensoract
