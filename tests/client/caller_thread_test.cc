// Where a step's kernels run when the master is in the caller's process: the executor is
// resumed on the calling thread while it waits (RunOptions::run_on_caller_thread), also
// after kernels it handed to the device's pool are done (actors/caller_unit.h), so that a
// training step does not move to a scheduler thread halfway through while its caller
// sleeps; with RunOptions::inter_op_thread_pool -1 none goes to the pool at all. Seen
// through a traced step's node statistics, whose thread ids are those of
// the threads that ran each kernel.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "client/session.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace {

constexpr int kSide = 256;  // of the matrices multiplied

// How node statistics name a thread (the executor's ThisThreadId).
uint32_t IdOfThisThread() { return static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id())); }

// Two products of 256x256 matrices, each long enough to go to the device's pool while the
// other is ready (hundreds of microseconds, past kMaxInlineKernelNanos on any machine: at
// 128x128 a fast CPU measured them short enough to keep inline, and the test failed in CI),
// then a chain of small kernels on their sum.
tensorflow::GraphDef ProductsThenSmallOps() {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), tensorflow::DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), tensorflow::DT_FLOAT);
  auto left = ops::MatMul(root.WithOpName("left"), a, b);
  auto right = ops::MatMul(root.WithOpName("right"), b, a);
  auto sum = ops::Add(root.WithOpName("sum"), left, right);
  ops::Neg(root.WithOpName("out"), ops::Abs(root.WithOpName("abs"), sum));
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  return graph;
}

std::unique_ptr<Session> NewSession() {
  SessionOptions options;
  options.num_threads = 2;  // a pool of two: expensive kernels leave the executor
  auto made = Session::New(options);
  REQUIRE(made.ok());
  std::unique_ptr<Session> session = std::move(made).value();
  REQUIRE(session->Create(ProductsThenSmallOps()).ok());
  return session;
}

RunOptions CallerThread(bool on) {
  RunOptions run;
  run.run_on_caller_thread = on;
  return run;
}

// The thread id of each node of a traced run of ProductsThenSmallOps.
std::map<std::string, uint32_t> ThreadsOfNodes(Session& session, RunOptions run) {
  const Tensor m = Tensor::FromVector<float>(std::vector<float>(kSide * kSide, 0.5f), TensorShape({kSide, kSide}));
  run.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  Status s = session.Run(run, {{"a", m}, {"b", m}}, {"out"}, {}, &out, &metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].base<float>()[0] == -kSide * 0.25f * 2);
  std::map<std::string, uint32_t> threads;
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    for (const auto& node : dev.node_stats()) threads[node.node_name()] = node.thread_id();
  }
  return threads;
}

TEST_CASE("the kernels after those on the device's pool run on the calling thread", "[session][threads]") {
  std::unique_ptr<Session> session = NewSession();
  // The first steps spawn the worker's executors, which the scheduler starts: from the
  // third on, a step reuses an idle one.
  for (int i = 0; i < 2; ++i) ThreadsOfNodes(*session, CallerThread(true));
  // Repeated: which product finishes first, and whether the executor is still busy then,
  // varies from run to run. A step can also start while the master is still finishing the
  // previous one's bookkeeping on a scheduler thread (handed over after the reply): then
  // the whole step runs there, legitimately. A pause between steps makes that rare; on a
  // loaded machine it still happens, so most steps, not all, must come back.
  int on_caller = 0;
  const int steps = 20;
  for (int i = 0; i < steps; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::map<std::string, uint32_t> threads = ThreadsOfNodes(*session, CallerThread(true));
    REQUIRE(threads.count("sum"));
    REQUIRE(threads.count("out"));
    // At least one product went to the pool (both were ready at once).
    CHECK((threads["left"] != IdOfThisThread() || threads["right"] != IdOfThisThread()));
    if (threads["sum"] == IdOfThisThread() && threads["abs"] == IdOfThisThread() && threads["out"] == IdOfThisThread()) {
      ++on_caller;
    }
  }
  // Before the pool's answers went through the caller's unit, none did.
  INFO("on caller: " << on_caller);
  CHECK(on_caller >= steps * 3 / 4);
}

TEST_CASE("with run_on_caller_thread off no kernel runs on the calling thread", "[session][threads]") {
  std::unique_ptr<Session> session = NewSession();
  std::map<std::string, uint32_t> threads = ThreadsOfNodes(*session, CallerThread(false));
  REQUIRE(!threads.empty());
  for (const auto& [name, thread] : threads) {
    INFO(name);
    CHECK(thread != IdOfThisThread());
  }
}

TEST_CASE("with inter_op_thread_pool -1 every kernel runs on the calling thread, the products too",
          "[session][threads]") {
  std::unique_ptr<Session> session = NewSession();
  for (bool run_on_caller_thread : {true, false}) {  // -1 runs the step here either way
    RunOptions run = CallerThread(run_on_caller_thread);
    run.inter_op_thread_pool = -1;
    for (int i = 0; i < 2; ++i) ThreadsOfNodes(*session, run);  // executors spawned
    int on_caller = 0;
    const int steps = 10;
    for (int i = 0; i < steps; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::map<std::string, uint32_t> threads = ThreadsOfNodes(*session, run);
      REQUIRE(threads.count("left"));
      // Nothing went to the device's pool: one thread ran the whole step. (As above, a step
      // may start on a scheduler thread still busy with the master's previous reply.)
      for (const auto& [name, thread] : threads) {
        INFO(name);
        CHECK(thread == threads["left"]);
      }
      if (threads["left"] == IdOfThisThread()) ++on_caller;
    }
    INFO("on caller: " << on_caller);
    CHECK(on_caller >= steps * 3 / 4);
  }
}

TEST_CASE("an inter_op_thread_pool other than 0 or -1 is InvalidArgument", "[session][threads]") {
  std::unique_ptr<Session> session = NewSession();
  for (int pool : {1, -2}) {
    RunOptions run;
    run.inter_op_thread_pool = pool;
    std::vector<Tensor> out;
    Status s = session->Run(run, {}, {}, {}, &out, nullptr);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Contains("Invalid inter_op_thread_pool: " + std::to_string(pool)));
  }
}

}  // namespace
}  // namespace tensoract
