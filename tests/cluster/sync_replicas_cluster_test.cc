// Backup workers across processes (graph/training/sync_replicas.h): a ps and two workers,
// each worker a replica with its own client session (between-graph replication), the
// chief's sync op aggregating the first 1 of 2 gradients. Worker 1 is frozen (SIGSTOP)
// mid-training: replica 0 goes on taking steps without it, and after SIGCONT replica 1
// joins again, its late gradients dropped, and the global step keeps counting.
#include <catch2/catch.hpp>

#include <atomic>
#include <csignal>
#include <thread>

#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/sync_replicas.h"
#include "tests/cluster/cluster_test_util.h"

namespace tensoract {
namespace {

using testing::kPs;

using local_cluster::NodeProcess;


// Names of one replica's graph.
struct Replica {
  tensorflow::GraphDef def;
  std::string init, local_step_init, train, token, global_step;
  std::string chief_init, init_tokens, sync_op;  // used from replica 0's graph (the chief's)
};

// Replica `task` of y = sum(w * x), x fed and its gradient computed on worker `task`; the
// variables on the ps. Replica 0's init covers the shared variables, each replica's its
// own local step.
Replica BuildReplica(int task) {
  Replica r;
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice(kPs);
  Scope worker = root.NewSubScope(StrCat("replica_", task)).WithDevice(StrCat("/job:worker/replica:0/task:", task));
  Variable w = NewVariable(ps, "w", [](const Scope& s) { return ops::Const(s, {0.0f, 0.0f, 0.0f}); });
  Variable global_step = NewVariable(ps, "global_step", [](const Scope& s) { return ops::Const(s, int64_t{0}); });
  Output x = ops::Placeholder(root.WithOpName(StrCat("x_", task)), tensorflow::DT_FLOAT, PartialTensorShape({3}));
  Output grad = ops::Mul(worker, x, 1.0f);  // d/dw sum(w * x), made on the replica's worker
  GradientDescentOptimizer sgd(0.1);
  SyncReplicasOptimizer sync(&sgd, /*replicas_to_aggregate=*/1, /*total_num_replicas=*/2);
  SyncReplicasOps ops = sync.ApplyGradients(ps, worker, {w}, {grad}, global_step);
  std::vector<Variable> mine = {ops.local_step};
  if (task == 0) mine.insert(mine.end(), {w, global_step});
  Node* init = GroupInitializers(root.WithOpName("init"), mine);
  INFO(root.status().ToString());
  REQUIRE(root.status().ok());
  r.init = init->name();
  r.local_step_init = ops.local_step_init->name();
  r.train = ops.train->name();
  r.token = ops.token.name();
  r.global_step = global_step.value.name();
  r.chief_init = ops.chief_init->name();
  r.init_tokens = ops.init_tokens->name();
  r.sync_op = ops.chief_queue_runner.enqueue_op_names.at(0);
  REQUIRE(root.ToGraphDef(&r.def).ok());
  return r;
}

TEST_CASE("synchronous training goes on without a frozen backup worker, which joins again after it thaws",
          "[cluster][sync_replicas]") {
  testing::Cluster cluster({"--heartbeat-interval-ms", "200", "--heartbeat-timeout-ms", "1000"});
  std::vector<Replica> replicas = {BuildReplica(0), BuildReplica(1)};
  std::vector<std::unique_ptr<Session>> sessions;
  for (int t = 0; t < 2; ++t) {
    sessions.push_back(testing::Connect(cluster.target()));
    REQUIRE(sessions[t]->Create(replicas[t].def).ok());
  }
  auto chief = testing::Connect(cluster.target());
  REQUIRE(chief->Create(replicas[0].def).ok());
  std::vector<Tensor> out;
  REQUIRE(sessions[0]->Run({}, {}, {replicas[0].init}, &out).ok());
  REQUIRE(sessions[1]->Run({}, {}, {replicas[1].init}, &out).ok());
  for (int t = 0; t < 2; ++t) {
    Status s = sessions[t]->Run({}, {}, {replicas[t].local_step_init}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
  }
  REQUIRE(chief->Run({}, {}, {replicas[0].chief_init, replicas[0].init_tokens}, &out).ok());

  // The chief's queue runner, by hand: the sync op until told to stop (its last one, waiting
  // for a gradient that will not come, ends when its session closes).
  std::atomic<bool> stop{false};
  std::atomic<int> syncs{0};
  Status chief_error;
  std::thread chief_loop([&] {
    while (!stop) {
      std::vector<Tensor> o;
      Status s = chief->Run({}, {}, {replicas[0].sync_op}, &o);
      if (!s.ok()) {
        if (!stop) chief_error = s;
        return;
      }
      ++syncs;
    }
  });
  // One replica's step: feeds its x, runs train, gives the token's global step.
  auto step = [&](int t) -> StatusOr<int64_t> {
    std::vector<Tensor> o;
    TA_RETURN_IF_ERROR(sessions[t]->Run({{StrCat("x_", t), Tensor::FromVector<float>({1.0f, 2.0f, 3.0f})}},
                                        {replicas[t].token}, {replicas[t].train}, &o));
    return o[0].base<int64_t>()[0];
  };

  // Both replicas a few steps; replica 1 keeps stepping in the background.
  std::atomic<int> replica1_steps{0};
  std::atomic<bool> replica1_failed{false};
  std::string replica1_error;
  std::thread replica1([&] {
    while (!stop) {
      auto s = step(1);
      if (s.ok()) {
        ++replica1_steps;
      } else if (!stop) {
        replica1_failed = true;  // its step with worker 1 frozen: it tries again
        replica1_error = s.status().ToString();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  });
  int64_t last = 0;
  for (int i = 0; i < 10; ++i) {
    auto s = step(0);
    INFO(s.status().ToString());
    REQUIRE(s.ok());
    last = s.value();
  }
  // Worker 1 stops where it is. Replica 0 goes on: its steps wait for tokens the chief
  // gives only after a sync, one per replica (two), and replica 0 alone takes both, so its
  // 20 steps are about 10 global steps, made without worker 1's gradients.
  cluster.worker1.Signal(SIGSTOP);
  const int64_t frozen_at = last;
  for (int i = 0; i < 20; ++i) {
    auto s = step(0);
    INFO(s.status().ToString());
    REQUIRE(s.ok());
    last = s.value();
  }
  CHECK(last >= frozen_at + 5);  // (tokens left from before the freeze may cover a few steps)
  cluster.worker1.Signal(SIGCONT);
  // Replica 1 is back: it takes steps again (its late gradients dropped by the ps).
  const int before = replica1_steps;
  for (int i = 0; i < 200 && replica1_steps < before + 5; ++i) {
    auto s = step(0);
    INFO(s.status().ToString());
    REQUIRE(s.ok());
    last = s.value();
  }
  CHECK(replica1_steps >= before + 5);
  INFO("replica 1's error while worker 1 was frozen: " << replica1_error);
  CHECK(chief_error.ok());
  stop = true;
  chief->Close();
  for (auto& s : sessions) s->Close();
  chief_loop.join();
  replica1.join();
  CHECK(chief_error.ok());
}

}  // namespace
}  // namespace tensoract
