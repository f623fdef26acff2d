// Conditional accumulators (kernels/cpu/accumulator_ops.cc) and SyncReplicasOptimizer
// (graph/training/sync_replicas.h) through a session: a take waits for its gradients
// without holding a thread and is answered by the apply that brings them; a take whose
// step ends is cancelled and the accumulator goes on; and synchronous training with a
// backup replica that never shows up still advances, dropping a late gradient.
// (TensorFlow's own values for the accumulator ops: tests/compat/tf_graph_compat.py.)
#include <catch2/catch.hpp>

#include <future>
#include <thread>

#include "graph/builder/accumulator_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/training/sync_replicas.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using tensorflow::DT_FLOAT;
using tensorflow::DT_INT64;

// "acc": a float [2] accumulator; "grad" and "local_step" fed to "apply"; "take" takes
// "required" gradients; "count".
tensorflow::GraphDef AccumulatorGraph() {
  return testing::BuildGraph([](const Scope& s) {
    Output acc = ops::ConditionalAccumulator(s.WithOpName("acc"), DT_FLOAT, PartialTensorShape({2}));
    Output grad = ops::Placeholder(s.WithOpName("grad"), DT_FLOAT, PartialTensorShape());
    Output step = ops::Placeholder(s.WithOpName("local_step"), DT_INT64, PartialTensorShape(std::vector<int64_t>{}));
    Output required = ops::Placeholder(s.WithOpName("required"), tensorflow::DT_INT32, PartialTensorShape(std::vector<int64_t>{}));
    ops::AccumulatorApplyGradient(s.WithOpName("apply"), acc, step, grad);
    ops::AccumulatorTakeGradient(s.WithOpName("take"), acc, required, DT_FLOAT);
    ops::AccumulatorNumAccumulated(s.WithOpName("count"), acc);
  });
}

Status Apply(Session& session, std::vector<float> grad, int64_t step) {
  std::vector<Tensor> out;
  return session.Run({{"grad", Tensor::FromVector<float>(grad)}, {"local_step", Tensor::Scalar<int64_t>(step)}}, {},
                     {"apply"}, &out);
}

std::pair<Status, std::vector<float>> Take(Session& session, int required, const RunOptions& options = {}) {
  std::vector<Tensor> out;
  Status s = session.Run(options, {{"required", Tensor::Scalar<int32_t>(required)}}, {"take:0"}, {}, &out);
  return {s, s.ok() ? testing::Values(out[0]) : std::vector<float>()};
}

int Count(Session& session) {
  std::vector<Tensor> out;
  REQUIRE(session.Run({}, {"count:0"}, {}, &out).ok());
  return out[0].base<int32_t>()[0];
}

TEST_CASE("a take waits for its gradients and the apply that brings them answers it", "[accumulator]") {
  auto session = testing::NewSessionWith(AccumulatorGraph());
  auto take = std::async(std::launch::async, [&] { return Take(*session, 2); });
  REQUIRE(take.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
  REQUIRE(Apply(*session, {1, 2}, 0).ok());
  REQUIRE(take.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout);
  REQUIRE(Apply(*session, {3, 6}, 0).ok());
  auto [status, mean] = take.get();
  INFO(status.ToString());
  REQUIRE(status.ok());
  CHECK(mean == std::vector<float>{2, 4});
  CHECK(Count(*session) == 0);
  // The take advanced the global step to 1: a gradient for step 0 is a late one, dropped.
  REQUIRE(Apply(*session, {9, 9}, 0).ok());
  CHECK(Count(*session) == 0);
}

TEST_CASE("a take whose step times out is cancelled and the accumulator goes on", "[accumulator]") {
  auto session = testing::NewSessionWith(AccumulatorGraph());
  RunOptions options;
  options.timeout_ms = 300;
  auto [status, values] = Take(*session, 1, options);
  INFO(status.ToString());
  CHECK(errors::IsDeadlineExceeded(status));
  // The cancelled take is gone: the next gradient is held, not handed to it.
  REQUIRE(Apply(*session, {5, 7}, 0).ok());
  CHECK(Count(*session) == 1);
  auto [second, mean] = Take(*session, 1);
  REQUIRE(second.ok());
  CHECK(mean == std::vector<float>{5, 7});
}

TEST_CASE("bad accumulator input is refused naming what was wrong", "[accumulator]") {
  auto session = testing::NewSessionWith(AccumulatorGraph());
  Status wrong_shape = Apply(*session, {1, 2, 3}, 0);
  CHECK(errors::IsInvalidArgument(wrong_shape));
  CHECK_THAT(wrong_shape.message(), Catch::Contains("Shape mismatch: expected [2], got [3]"));
  auto [zero, values] = Take(*session, 0);
  CHECK(errors::IsInvalidArgument(zero));
  CHECK_THAT(zero.message(), Catch::Contains("num_required must be positive"));
}

// Three replicas of one model, y = w * x, each with its own placeholder "x_i", in one
// graph (one session stands for three workers: the accumulators and the token queue are
// shared by name as they would be on a ps). Replicas aggregated: two.
struct ReplicaNames {
  std::string train, local_step_init;
};
struct ThreeReplicas {
  std::unique_ptr<Session> session;
  std::vector<ReplicaNames> replicas;  // (the nodes go with the graph the builder made)
  std::string global_step_read, weight_read, init, chief_init, init_tokens, sync_op;
};

ThreeReplicas BuildThreeReplicas() {
  ThreeReplicas r;
  tensorflow::GraphDef def = testing::BuildGraph([&](const Scope& s) {
    Variable w = NewVariable(s, "w", [](const Scope& i) { return ops::Const(i, {1.0f, 1.0f}); });
    Variable global_step = NewVariable(s, "global_step", [](const Scope& i) { return ops::Const(i, int64_t{0}); });
    GradientDescentOptimizer sgd(0.5);
    SyncReplicasOptimizer sync(&sgd, /*replicas_to_aggregate=*/2, /*total_num_replicas=*/3);
    std::vector<SyncReplicasOps> built;
    for (int i = 0; i < 3; ++i) {
      Scope replica = s.NewSubScope(StrCat("replica_", i));
      // The loss sum(w * x) has gradient x: what replica i feeds is its gradient.
      Output x = ops::Placeholder(replica.WithOpName("x"), DT_FLOAT, PartialTensorShape({2}));
      built.push_back(sync.ApplyGradients(replica, replica, {w}, {x}, global_step));
      REQUIRE(built.back().train != nullptr);
      r.replicas.push_back({built.back().train->name(), built.back().local_step_init->name()});
    }
    r.chief_init = built[0].chief_init->name();
    r.init_tokens = built[0].init_tokens->name();
    r.sync_op = built[0].chief_queue_runner.enqueue_op_names.at(0);
    r.global_step_read = global_step.value.name();
    r.weight_read = w.value.name();
    std::vector<Variable> all = {w, global_step};
    for (const SyncReplicasOps& ops : built) all.push_back(ops.local_step);
    Node* init = GroupInitializers(s.WithOpName("init"), all);
    INFO(s.status().ToString());
    REQUIRE(init != nullptr);
    r.init = init->name();
  });
  r.session = testing::NewSessionWith(def);
  return r;
}

TEST_CASE("synchronous training with a backup replica goes on without it and drops its late gradient",
          "[accumulator][sync_replicas]") {
  ThreeReplicas r = BuildThreeReplicas();
  Session& session = *r.session;
  std::vector<Tensor> out;
  REQUIRE(session.Run({}, {}, {r.init}, &out).ok());
  for (const ReplicaNames& names : r.replicas) REQUIRE(session.Run({}, {}, {names.local_step_init}, &out).ok());
  REQUIRE(session.Run({}, {}, {r.chief_init, r.init_tokens}, &out).ok());
  const std::string sync_op = r.sync_op;

  auto step = [&](int replica, std::vector<float> x) {
    return std::async(std::launch::async, [&session, &r, replica, x] {
      std::vector<Tensor> o;
      return session.Run({{StrCat("replica_", replica, "/x"), Tensor::FromVector<float>(x)}}, {},
                         {r.replicas[replica].train}, &o);
    });
  };
  auto read = [&](const std::string& name) {
    std::vector<Tensor> o;
    REQUIRE(session.Run({}, {name}, {}, &o).ok());
    return o[0];
  };

  // Step 0: replicas 0 and 1 (two tokens were put in); replica 2 is a straggler.
  auto a = step(0, {2, 4});
  auto b = step(1, {4, 8});
  REQUIRE(a.get().ok());
  REQUIRE(b.get().ok());
  std::vector<Tensor> o;
  REQUIRE(session.Run({}, {}, {sync_op}, &o).ok());  // the chief: mean {3, 6}, w -= 0.5 * mean
  CHECK(testing::Values(read(r.weight_read)) == std::vector<float>{-0.5f, -2.0f});
  CHECK(read(r.global_step_read).base<int64_t>()[0] == 1);

  // The straggler's gradient for step 0 arrives late: dropped by the accumulators; it
  // takes one of the three tokens for step 1. Replica 0's next gradient is late too (the
  // first tokens were for step 0, as TensorFlow's), and it takes the second token.
  REQUIRE(step(2, {100, 100}).get().ok());
  REQUIRE(step(0, {50, 50}).get().ok());
  CHECK(read(r.global_step_read).base<int64_t>()[0] == 1);
  // Step 1: replicas 2 and 0 are the first two; the chief aggregates them without 1.
  // Replica 0 waits for a token of step 2: the queue has one left, which replica 2 takes.
  REQUIRE(step(2, {1, 1}).get().ok());
  auto c = step(0, {3, 1});
  REQUIRE(c.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
  REQUIRE(session.Run({}, {}, {sync_op}, &o).ok());  // mean {2, 1}
  REQUIRE(c.get().ok());
  CHECK(testing::Values(read(r.weight_read)) == std::vector<float>{-1.5f, -2.5f});
  CHECK(read(r.global_step_read).base<int64_t>()[0] == 2);
}

}  // namespace
}  // namespace tensoract
