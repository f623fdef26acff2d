// A worker answers its master's heartbeats while a step of its computes, also where one
// scheduler thread and a device of one thread run every kernel inline on the thread the
// worker's actor shares (a cluster lab node: tensoract-node --threads 1). The executor hands
// the thread back every few milliseconds of kernels (actors/executor.cc, kInlineSlice);
// before, a heartbeat waited for the whole step, and the master declared the task
// unavailable.
#include <chrono>
#include <memory>
#include <thread>

#include <caf/all.hpp>
#include <catch2/catch.hpp>

#include "actors/messages.h"
#include "actors/scheduler_config.h"
#include "actors/worker.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/builder/scope.h"
#include "messages/graph.pb.h"

namespace tensoract {
namespace {

TEST_CASE("a worker on one thread answers a heartbeat while its step computes") {
  caf::actor_system_config config;
  ConfigureScheduler(config, 1);
  caf::actor_system system{config};
  WorkerOptions options;
  options.cpu_threads = 1;
  caf::actor worker = SpawnWorker(system, options);
  caf::scoped_actor self{system};

  // 192 products of 512x512 matrices, one after another: 52 GFLOP, 0.4 s and more on one
  // thread of any machine here (48 took only 0.11 s on an AVX-512 Zen 4, where a heartbeat
  // answered 68 ms late under load failed the check below). The random input keeps the
  // chain from being folded; its scale, 1/256 (a row of 512 averages 1), keeps the values
  // near 1 all along the chain: no denormals.
  Scope root = Scope::NewRootScope();
  Output x = ops::Mul(root, ops::RandomUniform(root, {512, 512}, tensorflow::DT_FLOAT), 1.0f / 256);
  Output y = x;
  for (int i = 0; i < 192; ++i) y = ops::MatMul(root, y, x);
  auto graph = std::make_shared<tensorflow::GraphDef>();
  REQUIRE(root.ToGraphDef(graph.get()).ok());

  RegisterGraphRequest registration;
  registration.graph = graph;
  std::string handle;
  self->request(worker, std::chrono::minutes(1), register_graph_atom::value, registration)
      .receive([&](RegisterGraphResponse& r) {
                 REQUIRE(r.status.ok());
                 handle = r.graph_handle;
               },
               [&](caf::error& e) { FAIL(system.render(e)); });

  constexpr int64_t kStep = 7;
  RunGraphRequest run;
  run.graph_handle = handle;
  run.step_id = kStep;
  auto step = self->request(worker, std::chrono::minutes(5), run_graph_atom::value, run);
  // Long enough for the executor to be among its kernels; far less than the step.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  WorkerInfo beat;
  const auto asked = std::chrono::steady_clock::now();
  self->request(worker, std::chrono::minutes(5), heartbeat_atom::value)
      .receive([&](WorkerInfo& info) { beat = std::move(info); }, [&](caf::error& e) { FAIL(system.render(e)); });
  const auto answered = std::chrono::steady_clock::now();
  CHECK(beat.running_steps == std::vector<int64_t>{kStep});
  step.receive([&](RunGraphResponse& r) { CHECK(r.status.ok()); }, [&](caf::error& e) { FAIL(system.render(e)); });
  const auto step_over = std::chrono::steady_clock::now();
  // Answered while the kernels ran, not when they were done: in the first half of what was
  // left of the step (a heartbeat queued behind the kernels came with the step's reply).
  const double waited = std::chrono::duration<double>(answered - asked).count();
  const double left = std::chrono::duration<double>(step_over - asked).count();
  INFO("heartbeat answered after " << waited << " s; the step ended " << left << " s after it was sent");
  CHECK(waited < left / 2);
  self->send_exit(worker, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace tensoract
