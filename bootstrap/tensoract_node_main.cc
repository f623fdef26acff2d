// tensoract-node: the process of one task of a cluster. It spawns the task's worker (with
// its data plane), a master that drives every task of the cluster (for clients that
// connect with a tensoract://host:port target), and the node service that answers both
// for other processes; publishes the service on the task's port through the cluster
// transport (actors/cluster_transport.h: only peers that prove they hold the cluster's
// credentials reach it), prints one ready line, and runs until SIGTERM or SIGINT. Flags and config file: bootstrap/node_config.h
// (or --help).
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <google/protobuf/stubs/logging.h>

#include "actors/cluster_transport.h"
#include "actors/master.h"
#include "actors/messages.h"
#include "actors/node_service.h"
#include "actors/scheduler_config.h"
#include "actors/worker.h"
#include "bootstrap/grpc_master.h"
#include "bootstrap/node_auth.h"
#include "bootstrap/node_config.h"

namespace tensoract {
namespace {

// How long a clean shutdown may take before the process gives up on it. The actor system
// waits for every actor to finish; an actor that never does must not keep a stopped node
// (and whoever supervises it) waiting forever.
constexpr auto kShutdownDeadline = std::chrono::seconds(5);

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Protobuf logs each string field of a request that is not UTF-8, once per field and
// request: a peer could fill the log. The first few go to stderr, then one line says the
// rest are dropped (the requests themselves are refused with InvalidArgument as ever).
void LimitProtobufLogs() {
  google::protobuf::SetLogHandler([](google::protobuf::LogLevel level, const char* file, int line,
                                     const std::string& message) {
    static std::atomic<int> logged{0};
    const int n = logged++;
    if (n < 20) {
      std::cerr << "tensoract-node: protobuf: " << message << "\n";
    } else if (n == 20) {
      std::cerr << "tensoract-node: protobuf: further messages of protobuf's parser are not logged\n";
    }
  });
}

int Run(const NodeOptions& options, const ClusterCredentials& credentials, const sigset_t& stop_signals) {
  const std::string task = options.task_name();
  caf::actor_system_config config;
  Status configured = ConfigureClusterTransport(config, credentials, "tensoract-node " + task);
  if (!configured.ok()) {
    std::cerr << "tensoract-node " << task << ": refusing to start: " << configured << "\n";
    return 1;
  }
  const int threads = ThreadsOrCores(options.threads);
  ConfigureScheduler(config, threads);
  caf::actor_system system{config};

  WorkerOptions worker_options;
  worker_options.task_name = task;
  worker_options.cpu_threads = threads;
  worker_options.num_cpu_devices = options.cpu_devices;
  worker_options.gpu.visible_device_list = options.gpus;
  worker_options.serve_data_plane = true;
  worker_options.data_plane_host = options.listen;
  worker_options.data_plane_advertise = options.advertise;
  worker_options.credentials = credentials;
  worker_options.collective_leader = CollectiveLeaderTask(options.cluster);
  caf::actor worker = SpawnWorker(system, worker_options);
  MasterOptions master_options;
  for (const std::string& job : options.cluster.jobs()) {
    for (int t = 0; t < options.cluster.num_tasks(job); ++t) {
      if (job == options.job && t == options.task) continue;
      TaskAddress peer = options.cluster.Task(job, t).value();
      master_options.remote_tasks.push_back(RemoteAddress{peer.host, peer.port, TaskName(job, t), 5000});
    }
  }
  master_options.heartbeat_interval_ms = options.heartbeat_interval_ms;
  master_options.heartbeat_timeout_ms = options.heartbeat_timeout_ms;
  master_options.enable_bfloat16_sendrecv = options.bfloat16_sendrecv;
  master_options.session_gc_seconds = options.session_gc_seconds;
  caf::actor master = SpawnMaster(system, worker, master_options);
  caf::actor service = SpawnNodeService(system, worker, master);
  auto stop_actors = [&] {
    caf::anon_send_exit(service, caf::exit_reason::kill);  // it ignores other exits
    caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
  };
  // The worker's data plane, to announce it. A node without one would run half-configured
  // (every step that spans tasks failing), so it refuses to start instead.
  std::string data_plane;
  {
    caf::scoped_actor self{system};
    self->request(worker, std::chrono::seconds(10), heartbeat_atom::value)
        .receive([&](WorkerInfo& info) { data_plane = info.data_plane; }, [&](caf::error&) {});
  }
  if (data_plane.empty()) {
    std::cerr << "tensoract-node " << task << ": refusing to start: its data plane cannot listen on "
              << options.listen << " (see the line above)\n";
    stop_actors();
    return 1;
  }

  // reuse: a restarted node must get its port back while the old one's is in TIME_WAIT.
  // (SO_REUSEADDR does not let two live nodes share a port: the second bind fails.)
  auto port = system.middleman().publish(service, options.address.port, options.listen.c_str(), true);
  if (!port) {
    std::cerr << "tensoract-node " << task << ": cannot listen on " << options.listen << ":" << options.address.port
              << ": " << system.render(port.error()) << " (is another process using the port?)\n";
    stop_actors();
    return 1;
  }
  if (!IsLoopback(options.address.host) && IsLoopback(options.listen)) {
    std::cerr << "tensoract-node " << task << ": note: the cluster spec gives this task the address "
              << options.address.ToString() << " but it listens on " << options.listen
              << " only; pass --listen to accept peers from other hosts\n";
  }
  // TensorFlow's own clients, when asked for: its MasterService over gRPC.
  std::unique_ptr<GrpcFront> grpc;
  std::string grpc_line;
  if (!options.grpc_master.empty()) {
    GrpcFront::Options grpc_options;
    grpc_options.address = options.grpc_master;
    grpc_options.tls_cert_file = options.grpc_tls_cert_file;
    grpc_options.tls_key_file = options.grpc_tls_key_file;
    grpc_options.tls_ca_file = options.grpc_tls_ca_file;
    grpc_options.routes = MasterServiceRoutes(system, service);
    auto started = GrpcFront::Start(std::move(grpc_options));
    if (!started.ok()) {
      std::cerr << "tensoract-node " << task << ": --grpc-master: " << started.status() << "\n";
      system.middleman().unpublish(service, *port);
      stop_actors();
      return 1;
    }
    grpc = std::move(started).value();
    const std::string host = options.grpc_master.substr(0, options.grpc_master.rfind(':'));
    grpc_line = "; grpc master: " + host + ":" + std::to_string(grpc->port());
  }
  TaskAddress listening{options.listen, *port};
  std::cout << "tensoract-node ready: " << task << " on " << listening.ToString() << "; data plane: " << data_plane
            << grpc_line << std::endl;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  std::cerr << "tensoract-node " << task << ": " << (signal_number == SIGINT ? "SIGINT" : "SIGTERM")
            << ", shutting down\n";
  std::thread([] {
    std::this_thread::sleep_for(kShutdownDeadline);
    std::fputs("tensoract-node: shutdown took too long, exiting anyway\n", stderr);
    _exit(1);
  }).detach();
  grpc.reset();  // its calls in flight answered while the actors still run
  system.middleman().unpublish(service, *port);
  stop_actors();
  return 0;  // ~actor_system waits for the actors and closes every connection
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << tensoract::NodeUsage();
      return 0;
    }
  }
  const char* tf_config = std::getenv("TF_CONFIG");
  auto options = tensoract::ParseNodeArgs(args, tf_config ? tf_config : "");
  if (!options.ok()) {
    std::cerr << "tensoract-node: " << options.status() << "\n(tensoract-node --help shows the flags)\n";
    return 2;
  }
  auto credentials = tensoract::LoadClusterCredentials(options->token_file, options->tls_cert_file,
                                                       options->tls_key_file, options->tls_ca_file);
  if (!credentials.ok()) {
    std::cerr << "tensoract-node " << options->task_name() << ": refusing to start: " << credentials.status() << "\n";
    return 1;
  }
  // Blocked here, before any thread starts, so every thread inherits the mask and the
  // signals wait for sigwait in Run instead of killing the process mid-step.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  tensoract::LimitProtobufLogs();
  return tensoract::Run(*options, *credentials, stop_signals);
}
