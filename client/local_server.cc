#include "client/local_server.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/cluster_transport.h"
#include "actors/local_devices.h"
#include "actors/master.h"
#include "actors/remote_master.h"
#include "actors/scheduler_config.h"
#include "actors/worker.h"
#include "client/caf_thread_state.h"
#include "client/step_caller.h"

namespace tensoract {

int ThreadsFor(const SessionOptions& options) { return ThreadsOrCores(options.num_threads); }

struct LocalServer::OwnedSystem {
  // `credentials` null: a local system, with no network at all.
  OwnedSystem(int threads, const ClusterCredentials* credentials)
      : config(MakeConfig(threads, credentials)), system(config) {}
  static caf::actor_system_config MakeConfig(int threads, const ClusterCredentials* credentials) {
    caf::actor_system_config cfg;
    // Checked by the caller: credentials that MakeSslContext refuses never get here.
    if (credentials != nullptr) (void)ConfigureClusterTransport(cfg, *credentials, "tensoract client");
    ConfigureScheduler(cfg, threads);
    return cfg;
  }
  caf::actor_system_config config;
  caf::actor_system system;
};

StatusOr<std::unique_ptr<LocalServer>> LocalServer::New(const SessionOptions& options) {
  KeepCafThreadState keep;  // a server may be destroyed on another thread (caf_thread_state.h)
  if (!options.target.empty()) return Connect(options);
  auto owned = std::make_unique<OwnedSystem>(ThreadsFor(options), nullptr);
  caf::actor_system& system = owned->system;
  return std::unique_ptr<LocalServer>(new LocalServer(system, std::move(owned), options));
}

StatusOr<std::unique_ptr<LocalServer>> LocalServer::New(caf::actor_system& system, const SessionOptions& options) {
  KeepCafThreadState keep;
  if (!options.target.empty()) {
    return errors::InvalidArgument("a remote target (", options.target,
                                   ") needs a session with its own actor system: use Session::New(options)");
  }
  return std::unique_ptr<LocalServer>(new LocalServer(system, nullptr, options));
}

LocalServer::LocalServer(caf::actor_system& system, std::unique_ptr<OwnedSystem> owned, const SessionOptions& options)
    : owned_(std::move(owned)), system_(system), options_(options), step_caller_(new StepCaller(system)) {
  WorkerOptions worker_options;
  worker_options.cpu_threads = ThreadsFor(options);
  worker_options.num_cpu_devices = options.num_cpu_devices;
  worker_options.gpu = options.gpu;
  worker_options.default_step_timeout_ms = options.step_timeout_ms;
  std::string gpu_notes;
  devices_ = MakeLocalDevices(worker_options.task_name, worker_options.cpu_threads, options.num_cpu_devices,
                              options.gpu, &gpu_notes);
  if (!gpu_notes.empty()) std::fprintf(stderr, "local server: %s", gpu_notes.c_str());
  worker_options.devices = devices_;
  worker_ = SpawnWorker(system_, worker_options);
  MasterOptions master_options;
  master_options.default_step_timeout_ms = options.step_timeout_ms;
  master_options.optimizer = options.optimizer;
  master_options.allow_soft_placement = options.allow_soft_placement;
  master_options.log_device_placement = options.log_device_placement;
  master_options.enable_bfloat16_sendrecv = options.enable_bfloat16_sendrecv;
  master_options.enable_recv_scheduling = options.enable_recv_scheduling;
  master_ = SpawnMaster(system_, worker_, master_options);
}

StatusOr<std::unique_ptr<LocalServer>> LocalServer::Connect(const SessionOptions& options) {
  constexpr const char* kScheme = "tensoract://";
  const std::string& target = options.target;
  if (target.rfind(kScheme, 0) != 0) {
    return errors::InvalidArgument("target '", target, "' is not of the form tensoract://host:port");
  }
  std::string where = target.substr(std::string(kScheme).size());
  size_t colon = where.rfind(':');
  int port = colon == std::string::npos ? 0 : std::atoi(where.c_str() + colon + 1);
  if (colon == std::string::npos || colon == 0 || port <= 0 || port > 65535) {
    return errors::InvalidArgument("target '", target, "' has no valid host:port");
  }
  std::string host = where.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  ClusterCredentials credentials;
  if (!options.tls_cert_file.empty()) {
    credentials.tls_cert_file = options.tls_cert_file;
    credentials.tls_key_file = options.tls_key_file;
    credentials.tls_ca_file = options.tls_ca_file;
  } else {
    credentials.token = options.cluster_token;
    if (credentials.token.empty()) {
      const char* env = std::getenv("TENSORACT_CLUSTER_TOKEN");
      credentials.token = env ? env : "";
      while (!credentials.token.empty() && std::isspace(static_cast<unsigned char>(credentials.token.back()))) {
        credentials.token.pop_back();
      }
    }
    if (credentials.token.empty()) {
      return errors::FailedPrecondition("target ", target,
                                        " needs the cluster token: set SessionOptions::cluster_token or "
                                        "TENSORACT_CLUSTER_TOKEN (or the tls_* files for TLS mode)");
    }
  }
  Status valid = credentials.Validate();
  if (!valid.ok()) return errors::FailedPrecondition("target ", target, ": ", valid.message());
  if (credentials.tls()) {
    auto loaded = MakeSslContext(credentials);  // a bad file is told here, not at the first call
    if (!loaded.ok()) return errors::FailedPrecondition("target ", target, ": ", loaded.status().message());
  }
  // A remote target's client runs no kernels, only the actors that talk to its master: one
  // scheduler thread unless asked for more (every idle worker of a second one wakes a
  // thousand times a second to look for work to steal; 32 clients of a lab on 2 cores).
  const int threads = options.num_threads > 0 ? options.num_threads : 1;
  auto owned = std::make_unique<OwnedSystem>(threads, &credentials);
  caf::actor_system& system = owned->system;
  RemoteAddress address{host, static_cast<uint16_t>(port), StrCat("master ", target), 5000};
  address.fail_calls_when_gone = true;
  address.liveness_interval_ms = options.master_heartbeat_interval_ms;
  address.liveness_timeout_ms = options.master_heartbeat_timeout_ms;
  caf::actor master = SpawnRemoteMaster(system, address, options.step_timeout_ms);
  return std::unique_ptr<LocalServer>(new LocalServer(system, std::move(owned), options, std::move(master)));
}

LocalServer::LocalServer(caf::actor_system& system, std::unique_ptr<OwnedSystem> owned, const SessionOptions& options,
                         caf::actor remote_master)
    : owned_(std::move(owned)),
      system_(system),
      options_(options),
      master_(std::move(remote_master)),
      step_caller_(new StepCaller(system)) {}

LocalServer::~LocalServer() {
  caf::anon_send_exit(master_, caf::exit_reason::user_shutdown);
  if (worker_) caf::anon_send_exit(worker_, caf::exit_reason::user_shutdown);
  // An owned actor system waits for every actor to finish when it is destroyed (owned_).
}

}  // namespace tensoract
