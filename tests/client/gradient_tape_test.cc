// GradientTape (client/gradient_tape.h): gradients of eager code with the registered
// gradient functions, checked against closed forms and central differences.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <cmath>
#include <filesystem>

#include "client/eager_checkpoint.h"
#include "client/eager_variable.h"
#include "client/gradient_tape.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/builder/training_ops.h"
#include "graph/training/optimizers.h"
#include "tests/client/eager_test_util.h"

namespace tensoract {
namespace {

using testing::Floats;
using testing::NewContext;
using testing::Scalar;

TEST_CASE("a tape differentiates what it watched", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Output x = ops::Const(s, {1.f, 2.f, 3.f});
  GradientTape tape(*ctx);
  tape.Watch(x);
  Output y = ops::Add(s, ops::Mul(s, x, x), x);  // x^2 + x: two paths into x, summed
  auto g = tape.Gradient(y, {x});
  REQUIRE(g.ok());
  CHECK(Floats(g.value()[0]) == std::vector<float>{3, 5, 7});
}

TEST_CASE("gradients with respect to variables, through broadcasting and reductions", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  auto w = MakeVariable(s, "w", ops::Const(s, {{1.f, 2.f}, {3.f, 4.f}}));
  auto b = MakeVariable(s, "b", {0.5f, -0.5f});
  REQUIRE(w.ok());
  REQUIRE(b.ok());
  Output x = ops::Const(s, {{1.f, 1.f}, {2.f, 0.f}, {0.f, 3.f}});
  GradientTape tape(*ctx);
  tape.Watch(w.value());
  tape.Watch(b.value());
  Output y = ops::Sum(s, ops::Add(s, ops::MatMul(s, x, w.value().Read(s)), b.value().Read(s)), {0, 1});
  auto g = tape.Gradient(y, {w.value(), b.value()});
  REQUIRE(g.ok());
  // dy/dw[i][j] = sum over rows of x[:, i]; dy/db = the number of rows.
  CHECK(Floats(g.value()[0]) == std::vector<float>{3, 3, 4, 4});
  CHECK(Floats(g.value()[1]) == std::vector<float>{3, 3});
}

TEST_CASE("StopGradient stops, an unconnected source gets none, a missing gradient is named", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Output x = ops::Const(s, {2.f});
  Output z = ops::Const(s, {5.f});
  GradientTape tape(*ctx, /*persistent=*/true);
  tape.Watch(x);
  tape.Watch(z);
  Output y = ops::Add(s, ops::StopGradient(s, ops::Mul(s, x, x)), ops::Mul(s, x, 3.f));
  auto g = tape.Gradient(y, {x, z});
  REQUIRE(g.ok());
  CHECK(Floats(g.value()[0]) == std::vector<float>{3});
  CHECK(g.value()[1].node == nullptr);

  // RandomShuffle has no gradient (nor in TensorFlow); the tape names it.
  Output shuffled = ops::RandomShuffle(s, ops::Mul(s, z, z));
  REQUIRE(s.status().ok());
  auto bad = tape.Gradient(shuffled, {z});
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("RandomShuffle") != std::string::npos);
}

TEST_CASE("a tape that is not persistent computes one set of gradients", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Output x = ops::Const(s, {2.f});
  GradientTape tape(*ctx);
  tape.Watch(x);
  Output y = ops::Mul(s, x, x);
  REQUIRE(tape.Gradient(y, {x}).ok());
  auto again = tape.Gradient(y, {x});
  REQUIRE(!again.ok());
  CHECK(again.status().code() == error::FAILED_PRECONDITION);

  GradientTape persistent(*ctx, true);
  persistent.Watch(x);
  Output y2 = ops::Mul(s, x, x);
  Output y3 = ops::Mul(s, y2, x);
  CHECK(Scalar(persistent.Gradient(y2, {x}).value()[0]) == 4.f);
  CHECK(Scalar(persistent.Gradient(y3, {x}).value()[0]) == 12.f);
}

TEST_CASE("nested tapes give higher-order gradients", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Output x = ops::Const(s, {2.f});
  GradientTape outer(*ctx);
  outer.Watch(x);
  Output dy_dx;
  {
    GradientTape inner(*ctx);
    inner.Watch(x);
    Output y = ops::Mul(s, ops::Mul(s, x, x), x);  // x^3
    dy_dx = inner.Gradient(y, {x}).value()[0];     // 3x^2 = 12, recorded by the outer tape
  }
  CHECK(Scalar(dy_dx) == 12.f);
  auto d2 = outer.Gradient(dy_dx, {x});
  REQUIRE(d2.ok());
  CHECK(Scalar(d2.value()[0]) == 12.f);  // 6x
}

TEST_CASE("a tape's gradients match central differences", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  const std::vector<float> x0 = {0.3f, -1.2f, 0.8f, 0.1f, 2.0f, -0.4f};
  const std::vector<float> w0 = {0.5f, -0.3f, 0.2f, 0.9f, -0.7f, 0.4f};
  auto loss_of = [&](const Output& w) {
    Output x = FromTensor(s, Tensor::FromVector<float>(x0, TensorShape({2, 3})));
    Output h = ops::Tanh(s, ops::MatMul(s, x, ops::Reshape(s, w, {3, 2})));
    Output p = ops::Softmax(s, ops::Mul(s, ops::Sigmoid(s, h), ops::Exp(s, h)));
    return ops::Mean(s, ops::Mul(s, p, ops::Relu(s, ops::Sub(s, h, -0.2f))), {0, 1});
  };
  Output w = FromTensor(s, Tensor::FromVector<float>(w0, TensorShape({6})));
  GradientTape tape(*ctx);
  tape.Watch(w);
  auto g = tape.Gradient(loss_of(w), {w});
  REQUIRE(g.ok());
  std::vector<float> grad = Floats(g.value()[0]);
  const float eps = 1e-3f;
  for (size_t i = 0; i < w0.size(); ++i) {
    std::vector<float> up = w0, down = w0;
    up[i] += eps;
    down[i] -= eps;
    float fu = Scalar(loss_of(FromTensor(s, Tensor::FromVector<float>(up, TensorShape({6})))));
    float fd = Scalar(loss_of(FromTensor(s, Tensor::FromVector<float>(down, TensorShape({6})))));
    CHECK(grad[i] == Approx((fu - fd) / (2 * eps)).margin(2e-3));
  }
}

TEST_CASE("optimizers' apply ops run eagerly on variables", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  auto v = MakeVariable(s, "v", {1.f, 2.f});
  REQUIRE(v.ok());
  for (int step = 0; step < 3; ++step) {
    GradientTape tape(*ctx);
    tape.Watch(v.value());
    Output loss = ops::Sum(s, ops::Square(s, v.value().Read(s)), 0);  // gradient 2v
    auto g = tape.Gradient(loss, {v.value()});
    REQUIRE(g.ok());
    ops::ResourceApplyGradientDescent(s, v.value().handle, 0.25f, g.value()[0]);
    REQUIRE(s.status().ok());
  }
  // v <- v - 0.25 * 2v = v / 2, three times.
  CHECK(Floats(v.value().Read(s)) == std::vector<float>{0.125f, 0.25f});
}

TEST_CASE("the graph optimizers train eager variables, keeping their slots", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  // Fit y = 2x + 1 by least squares.
  Variable w = MakeVariable(s, "w", {0.f}).value();
  Variable b = MakeVariable(s, "b", {0.f}).value();
  Output x = ops::Const(s, {0.f, 1.f, 2.f, 3.f});
  Output y = ops::Const(s, {1.f, 3.f, 5.f, 7.f});
  AdamOptimizer adam(0.1);
  float first = 0, last = 0;
  for (int step = 0; step < 300; ++step) {
    GradientTape tape(*ctx);
    tape.Watch(w);
    tape.Watch(b);
    Output loss = ops::Mean(s, ops::Square(s, ops::Sub(s, ops::Add(s, ops::Mul(s, x, w.Read(s)), b.Read(s)), y)), 0);
    auto g = tape.Gradient(loss, {w, b});
    REQUIRE(g.ok());
    REQUIRE(adam.ApplyGradients(s, {w, b}, g.value()) != nullptr);
    REQUIRE(s.status().ok());
    (step == 0 ? first : last) = Scalar(loss);
  }
  CHECK(last < first / 100);
  CHECK(Floats(w.Read(s))[0] == Approx(2).margin(0.05));
  CHECK(Floats(b.Read(s))[0] == Approx(1).margin(0.1));
  CHECK(adam.variables().size() == 6);  // m and v per variable, two beta powers: made once
}

TEST_CASE("eager variables are saved and restored in V2 checkpoints a graph can read", "[tape]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable w = MakeVariable(s, "dense/kernel", {{1.f, 2.f}, {3.f, 4.f}}).value();
  auto ckpt = Checkpoint::New(*ctx, {w});
  REQUIRE(ckpt.ok());
  char tmpl[] = "/tmp/eager_checkpoint_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  auto path = ckpt.value().Save(dir + "/model.ckpt", 7);
  INFO(path.status().ToString());
  REQUIRE(path.ok());
  ops::AssignVariableOp(s, w.handle, ops::Const(s, {{0.f, 0.f}, {0.f, 0.f}}));
  CHECK(Floats(w.Read(s)) == std::vector<float>{0, 0, 0, 0});
  REQUIRE(ckpt.value().Restore(path.value()).ok());
  CHECK(Floats(w.Read(s)) == std::vector<float>{1, 2, 3, 4});

  // A graph with a variable of the same name restores it.
  Scope g = Scope::NewRootScope();
  auto kernel = ops::VarHandleOp(g.WithOpName("dense/kernel"), tensorflow::DT_FLOAT, PartialTensorShape({2, 2}));
  auto read = ops::ReadVariableOp(g.WithOpName("read"), kernel, tensorflow::DT_FLOAT);
  auto saver = Saver::New(g, {kernel});
  REQUIRE(saver.ok());
  tensorflow::GraphDef def;
  REQUIRE(g.ToGraphDef(&def).ok());
  auto session = Session::New().value();
  REQUIRE(session->Create(def).ok());
  REQUIRE(saver.value().Restore(*session, path.value()).ok());
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {"read"}, {}, &out).ok());
  CHECK(std::vector<float>(out[0].base<float>(), out[0].base<float>() + 4) == std::vector<float>{1, 2, 3, 4});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tensoract
