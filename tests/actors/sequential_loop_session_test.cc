// Sequential loops in a session (graph/optimizer/sequential_loops.h, the _SequentialLoop
// kernel): a loop run by one kernel computes what the executor's frames compute
// (GraphOptimizerOptions::sequential_loops off), for no iterations, one and many, with
// variables read and written in the body, a TensorList built an element per iteration and
// a value of the condition the body also reads; an error in iteration k names its node and
// k; a loop that never ends still ends at the step's deadline; the workers ran the fused
// node.
#include <catch2/catch.hpp>

#include <chrono>

#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/list_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kScalar;
using testing::Values;
namespace tf = ::tensorflow;

// while (i < n) { acc = acc * 0.5 + x * 3 + w (+ v after v += 1); list[i] = acc * c; i += 1 }
// with c = i < 2 (from the condition's side of the loop), x a placeholder, w and v
// variables ("init" sets w = 0.25, v = 0). Fetches "acc" and "stacked" (the list, n rows).
tf::GraphDef SequentialLoopGraph() {
  return testing::BuildGraph([&](const Scope& root) {
    const testing::LoopInputs inputs = testing::MakeLoopInputs(root);
    const Output n = inputs.n, x = inputs.x, w = inputs.w, v = inputs.v;
    Output list = ops::TensorListReserve(root, ops::Const(root, {2}), n, tf::DT_FLOAT);
    const std::vector<Output> out = testing::CountedLoop(
        root, n, {ops::Const(root, 0), ops::ZerosLike(root, x), list},
        [&](const Scope& sc, const std::vector<Output>& in) {
          Output acc = ops::Add(sc, ops::Mul(sc, in[1], 0.5f), ops::Mul(sc, x, 3.f));
          acc = ops::Add(sc, acc, ops::ReadVariableOp(sc, w, tf::DT_FLOAT));
          Node* bump = ops::AssignAddVariableOp(sc, v, 1.f);
          acc = ops::Add(sc, acc, ops::ReadVariableOp(sc.WithControlDependencies({bump}), v, tf::DT_FLOAT));
          Output early = ops::Cast(sc, ops::Less(sc, in[0], 2), tf::DT_FLOAT);
          Output row = ops::Mul(sc, acc, early);
          return std::vector<Output>{ops::Add(sc, in[0], 1), acc, ops::TensorListSetItem(sc, in[2], in[0], row)};
        }, "seq");
    ops::Identity(root.WithOpName("acc"), out[1]);
    ops::TensorListStack(root.WithOpName("stacked"), out[2], ops::Const(root, {2}), tf::DT_FLOAT);
  });
}

SessionOptions Sequential(bool on) {
  SessionOptions options;
  options.optimizer.sequential_loops = on;
  return options;
}

std::vector<Tensor> RunSequentialLoop(Session* session, int n, RunMetadata* metadata = nullptr) {
  std::vector<Tensor> out;
  Status s = session->Run({}, {}, {"init"}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  RunOptions options;
  options.output_partition_graphs = metadata != nullptr;
  s = session->Run(options, {{"x", Tensor::FromVector<float>({1.f, -2.f})}, {"n", Tensor::Scalar<int32_t>(n)}},
                   {"acc", "stacked"}, {}, &out, metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return out;
}

TEST_CASE("a loop run by one kernel computes what the executor's frames compute", "[optimizer][loops][control_flow]") {
  auto frames = testing::NewSessionWith(SequentialLoopGraph(), Sequential(false));
  auto fused = testing::NewSessionWith(SequentialLoopGraph(), Sequential(true));
  for (int n : {0, 1, 7, 7}) {
    INFO("n = " << n);
    std::vector<Tensor> want = RunSequentialLoop(frames.get(), n);
    std::vector<Tensor> got = RunSequentialLoop(fused.get(), n);
    CHECK(Values(got[0]) == Values(want[0]));
    CHECK(got[1].shape() == want[1].shape());
    CHECK(Values(got[1]) == Values(want[1]));
  }
  // The values themselves, once: acc_k = acc_{k-1} / 2 + 3x + 0.25 + k; rows after the
  // second are zeros.
  float a = 0.f, b = 0.f;
  std::vector<float> rows;
  for (int k = 1; k <= 3; ++k) {
    a = a * 0.5f + 3.f + 0.25f + k;
    b = b * 0.5f - 6.f + 0.25f + k;
    const float keep = k <= 2 ? 1.f : 0.f;
    rows.push_back(a * keep);
    rows.push_back(b * keep);
  }
  RunMetadata metadata;
  std::vector<Tensor> got = RunSequentialLoop(fused.get(), 3, &metadata);
  CHECK(Values(got[0]) == std::vector<float>{a, b});
  CHECK(Values(got[1]) == rows);
  // The worker ran the loop as one node, without the executor's loop primitives.
  int loops = 0, merges = 0;
  for (const tf::GraphDef& partition : metadata.partition_graphs) {
    for (const tf::NodeDef& node : partition.node()) {
      loops += node.op() == "_SequentialLoop";
      merges += node.op() == "Merge";
    }
  }
  CHECK(loops == 1);
  CHECK(merges == 0);
}

TEST_CASE("an error in a sequential loop names its node and iteration", "[optimizer][loops][control_flow]") {
  // while (i < 5) { q = 12 / (3 - i); i += 1 }: integer division by zero in iteration 3.
  auto graph = testing::BuildGraph([&](const Scope& root) {
    const std::vector<Output> out = testing::CountedLoop(
        root, ops::Const(root, 5), {ops::Const(root, 0), ops::Const(root, 0)},
        [&](const Scope& sc, const std::vector<Output>& in) {
          Output q = ops::FloorDiv(sc.WithOpName("quotient"), ops::Const(sc, 12), ops::Sub(sc, ops::Const(sc, 3), in[0]));
          return std::vector<Output>{ops::Add(sc, in[0], 1), ops::Add(sc, in[1], q)};
        }, "divide");
    ops::Identity(root.WithOpName("sum"), out[1]);
  });
  auto session = testing::NewSessionWith(graph, Sequential(true));
  std::vector<Tensor> out;
  Status s = session->Run({}, {"sum"}, {}, &out);
  INFO(s.ToString());
  REQUIRE_FALSE(s.ok());
  CHECK(s.message().find("quotient") != std::string::npos);
  CHECK(s.message().find("iteration 3") != std::string::npos);
  // The session runs on after it.
  auto fine = testing::NewSessionWith(SequentialLoopGraph(), Sequential(true));
  CHECK(RunSequentialLoop(fine.get(), 2).size() == 2);
}

TEST_CASE("a sequential loop that never ends ends at the step's deadline", "[optimizer][loops][control_flow]") {
  // while (i >= 0) i = i * 1: never false.
  auto graph = testing::BuildGraph([&](const Scope& root) {
    std::vector<Output> out;
    ops::WhileLoopOptions options;
    options.name = "forever";
    Status s = ops::WhileLoop(
        root, {ops::Const(root, 1)},
        [](const Scope& sc, const std::vector<Output>& in, Output* pred) {
          *pred = ops::GreaterEqual(sc, in[0], 0);
          return sc.status();
        },
        [](const Scope& sc, const std::vector<Output>& in, std::vector<Output>* next) {
          *next = {ops::Mul(sc, in[0], 1)};
          return sc.status();
        },
        &out, options);
    REQUIRE(s.ok());
    ops::Identity(root.WithOpName("never"), out[0]);
  });
  auto session = testing::NewSessionWith(graph, Sequential(true));
  // On the device's threads, and on the caller's (inter_op_thread_pool -1), where the loop
  // still leaves the thread between slices for the deadline to reach it.
  for (int pool : {0, -1}) {
    RunOptions options;
    options.timeout_ms = 300;
    options.inter_op_thread_pool = pool;
    std::vector<Tensor> out;
    const auto start = std::chrono::steady_clock::now();
    Status s = session->Run(options, {}, {"never"}, {}, &out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO("inter_op_thread_pool " << pool << ": " << s.ToString());
    CHECK(s.code() == error::DEADLINE_EXCEEDED);
    CHECK(seconds < 10);  // a bound against a hang, not a timing
  }
}

}  // namespace
}  // namespace tensoract
