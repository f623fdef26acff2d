#include "actors/local_server.h"

#include <thread>

#include <caf/all.hpp>

#include "actors/master.h"
#include "actors/worker.h"

namespace tensoract {

int ThreadsFor(const SessionOptions& options) {
  if (options.num_threads > 0) return options.num_threads;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 2 : static_cast<int>(n);
}

struct LocalServer::OwnedSystem {
  explicit OwnedSystem(int threads) : config(MakeConfig(threads)), system(config) {}
  static caf::actor_system_config MakeConfig(int threads) {
    caf::actor_system_config cfg;
    // CAF's default is 4 threads; more threads than cores only adds wake-ups (DESIGN.md).
    cfg.set("scheduler.max-threads", static_cast<size_t>(threads));
    return cfg;
  }
  caf::actor_system_config config;
  caf::actor_system system;
};

StatusOr<std::unique_ptr<LocalServer>> LocalServer::New(const SessionOptions& options) {
  auto owned = std::make_unique<OwnedSystem>(ThreadsFor(options));
  caf::actor_system& system = owned->system;
  return std::unique_ptr<LocalServer>(new LocalServer(system, std::move(owned), options));
}

StatusOr<std::unique_ptr<LocalServer>> LocalServer::New(caf::actor_system& system, const SessionOptions& options) {
  return std::unique_ptr<LocalServer>(new LocalServer(system, nullptr, options));
}

LocalServer::LocalServer(caf::actor_system& system, std::unique_ptr<OwnedSystem> owned, const SessionOptions& options)
    : owned_(std::move(owned)), system_(system), options_(options) {
  WorkerOptions worker_options;
  worker_options.cpu_threads = ThreadsFor(options);
  worker_options.num_cpu_devices = options.num_cpu_devices;
  worker_options.default_step_timeout_ms = options.step_timeout_ms;
  worker_ = SpawnWorker(system_, worker_options);
  MasterOptions master_options;
  master_options.default_step_timeout_ms = options.step_timeout_ms;
  master_options.optimizer = options.optimizer;
  master_options.allow_soft_placement = options.allow_soft_placement;
  master_options.enable_bfloat16_sendrecv = options.enable_bfloat16_sendrecv;
  master_options.enable_recv_scheduling = options.enable_recv_scheduling;
  master_ = SpawnMaster(system_, worker_, master_options);
}

LocalServer::~LocalServer() {
  caf::anon_send_exit(master_, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(worker_, caf::exit_reason::user_shutdown);
  // An owned actor system waits for every actor to finish when it is destroyed (owned_).
}

}  // namespace tensoract
