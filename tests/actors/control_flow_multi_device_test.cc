// Loops and conditionals whose nodes span several CPU devices of one worker (issue 7):
// partitioning gives every device that receives values inside a loop its own control loop
// (Enter/Merge/Switch/NextIteration following the loop's LoopCond, sent to it each
// iteration), so each device's executor runs the loop's iterations and ends it; the
// results equal one device's.
#include <set>

#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Cpu;

using testing::kScalar;

using testing::Values;
namespace tf = ::tensorflow;


SessionOptions Devices(int n) {
  SessionOptions options;
  options.num_threads = 2;
  options.num_cpu_devices = n;
  return options;
}

// i = 0; a = x; while (i < n) { i += 1; a = a * 0.5 + i (on CPU:1); b = a - 1 (on CPU:2) }
struct Built {
  tf::GraphDef graph;
  std::string a, i;
};
Built LoopOverDevices(int64_t parallel_iterations) {
  Scope root = Scope::NewRootScope().WithDevice(Cpu(0));
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({2}));
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  std::vector<Output> r;
  ops::WhileLoopOptions options;
  options.parallel_iterations = parallel_iterations;
  Status s = ops::WhileLoop(
      root, {ops::Const(root, 0), x},
      [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
        *pred = ops::Less(sc, v[0], n);
        return sc.status();
      },
      [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        auto i = ops::Add(sc, v[0], 1);
        auto fi = ops::Cast(sc.WithDevice(Cpu(1)), i, tf::DT_FLOAT);
        auto a = ops::Add(sc.WithDevice(Cpu(1)), ops::Mul(sc.WithDevice(Cpu(1)), v[1], 0.5f), fi);
        auto b = ops::Sub(sc.WithDevice(Cpu(2)), a, 1.f);
        *next = {i, ops::Add(sc, b, 1.f)};
        return sc.status();
      },
      &r, options);
  INFO(s.ToString());
  REQUIRE(s.ok());
  Built built;
  REQUIRE(root.ToGraphDef(&built.graph).ok());
  built.i = r[0].name();
  built.a = r[1].name();
  return built;
}

std::vector<float> ExpectedLoop(std::vector<float> a, int n) {
  for (int i = 1; i <= n; ++i) {
    for (float& v : a) v = v * 0.5f + static_cast<float>(i);
  }
  return a;
}

TEST_CASE("a loop whose body spans three devices terminates with the right trip count and values",
          "[multi_device][control_flow]") {
  for (int64_t parallel : {1, 10}) {
    INFO("parallel_iterations " << parallel);
    Built built = LoopOverDevices(parallel);
    auto session = testing::NewSessionWith(built.graph, Devices(3));
    for (int n : {0, 1, 7, 200}) {
      INFO("n = " << n);
      RunOptions options;
      options.output_partition_graphs = true;
      options.timeout_ms = 60000;
      RunMetadata metadata;
      std::vector<Tensor> out;
      Status s = session->Run(options, {{"x", Tensor::FromVector<float>({1.f, -3.f})}, {"n", Tensor::Scalar<int32_t>(n)}},
                              {built.i, built.a}, {}, &out, &metadata);
      INFO(s.ToString());
      REQUIRE(s.ok());
      CHECK(out[0].base<int32_t>()[0] == n);
      std::vector<float> want = ExpectedLoop({1.f, -3.f}, n);
      CHECK(Values(out[1])[0] == Approx(want[0]));
      CHECK(Values(out[1])[1] == Approx(want[1]));
      // CPU:1 and CPU:2 each follow the loop with a control loop of their own (CPU:0,
      // which holds the loop, gets one too as it receives values inside it, as in
      // TensorFlow).
      std::set<std::string> with_control_loop;
      for (const auto& g : metadata.partition_graphs) {
        for (const auto& node : g.node()) {
          if (node.op() == "Merge" && node.name().rfind("_cloop/", 0) == 0) with_control_loop.insert(node.device());
        }
      }
      CHECK(with_control_loop.count(Cpu(1)) == 1);
      CHECK(with_control_loop.count(Cpu(2)) == 1);
    }
  }
}

TEST_CASE("nested loops and a conditional spread over two devices give one device's results",
          "[multi_device][control_flow]") {
  auto build = [](bool spread) {
    Scope root = Scope::NewRootScope().WithDevice(Cpu(0));
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, kScalar);
    std::vector<Output> r;
    Status s = ops::WhileLoop(
        root, {ops::Const(root, 0), ops::Const(root, 0.f)},
        [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
          *pred = ops::Less(sc, v[0], n);
          return sc.status();
        },
        [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
          std::vector<Output> inner;
          // for j < i: t += (j odd ? x : j)   -- the inner body on the other device
          TA_RETURN_IF_ERROR(ops::WhileLoop(
              sc, {ops::Const(sc, 0), v[1]},
              [&](const Scope& s2, const std::vector<Output>& w, Output* pred) {
                *pred = ops::Less(s2, w[0], v[0]);
                return s2.status();
              },
              [&](const Scope& s2, const std::vector<Output>& w, std::vector<Output>* nx) {
                std::vector<Output> term;
                Scope o2 = spread ? s2.WithDevice(Cpu(1)) : s2;
                TA_RETURN_IF_ERROR(ops::Cond(
                    o2, ops::Equal(o2, ops::FloorMod(o2, w[0], 2), 1),
                    [&](const Scope& b, std::vector<Output>* out) {
                      out->push_back(ops::Identity(b, x));
                      return b.status();
                    },
                    [&](const Scope& b, std::vector<Output>* out) {
                      out->push_back(ops::Cast(b, w[0], tf::DT_FLOAT));
                      return b.status();
                    },
                    &term));
                *nx = {ops::Add(s2, w[0], 1), ops::Add(o2, w[1], term[0])};
                return s2.status();
              },
              &inner, {10, {}, "inner"}));
          *next = {ops::Add(sc, v[0], 1), inner[1]};
          return sc.status();
        },
        &r);
    INFO(s.ToString());
    REQUIRE(s.ok());
    tf::GraphDef def;
    REQUIRE(root.ToGraphDef(&def).ok());
    return std::make_pair(def, r[1].name());
  };
  auto [one, fetch] = build(false);
  auto [two, fetch2] = build(true);
  auto single = testing::NewSessionWith(one, Devices(1));
  auto multi = testing::NewSessionWith(two, Devices(2));
  for (int n : {0, 1, 4, 12}) {
    INFO("n = " << n);
    std::vector<Tensor> a, b;
    std::vector<std::pair<std::string, Tensor>> feeds{{"n", Tensor::Scalar<int32_t>(n)},
                                                       {"x", Tensor::Scalar<float>(0.25f)}};
    REQUIRE(single->Run(feeds, {fetch}, {}, &a).ok());
    RunOptions options;
    options.timeout_ms = 60000;
    Status s = multi->Run(options, feeds, {fetch2}, {}, &b);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(Values(a[0]) == Values(b[0]));
  }
}

TEST_CASE("the gradient of a loop whose body spans two devices matches one device's",
          "[multi_device][control_flow]") {
  auto build = [](bool spread) {
    Scope root = Scope::NewRootScope().WithDevice(Cpu(0));
    auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({2}));
    auto w = ops::Placeholder(root.WithOpName("w"), tf::DT_FLOAT, PartialTensorShape({2}));
    std::vector<Output> r;
    Status s = ops::WhileLoop(
        root, {ops::Const(root, 0), x},
        [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
          *pred = ops::Less(sc, v[0], 5);
          return sc.status();
        },
        [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
          Scope o = spread ? sc.WithDevice(Cpu(1)) : sc;
          *next = {ops::Add(sc, v[0], 1), ops::Tanh(o, ops::Mul(o, v[1], w))};
          return sc.status();
        },
        &r);
    REQUIRE(s.ok());
    std::vector<Output> grads;
    REQUIRE(AddSymbolicGradients(root, {ops::Sum(root, r[1], 0)}, {x, w}, &grads).ok());
    tf::GraphDef def;
    REQUIRE(root.ToGraphDef(&def).ok());
    return std::make_pair(def, std::vector<std::string>{grads[0].name(), grads[1].name()});
  };
  auto [one, f1] = build(false);
  auto [two, f2] = build(true);
  auto single = testing::NewSessionWith(one, Devices(1));
  auto multi = testing::NewSessionWith(two, Devices(2));
  std::vector<std::pair<std::string, Tensor>> feeds{{"x", Tensor::FromVector<float>({0.3f, -0.8f})},
                                                     {"w", Tensor::FromVector<float>({1.1f, 0.7f})}};
  std::vector<Tensor> a, b;
  REQUIRE(single->Run(feeds, f1, {}, &a).ok());
  RunOptions options;
  options.timeout_ms = 60000;
  Status s = multi->Run(options, feeds, f2, {}, &b);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Values(a[0]) == Values(b[0]));
  CHECK(Values(a[1]) == Values(b[1]));
}

}  // namespace
}  // namespace tensoract
