// Lanes in a session (graph/loop_lanes.h): two loops that nothing orders run on executors
// of their own, and the step is the same step: the same values as on one executor (with
// GraphOptimizerOptions::parallel_loops off), one DeviceStepStats for the device, the cause
// of an error in one lane, and later steps on the executors kept idle. (Sequential loops
// are off here: they would leave no loop for lanes.)
#include <set>

#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/partition.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kScalar;

using testing::Values;
namespace tf = ::tensorflow;


// Two loops of n iterations over x, independent of each other:
//   "halving":  a = a * 0.5 + i
//   "doubling": b = reshape(b * 2 - 1, shape)   (a bad `shape` fails the step in this loop)
// fetched as "a" and "b".
tf::GraphDef TwoLoops() {
  return testing::BuildGraph([](const Scope& root) {
    auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({2}));
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    auto shape = ops::Placeholder(root.WithOpName("shape"), tf::DT_INT32, PartialTensorShape({1}));
    auto loop = [&](const std::string& name, const std::function<Output(const Scope&, Output, Output)>& step) {
      std::vector<Output> out;
      ops::WhileLoopOptions options;
      options.name = name;
      Status s = ops::WhileLoop(
          root, {ops::Const(root, 0), x},
          [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
            *pred = ops::Less(sc, v[0], n);
            return sc.status();
          },
          [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
            auto i = ops::Add(sc, v[0], 1);
            *next = {i, step(sc, v[1], ops::Cast(sc, i, tf::DT_FLOAT))};
            return sc.status();
          },
          &out, options);
      INFO(s.ToString());
      REQUIRE(s.ok());
      return out[1];
    };
    ops::Identity(root.WithOpName("a"), loop("halving", [](const Scope& sc, Output a, Output i) {
                    return ops::Add(sc, ops::Mul(sc, a, 0.5f), i);
                  }));
    ops::Identity(root.WithOpName("b"), loop("doubling", [&](const Scope& sc, Output b, Output) {
                    return ops::Reshape(sc, ops::Sub(sc, ops::Mul(sc, b, 2.f), 1.f), shape);
                  }));
  });
}

struct Result {
  Status status;
  std::vector<float> a, b;
  RunMetadata metadata;
};

Result RunLoops(Session* session, int n, int32_t shape = 2, int inter_op_thread_pool = 0) {
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  options.output_partition_graphs = true;
  options.inter_op_thread_pool = inter_op_thread_pool;
  options.timeout_ms = 60000;
  Result r;
  std::vector<Tensor> out;
  r.status = session->Run(options,
                          {{"x", Tensor::FromVector<float>({1.f, -3.f})},
                           {"n", Tensor::Scalar<int32_t>(n)},
                           {"shape", Tensor::FromVector<int32_t>({shape})}},
                          {"a", "b"}, {}, &out, &r.metadata);
  if (r.status.ok()) {
    r.a = Values(out[0]);
    r.b = Values(out[1]);
  }
  return r;
}

SessionOptions Lanes(bool on) {
  SessionOptions options;
  options.num_threads = 2;
  options.optimizer.parallel_loops = on;
  // Lanes are for the loops the executor runs: these would otherwise each become one node
  // (graph/optimizer/sequential_loops.h).
  options.optimizer.sequential_loops = false;
  return options;
}

TEST_CASE("two independent loops run in two lanes with one executor's results", "[lanes][control_flow]") {
  auto one = testing::NewSessionWith(TwoLoops(), Lanes(false));
  auto two = testing::NewSessionWith(TwoLoops(), Lanes(true));
  // Twice each, the second time on the executors the first step left idle.
  for (int n : {0, 1, 30, 30}) {
    for (int pool : {0, -1}) {  // -1: no lane has a thread of its own
      INFO("n = " << n << ", inter_op_thread_pool " << pool);
      Result want = RunLoops(one.get(), n, 2, pool);
      Result got = RunLoops(two.get(), n, 2, pool);
      INFO(want.status.ToString() << " / " << got.status.ToString());
      REQUIRE(want.status.ok());
      REQUIRE(got.status.ok());
      CHECK(got.a == want.a);
      CHECK(got.b == want.b);
      // Two lanes of one device, joined by a _Send/_Recv pair; without lanes, one graph.
      CHECK(want.metadata.partition_graphs.size() == 1);
      REQUIRE(got.metadata.partition_graphs.size() == 2);
      bool laned = false;
      for (const auto& node : got.metadata.partition_graphs[1].node()) {
        laned = laned || node.attr().count(kExecutorLaneAttr) == 1;
      }
      CHECK(laned);
      // The device's statistics are one DeviceStepStats, with both loops' nodes.
      REQUIRE(got.metadata.step_stats.dev_stats_size() == 1);
      std::set<std::string> loops;
      for (const auto& node : got.metadata.step_stats.dev_stats(0).node_stats()) {
        for (const char* loop : {"halving/", "doubling/"}) {
          if (node.node_name().rfind(loop, 0) == 0) loops.insert(loop);
        }
      }
      CHECK(loops.size() == 2);
      // With the device's threads as the inter-op pool, a lane runs on a thread of its own.
      // (The loops' nodes: a _Recv's statistics name the thread that answered it.)
      if (pool == 0) {
        std::set<uint32_t> threads;
        for (const auto& node : got.metadata.step_stats.dev_stats(0).node_stats()) {
          if (node.node_name().rfind("halving/", 0) == 0 || node.node_name().rfind("doubling/", 0) == 0) {
            threads.insert(node.thread_id());
          }
        }
        CHECK(threads.size() >= 2);
      }
    }
  }
}

TEST_CASE("an error in one lane fails the step with its cause, and the next step runs", "[lanes][control_flow]") {
  auto session = testing::NewSessionWith(TwoLoops(), Lanes(true));
  Result bad = RunLoops(session.get(), 5, /*shape=*/3);
  INFO(bad.status.ToString());
  CHECK(bad.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad.status.message(), Catch::Contains("doubling"));
  Result good = RunLoops(session.get(), 5);
  INFO(good.status.ToString());
  REQUIRE(good.status.ok());
  CHECK(good.b == std::vector<float>{1.f * 32 - 31, -3.f * 32 - 31});
}

}  // namespace
}  // namespace tensoract
