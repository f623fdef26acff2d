/// @file
/// LocalServer: a master and one worker (with its CPU device) in one actor system, the
/// in-process counterpart of TensorFlow's tf.train.Server.
///
/// Every Session made from the same server talks to the same master and worker, so they
/// share the worker's resource containers: a variable one session initialises, another
/// reads. Session::New() without a server makes a private one.
///
/// @code
///   auto server = LocalServer::New().value();
///   auto a = Session::New(*server).value();
///   auto b = Session::New(*server).value();   // sees a's variables
/// @endcode
///
/// The server must outlive its sessions. Thread-safety: the accessors may be called from
/// any thread.
#ifndef TENSORACT_CLIENT_LOCAL_SERVER_H_
#define TENSORACT_CLIENT_LOCAL_SERVER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include <caf/actor.hpp>

#include "base/status.h"
#include "graph/optimizer/graph_optimizer.h"
#include "kernels/device.h"

namespace caf {
class actor_system;
}  // namespace caf

namespace tensoract {

class StepCaller;

/// How a LocalServer, and so a Session, is set up (TensorFlow's session target and
/// ConfigProto): where the master is, threads, devices, placement, graph passes, timeouts.
struct SessionOptions {
  /// Where the master is: empty for one in this process (with a worker of its own), or
  /// "tensoract://host:port" for the master of a running cluster's node (tensoract-node),
  /// like TensorFlow's grpc:// targets. A remote session behaves as a local one; its
  /// graphs run on the cluster's tasks (the device options below are then the node's).
  std::string target;
  /// The cluster's shared token, presented to a remote target; empty: the environment's
  /// TENSORACT_CLUSTER_TOKEN.
  std::string cluster_token;
  /// TLS mode instead of the token (the cluster's nodes run with `--tls-*`): the client's
  /// certificate and key from the cluster CA, and the CA's certificate (PEM files).
  ///@{
  std::string tls_cert_file, tls_key_file, tls_ca_file;
  ///@}
  /// Threads of the actor scheduler and of the CPU devices' pools; 0: one per core (one
  /// scheduler thread for a remote target's client, which runs no kernels).
  int num_threads = 0;
  /// CPU devices of the worker (TensorFlow's ConfigProto.device_count["CPU"]); the threads
  /// are shared out among them. Nodes go where their device constraints say, or where the
  /// placer's cost model expects them to finish first (graph/placer.h).
  int num_cpu_devices = 1;
  /// A constraint no device can meet falls back to a device that can run the node
  /// (ConfigProto.allow_soft_placement) instead of failing.
  bool allow_soft_placement = false;
  /// Prints "node: device" for every node of each call graph it places, on stderr
  /// (ConfigProto.log_device_placement).
  bool log_device_placement = false;
  /// The worker's GPUs (one /device:GPU:N each, where CUDA finds any): which are visible,
  /// and how much of each one's memory the process may take (GPUOptions). Nodes with a
  /// GPU kernel go to a GPU unless their device says otherwise.
  GpuDeviceOptions gpu;
  /// Float tensors cross devices as bfloat16, their high 16 bits: half the bytes, 8
  /// significant bits (GraphOptions.enable_bfloat16_sendrecv; whitepaper section 5.5).
  bool enable_bfloat16_sendrecv = false;
  /// Recvs wait until their values are needed (GraphOptions.enable_recv_scheduling;
  /// whitepaper section 5.2), lowering peak memory on the receiving device.
  bool enable_recv_scheduling = false;
  /// A step that runs longer fails with DeadlineExceeded (RunOptions may set its own).
  int64_t step_timeout_ms = 10 * 60 * 1000;
  /// A remote target only: while a call waits, the client asks the master's node for a
  /// heartbeat every master_heartbeat_interval_ms, and fails the call with Unavailable
  /// naming the master when one goes unanswered for master_heartbeat_timeout_ms (a frozen
  /// or cut-off master; a dead one is noticed at once). 0: wait out the call's deadline.
  ///@{
  int64_t master_heartbeat_interval_ms = 1000;
  int64_t master_heartbeat_timeout_ms = 3000;
  ///@}
  /// The graph passes run on every call graph: common-subexpression elimination and
  /// constant folding, each switchable off (TensorFlow's OptimizerOptions).
  GraphOptimizerOptions optimizer;
};

/// A master and one worker in one actor system, shared by the sessions made from it; or,
/// made by Connect, the client's end of a remote cluster's master (see local_server.h).
class LocalServer {
 public:
  /// With its own actor system (scheduler threads: options.num_threads, or one per core).
  /// A non-empty `options.target` makes it the client's end of that target (Connect).
  static StatusOr<std::unique_ptr<LocalServer>> New(const SessionOptions& options = {});
  /// In the application's actor system, which must outlive the server. A remote
  /// `options.target` is InvalidArgument here.
  static StatusOr<std::unique_ptr<LocalServer>> New(caf::actor_system& system, const SessionOptions& options = {});
  /// The client's end of a remote target (options.target = "tensoract://host:port"): its
  /// master() is a proxy of the node's master (actors/remote_master.h) and it has no
  /// worker. InvalidArgument for a malformed target, FailedPrecondition without a token.
  static StatusOr<std::unique_ptr<LocalServer>> Connect(const SessionOptions& options);
  ~LocalServer();  ///< stops the master and the worker

  /// The actor system the server's actors run in: its own, or the application's.
  caf::actor_system& system() const { return system_; }
  /// The master actor its sessions send their requests to (for a remote target, a proxy of
  /// the node's master).
  const caf::actor& master() const { return master_; }
  /// The worker actor that holds the devices and the resource containers (variables) the
  /// server's sessions share; an invalid (null) handle for a remote target's client end.
  const caf::actor& worker() const { return worker_; }
  /// The worker's devices, CPUs first, for running ops in this process outside a graph
  /// (client/eager_context.h); empty for a remote target's client end.
  const std::vector<std::shared_ptr<Device>>& devices() const { return devices_; }
  /// How Session::Run sends its steps to master() (client/step_caller.h).
  StepCaller& step_caller() const { return *step_caller_; }
  /// The options the server was made with; their timeouts apply to all its sessions.
  const SessionOptions& options() const { return options_; }

 private:
  struct OwnedSystem;
  LocalServer(caf::actor_system& system, std::unique_ptr<OwnedSystem> owned, const SessionOptions& options);
  LocalServer(caf::actor_system& system, std::unique_ptr<OwnedSystem> owned, const SessionOptions& options,
              caf::actor remote_master);

  std::unique_ptr<OwnedSystem> owned_;  // destroyed last: it waits for the actors to end
  caf::actor_system& system_;
  SessionOptions options_;
  caf::actor master_, worker_;
  std::vector<std::shared_ptr<Device>> devices_;
  std::unique_ptr<StepCaller> step_caller_;
};

/// Threads for `options`: num_threads, or one per core (std::thread::hardware_concurrency,
/// 2 when it is unknown).
int ThreadsFor(const SessionOptions& options);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_LOCAL_SERVER_H_
