// Complex gradients, as TensorFlow's math_grad.py defines them: for a real loss L of complex
// z = a + ib, the gradient is dL/da + i dL/db, so a product's gradient is the upstream one
// times the conjugate of the other factor. The values here are worked by hand and run through
// a Session (the differential harness compares the same gradients with tf.gradients').
#include <catch2/catch.hpp>

#include <complex>
#include <string>
#include <vector>

#include "graph/builder/math_more_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using C = std::complex<double>;

// A complex128 constant of `shape` from its elements (a Complex node of two double constants).
Output ComplexConst(const Scope& s, const std::vector<C>& z, const TensorShape& shape) {
  std::vector<double> re, im;
  for (const C& c : z) {
    re.push_back(c.real());
    im.push_back(c.imag());
  }
  tensorflow::TensorProto re_proto, im_proto;
  Tensor::FromVector<double>(re, shape).AsProtoTensorContent(&re_proto);
  Tensor::FromVector<double>(im, shape).AsProtoTensorContent(&im_proto);
  return ops::Complex(s, ops::Const(s, re_proto), ops::Const(s, im_proto));
}

// The gradients of `ys` with respect to `xs` (grad_ys ones), run in a new Session.
std::vector<std::vector<C>> RunGradients(const Scope& root, const std::vector<Output>& ys,
                                         const std::vector<Output>& xs) {
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root, ys, xs, &grads);
  INFO(s.ToString());
  REQUIRE(s.ok());
  std::vector<std::string> fetches;
  for (const Output& g : grads) {
    REQUIRE(g.node != nullptr);
    REQUIRE(g.type() == tensorflow::DT_COMPLEX128);
    fetches.push_back(g.name());
  }
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  std::vector<Tensor> out;
  s = session->Run({}, fetches, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  std::vector<std::vector<C>> values;
  for (const Tensor& t : out) {
    const C* p = t.base<C>();
    values.emplace_back(p, p + t.NumElements());
  }
  return values;
}

void CheckNear(const std::vector<C>& got, const std::vector<C>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << ", want " << want[i]);
    CHECK(std::abs(got[i] - want[i]) < 1e-12);
  }
}

TEST_CASE("the gradient of sum(x * w) is conj(w) for x and conj(x) for w", "[gradients][complex]") {
  Scope root = Scope::NewRootScope();
  auto x = ComplexConst(root, {C(1, 2), C(3, -1)}, TensorShape({2}));
  auto w = ComplexConst(root, {C(2, -1), C(-1, 4)}, TensorShape({2}));
  auto y = ops::Sum(root, ops::Mul(root, x, w), 0);
  auto g = RunGradients(root, {y}, {x, w});
  CheckNear(g[0], {C(2, 1), C(-1, -4)});
  CheckNear(g[1], {C(1, -2), C(3, 1)});
}

// Re(x^2) = a^2 - b^2: dL/da + i dL/db = 2a - 2ib = 2 conj(x), which Square's gradient
// (dy * conj(x) * 2) gives once Real's passes 1 + 0i back.
TEST_CASE("a real loss's gradient is dL/da + i dL/db: Re(sum(x^2)) gives 2 conj(x)", "[gradients][complex]") {
  Scope root = Scope::NewRootScope();
  auto x = ComplexConst(root, {C(1, 2), C(3, -1)}, TensorShape({2}));
  auto loss = ops::Real(root, ops::Sum(root, ops::Square(root, x), 0));
  auto g = RunGradients(root, {loss}, {x});
  CheckNear(g[0], {C(2, -4), C(6, 2)});
}

// a [1x2] times b [2x1]: da = g conj(b)^T, db = conj(a)^T g; exp and log at i: conj(exp(i pi/2))
// = -i, 1 / conj(i) = i.
TEST_CASE("MatMul's, Exp's and Log's complex gradients conjugate", "[gradients][complex]") {
  Scope root = Scope::NewRootScope();
  auto a = ComplexConst(root, {C(1, 1), C(2, -1)}, TensorShape({1, 2}));
  auto b = ComplexConst(root, {C(3, 0), C(1, 2)}, TensorShape({2, 1}));
  auto product = ops::MatMul(root, a, b);
  auto g = RunGradients(root, {product}, {a, b});
  CheckNear(g[0], {C(3, 0), C(1, -2)});
  CheckNear(g[1], {C(1, -1), C(2, 1)});

  auto z = ComplexConst(root, {C(0, M_PI / 2), C(0, 1)}, TensorShape({2}));
  g = RunGradients(root, {ops::Exp(root, z), ops::Log(root, z)}, {z});
  // exp at i pi/2 is i, at i it is cos 1 + i sin 1; log's gradient 1 / conj(z).
  const C e1 = std::exp(C(0, 1));
  CheckNear(g[0], {C(0, -1) + C(0, 2 / M_PI), std::conj(e1) + C(0, 1)});
}

}  // namespace
}  // namespace tensoract
