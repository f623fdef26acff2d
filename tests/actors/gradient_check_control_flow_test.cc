// Gradients through conditionals and while loops (issue 7), checked against central
// differences through a real Session (client/gradient_checker.h): the branch that ran,
// x^n by repeated multiplication, loop invariants, a small RNN, a conditional inside a
// loop, a loop inside a loop, and the loop's own values read back from stacks.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kDouble;
using testing::Values;
using testing::kScalar;



ops::CondFn Less(const Output& n) {
  return [n](const Scope& s, const std::vector<Output>& v, Output* pred) {
    *pred = ops::Less(s, v[0], n);
    return s.status();
  };
}

TEST_CASE("a conditional's gradient flows back through the branch that ran", "[gradients][control_flow]") {
  for (double sign : {1.0, -1.0}) {
    INFO("x " << (sign > 0 ? "positive" : "negative"));
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({3}));
    auto w = ops::Placeholder(root.WithOpName("w"), kDouble, PartialTensorShape({3}));
    // y = sum(x) > 0 ? x * x * w : sin-free w - 3x
    std::vector<Output> y;
    REQUIRE(ops::Cond(
                root, ops::Greater(root, ops::Sum(root, x, 0), 0.0),
                [&](const Scope& s, std::vector<Output>* out) {
                  out->push_back(ops::Mul(s, ops::Mul(s, x, x), w));
                  return s.status();
                },
                [&](const Scope& s, std::vector<Output>* out) {
                  out->push_back(ops::Sub(s, w, ops::Mul(s, x, 3.0)));
                  return s.status();
                },
                &y)
                .ok());
    testing::CheckGradient(root, {x, w}, {Values({sign * 1, sign * 2, -0.5 * sign}, {3}), Values({0.3, -1, 2}, {3})}, y[0]);
  }
}

TEST_CASE("x^n by repeated multiplication: the gradient is n x^(n-1)", "[gradients][control_flow]") {
  for (int n : {0, 1, 5}) {
    INFO("n = " << n);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2}));
    auto count = ops::Const(root.WithOpName("n"), n);
    std::vector<Output> r;
    REQUIRE(ops::WhileLoop(
                root, {ops::Const(root, 0), ops::OnesLike(root, x)}, Less(count),
                [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                  *next = {ops::Add(s, v[0], 1), ops::Mul(s, v[1], x)};
                  return s.status();
                },
                &r)
                .ok());
    testing::CheckGradient(root, {x}, {Values({1.3, -0.7}, {2})}, r[1]);
  }
}

TEST_CASE("the gradient of a loop's result also reaches its initial value", "[gradients][control_flow]") {
  // a = a0; repeat 4 times: a = tanh(a * w + 0.5)
  Scope root = Scope::NewRootScope();
  auto a0 = ops::Placeholder(root.WithOpName("a0"), kDouble, PartialTensorShape({3}));
  auto w = ops::Placeholder(root.WithOpName("w"), kDouble, PartialTensorShape({3}));
  std::vector<Output> r;
  ops::WhileLoopOptions options;
  options.parallel_iterations = 1;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), a0}, Less(ops::Const(root, 4)),
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                *next = {ops::Add(s, v[0], 1), ops::Tanh(s, ops::Add(s, ops::Mul(s, v[1], w), 0.5))};
                return s.status();
              },
              &r, options)
              .ok());
  testing::CheckGradient(root, {a0, w}, {Values({0.1, -0.4, 0.8}, {3}), Values({1.2, -0.6, 0.3}, {3})}, r[1]);
}

TEST_CASE("a small RNN: h = tanh(W h + U x_t + b) over a sequence, gradients for every weight",
          "[gradients][control_flow]") {
  // Sequence of 5 steps, input size 2, hidden size 3; x_t is row t of xs.
  for (int64_t parallel : {1, 10}) {
    INFO("parallel_iterations " << parallel);
    Scope root = Scope::NewRootScope();
    auto xs = ops::Placeholder(root.WithOpName("xs"), kDouble, PartialTensorShape({5, 2}));
    auto W = ops::Placeholder(root.WithOpName("W"), kDouble, PartialTensorShape({3, 3}));
    auto U = ops::Placeholder(root.WithOpName("U"), kDouble, PartialTensorShape({2, 3}));
    auto b = ops::Placeholder(root.WithOpName("b"), kDouble, PartialTensorShape({1, 3}));
    auto h0 = ops::Placeholder(root.WithOpName("h0"), kDouble, PartialTensorShape({1, 3}));
    std::vector<Output> r;
    ops::WhileLoopOptions options;
    options.parallel_iterations = parallel;
    REQUIRE(ops::WhileLoop(
                root, {ops::Const(root, 0), h0}, Less(ops::Const(root, 5)),
                [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                  auto x_t = ops::Slice(s, xs, ops::Stack(s, {v[0], ops::Const(s, 0)}), {1, 2});
                  auto pre = ops::Add(s, ops::Add(s, ops::MatMul(s, v[1], W), ops::MatMul(s, x_t, U)), b);
                  *next = {ops::Add(s, v[0], 1), ops::Tanh(s, pre)};
                  return s.status();
                },
                &r, options)
                .ok());
    auto loss = ops::Sum(root, ops::Square(root, r[1]), {0, 1});
    testing::CheckGradient(root, {xs, W, U, b, h0},
          {Values({0.5, -1, 0.2, 0.3, -0.7, 0.9, 1.1, 0.4, -0.2, -0.6}, {5, 2}),
           Values({0.1, -0.3, 0.2, 0.4, 0.05, -0.2, -0.1, 0.3, 0.25}, {3, 3}),
           Values({0.6, -0.4, 0.3, -0.2, 0.5, 0.1}, {2, 3}), Values({0.05, -0.1, 0.2}, {1, 3}),
           Values({0.2, 0.1, -0.3}, {1, 3})},
          loss);
  }
}

TEST_CASE("a conditional inside a loop body: each iteration's branch is differentiated",
          "[gradients][control_flow]") {
  // a = x; repeat 6 times: a = (i odd) ? a * x : a + x
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2}));
  std::vector<Output> r;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), x}, Less(ops::Const(root, 6)),
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                std::vector<Output> a;
                TA_RETURN_IF_ERROR(ops::Cond(
                    s, ops::Equal(s, ops::FloorMod(s, v[0], 2), 1),
                    [&](const Scope& t, std::vector<Output>* out) {
                      out->push_back(ops::Mul(t, v[1], x));
                      return t.status();
                    },
                    [&](const Scope& e, std::vector<Output>* out) {
                      out->push_back(ops::Add(e, v[1], x));
                      return e.status();
                    },
                    &a));
                *next = {ops::Add(s, v[0], 1), a[0]};
                return s.status();
              },
              &r)
              .ok());
  testing::CheckGradient(root, {x}, {Values({0.9, -1.1}, {2})}, r[1]);
}

TEST_CASE("a loop nested in a loop: the inner loop's values are saved per outer iteration",
          "[gradients][control_flow]") {
  // for i < 3: for j < i + 1: a = a * x + 0.1   (the inner trip count changes per outer iteration)
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2}));
  std::vector<Output> r;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), ops::OnesLike(root, x)}, Less(ops::Const(root, 3)),
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                std::vector<Output> inner;
                TA_RETURN_IF_ERROR(ops::WhileLoop(
                    s, {ops::Const(s, 0), v[1]}, Less(ops::Add(s, v[0], 1)),
                    [&](const Scope& t, const std::vector<Output>& w, std::vector<Output>* nx) {
                      *nx = {ops::Add(t, w[0], 1), ops::Add(t, ops::Mul(t, w[1], x), 0.1)};
                      return t.status();
                    },
                    &inner, {10, {}, "inner"}));
                *next = {ops::Add(s, v[0], 1), inner[1]};
                return s.status();
              },
              &r)
              .ok());
  testing::CheckGradient(root, {x}, {Values({0.8, -1.2}, {2})}, r[1]);
}

TEST_CASE("many iterations: a 1000-step loop's gradient comes back through 1000 stack pops",
          "[gradients][control_flow]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({1}));
  std::vector<Output> r;
  // a = a * (1 + x / 1000) 1000 times: about exp(x) for a0 = 1.
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), ops::OnesLike(root, x)}, Less(ops::Const(root, 1000)),
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                *next = {ops::Add(s, v[0], 1), ops::Mul(s, v[1], ops::Add(s, ops::Div(s, x, 1000.0), 1.0))};
                return s.status();
              },
              &r)
              .ok());
  std::vector<Output> grads;
  REQUIRE(AddSymbolicGradients(root, {r[1]}, {x}, &grads).ok());
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Values({0.5}, {1})}}, {r[1].name(), grads[0].name()}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  const double y = out[0].base<double>()[0];
  CHECK(y == Approx(std::pow(1.0005, 1000)));
  CHECK(out[1].base<double>()[0] == Approx(1000 * std::pow(1.0005, 999) / 1000));
  // The stacks lived in the step's own container, which is gone with the step.
  CHECK_THAT(session->Inspect(), !Catch::Contains("__per_step_") && !Catch::Contains("stack of"));
}

}  // namespace
}  // namespace tensoract
