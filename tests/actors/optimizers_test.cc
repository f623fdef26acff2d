// minimize(loss) with the C++ optimizers (graph/training/optimizers.h): one step of each
// against the update rule computed here, slots and global_step, and the errors.
#include <catch2/catch.hpp>

#include <cmath>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/optimizers.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::Values;

// loss = sum((w * x - 1)^2) for w = [1, -2, 0.5] and the fed x; dloss/dw = 2 (w x - 1) x.
struct Quadratic {
  Scope root = Scope::NewRootScope();
  Variable w, step;
  Output x, loss;
  Quadratic() {
    w = NewVariable(root, "w", ops::Const(root.WithOpName("w_init"), {1.f, -2.f, 0.5f}));
    step = NewVariable(root, "global_step", ops::Const(root.WithOpName("step_init"), int64_t{0}));
    x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({3}));
    loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, ops::Sub(root, ops::Mul(root, w.value, x), 1.f)), {0});
  }
  std::vector<float> Grad(const std::vector<float>& wv, const std::vector<float>& xv) {
    std::vector<float> g;
    for (int i = 0; i < 3; ++i) g.push_back(2 * (wv[i] * xv[i] - 1) * xv[i]);
    return g;
  }
};

std::unique_ptr<Session> Start(const Scope& root, const std::vector<Variable>& vars) {
  Node* init = GroupInitializers(root.WithOpName("init"), vars);
  REQUIRE(init != nullptr);
  tensorflow::GraphDef def;
  Status s = root.ToGraphDef(&def);
  INFO(s.ToString());
  REQUIRE(s.ok());
  auto session = testing::NewSessionWith(def);
  REQUIRE(session->Run({}, {}, {"init"}, nullptr).ok());
  return session;
}

std::vector<float> Read(Session& s, const Output& out) {
  std::vector<Tensor> t;
  Status st = s.Run({}, {out.name()}, {}, &t);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return Values(t[0]);
}

const Tensor kX = Tensor::FromVector<float>({2.f, 1.f, -1.f});
const std::vector<float> kXv = {2.f, 1.f, -1.f};

void TrainStep(Session& s, Node* train) {
  Status st = s.Run({{"x", kX}}, {}, {train->name()}, nullptr);
  INFO(st.ToString());
  REQUIRE(st.ok());
}

TEST_CASE("GradientDescent: w -= lr * grad, and global_step counts steps", "[optimizers]") {
  Quadratic q;
  GradientDescentOptimizer sgd(0.1);
  Node* train = sgd.Minimize(q.root, q.loss, {q.w}, &q.step);
  REQUIRE(train != nullptr);
  CHECK(train->name() == "GradientDescent");
  CHECK(sgd.variables().empty());
  auto session = Start(q.root, {q.w, q.step});
  std::vector<float> w = {1.f, -2.f, 0.5f};
  for (int step = 0; step < 3; ++step) {
    auto g = q.Grad(w, kXv);
    for (int i = 0; i < 3; ++i) w[i] -= 0.1f * g[i];
    TrainStep(*session, train);
    auto got = Read(*session, q.w.value);
    for (int i = 0; i < 3; ++i) CHECK(got[i] == Approx(w[i]).epsilon(1e-6));
  }
  std::vector<Tensor> t;
  REQUIRE(session->Run({}, {q.step.value.name()}, {}, &t).ok());
  CHECK(t[0].base<int64_t>()[0] == 3);
}

TEST_CASE("Momentum keeps an accumulator slot named <var>/Momentum", "[optimizers]") {
  Quadratic q;
  MomentumOptimizer momentum(0.05, 0.9);
  Node* train = momentum.Minimize(q.root, q.loss, {q.w});
  REQUIRE(train != nullptr);
  REQUIRE(momentum.variables().size() == 1);
  CHECK(momentum.variables()[0].name() == "w/Momentum");
  std::vector<Variable> all = {q.w, q.step};
  all.insert(all.end(), momentum.variables().begin(), momentum.variables().end());
  auto session = Start(q.root, all);
  std::vector<float> w = {1.f, -2.f, 0.5f}, accum(3, 0.f);
  for (int step = 0; step < 3; ++step) {
    auto g = q.Grad(w, kXv);
    for (int i = 0; i < 3; ++i) {
      accum[i] = 0.9f * accum[i] + g[i];
      w[i] -= 0.05f * accum[i];
    }
    TrainStep(*session, train);
  }
  auto got = Read(*session, q.w.value);
  for (int i = 0; i < 3; ++i) CHECK(got[i] == Approx(w[i]).epsilon(1e-5));
  auto acc = Read(*session, momentum.variables()[0].value);
  for (int i = 0; i < 3; ++i) CHECK(acc[i] == Approx(accum[i]).epsilon(1e-5));
}

TEST_CASE("Adam follows TensorFlow 1.x's update with bias-corrected learning rate", "[optimizers]") {
  Quadratic q;
  const double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  AdamOptimizer adam(lr, b1, b2, eps);
  Node* train = adam.Minimize(q.root, q.loss, {q.w}, &q.step);
  REQUIRE(train != nullptr);
  std::vector<std::string> names;
  for (const Variable& v : adam.variables()) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"beta1_power", "beta2_power", "w/Adam", "w/Adam_1"});
  std::vector<Variable> all = {q.w, q.step};
  all.insert(all.end(), adam.variables().begin(), adam.variables().end());
  auto session = Start(q.root, all);
  std::vector<double> w = {1, -2, 0.5}, m(3, 0), v(3, 0);
  double p1 = b1, p2 = b2;
  for (int step = 0; step < 4; ++step) {
    std::vector<float> wf(w.begin(), w.end());
    auto g = q.Grad(wf, kXv);
    const double lr_t = lr * std::sqrt(1 - p2) / (1 - p1);
    for (int i = 0; i < 3; ++i) {
      m[i] = b1 * m[i] + (1 - b1) * g[i];
      v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
      w[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps);
    }
    p1 *= b1;
    p2 *= b2;
    TrainStep(*session, train);
  }
  auto got = Read(*session, q.w.value);
  for (int i = 0; i < 3; ++i) CHECK(got[i] == Approx(w[i]).epsilon(1e-5));
  CHECK(Read(*session, adam.variables()[0].value)[0] == Approx(p1).epsilon(1e-6));
  std::vector<Tensor> t;
  REQUIRE(session->Run({}, {q.step.value.name()}, {}, &t).ok());
  CHECK(t[0].base<int64_t>()[0] == 4);
}

TEST_CASE("a variable read twice gets the sum of both reads' gradients", "[optimizers]") {
  Scope root = Scope::NewRootScope();
  Variable w = NewVariable(root, "w", ops::Const(root.WithOpName("w_init"), 3.f));
  Output second_read = ops::ReadVariableOp(root.WithOpName("read2"), w.handle, tensorflow::DT_FLOAT);
  Output loss = ops::Mul(root.WithOpName("loss"), w.value, second_read);  // w^2: gradient 2w
  GradientDescentOptimizer sgd(0.1);
  Node* train = sgd.Minimize(root, loss, {w});
  auto session = Start(root, {w});
  REQUIRE(session->Run({}, {}, {train->name()}, nullptr).ok());
  CHECK(Read(*session, w.value)[0] == Approx(3 - 0.1 * 6));
}

TEST_CASE("minimize errors: a loss that depends on no variable; a bad initial value", "[optimizers]") {
  Scope root = Scope::NewRootScope();
  Variable w = NewVariable(root, "w", ops::Const(root.WithOpName("w_init"), 3.f));
  Output loss = ops::Square(root.WithOpName("loss"), ops::Const(root, 2.f));
  GradientDescentOptimizer sgd(0.1);
  CHECK(sgd.Minimize(root, loss, {w}) == nullptr);
  CHECK(root.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(root.status().message(), Catch::Contains("no gradients") && Catch::Contains("w"));

  Scope other = Scope::NewRootScope();
  auto unknown = ops::Placeholder(other.WithOpName("p"), tensorflow::DT_FLOAT);
  Variable bad = NewVariable(other, "bad", unknown);
  CHECK(bad.handle.node == nullptr);
  CHECK_THAT(other.status().message(), Catch::Contains("variable 'bad'") && Catch::Contains("not fully known"));
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

TEST_CASE("a slot lives with its variable on another device than the optimizer's scope", "[optimizers]") {
  Scope root = Scope::NewRootScope();
  Scope far = root.WithDevice("/device:CPU:1");
  Variable w = NewVariable(far, "w", ops::Const(far.WithOpName("w_init"), {1.f, -2.f, 0.5f}));
  Output x = ops::Const(root.WithOpName("x"), {2.f, 1.f, -1.f});
  Output loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, ops::Mul(root, w.value, x)), {0});
  MomentumOptimizer momentum(0.1, 0.9);
  Node* train = momentum.Minimize(root, loss, {w}, nullptr);
  REQUIRE(train != nullptr);
  std::vector<Variable> vars = {w};
  for (const Variable& v : momentum.variables()) vars.push_back(v);
  REQUIRE(GroupInitializers(root.WithOpName("init"), vars) != nullptr);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  options.num_cpu_devices = 2;
  auto session = Session::New(options).value();
  REQUIRE(session->Create(def).ok());
  REQUIRE(session->Run({}, {}, {"init"}, nullptr).ok());
  Status s = session->Run({}, {}, {train->name()}, nullptr);
  INFO(s.ToString());
  CHECK(s.ok());
}

}  // namespace
}  // namespace tensoract
