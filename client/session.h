/// @file
/// Session: how a C++ application runs a graph.
///
/// @code
///   auto session = Session::New().value();       // a private server: master, worker, CPU
///   TA_RETURN_IF_ERROR(session->Create(graph_def));
///   std::vector<Tensor> out;
///   TA_RETURN_IF_ERROR(session->Run({{"x", x}}, {"y"}, {}, &out));
/// @endcode
///
/// A Session is a thin client of the master actor: Create sends CreateSession, Extend adds
/// nodes, Run sends RunStep and waits for the reply (with a deadline), Close sends
/// CloseSession. Feeds and fetches name any tensor "node:port"; targets name nodes to run
/// for their effects. Sessions made from one LocalServer share its worker and so its
/// variables (client/local_server.h).
///
/// Thread-safety: Run may be called from several threads at once; each call is its own
/// step. Close and Reset may be called from any thread while Runs wait (those Runs then
/// end with Cancelled). Create, Recreate and Extend must not race with each other.
#ifndef TENSORACT_CLIENT_SESSION_H_
#define TENSORACT_CLIENT_SESSION_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor.hpp>

#include "client/local_server.h"
#include "base/status.h"
#include "kernels/tensor.h"
#include "messages/config.pb.h"
#include "messages/device_attributes.pb.h"
#include "messages/graph.pb.h"
#include "messages/step_stats.pb.h"

namespace tensoract {

/// Cancels one Run from another thread, as TensorFlow's CancellationManager does for one
/// call:
/// @code
///   auto canceller = std::make_shared<StepCanceller>();
///   RunOptions options;
///   options.canceller = canceller;
///   auto run = std::async([&] { return session->Run(options, feeds, fetches, {}, &out); });
///   canceller->Cancel();   // the step stops on every task; Run returns CANCELLED
/// @endcode
/// A canceller serves one Run at a time; cancelled before that Run starts, the Run returns
/// CANCELLED at once. Thread-safe.
class StepCanceller {
 public:
  /// Cancels the Run this canceller serves, if one is running, on every task. Cancellation
  /// is final: every later Run given this canceller returns CANCELLED at once.
  void Cancel();
  /// True once Cancel() was called.
  bool cancelled() const;

 private:
  friend class Session;
  // Run says how to cancel its step while it runs; false when already cancelled.
  bool Install(std::function<void()> cancel);
  void Uninstall();

  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::function<void()> cancel_;
};

/// TensorFlow's RunOptions, the fields this runtime honours.
struct RunOptions {
  /// How much a step records (TensorFlow's RunOptions.TraceLevel); here every level above
  /// NO_TRACE collects the same per-node statistics.
  enum TraceLevel { NO_TRACE = 0, SOFTWARE_TRACE = 1, HARDWARE_TRACE = 2, FULL_TRACE = 3 };
  /// Anything above NO_TRACE collects per-node statistics into RunMetadata::step_stats (when
  /// Run is given a RunMetadata).
  TraceLevel trace_level = NO_TRACE;
  /// The step's deadline in milliseconds, past which it fails with DeadlineExceeded.
  int64_t timeout_ms = 0;  ///< 0 (or negative): SessionOptions::step_timeout_ms
  bool output_partition_graphs = false;  ///< return the graphs the workers ran in RunMetadata::partition_graphs
  std::shared_ptr<StepCanceller> canceller;  ///< to cancel this call from another thread; null: none
  /// Poll for the reply for ~50 us before sleeping when the step runs on other threads (a
  /// remote master, or run_on_caller_thread false): a step that answers within microseconds
  /// then costs no thread wake-up. False for a call that mostly waits (a queue runner's
  /// enqueue into a full queue), where polling only takes a core from the steps that work.
  bool spin_for_reply = true;
  /// With a master in this process, the step's actors run on the calling thread while it
  /// waits, as far as the step allows (client/step_caller.h): a small step then costs no
  /// thread hand-off, as TensorFlow's inter_op_parallelism_threads = -1 runs a step's ops
  /// on the caller's thread. Expensive kernels still go to the device's threads, and the
  /// step comes back to this thread when they are done. False: the actor system's
  /// scheduler threads run everything.
  bool run_on_caller_thread = true;
  /// TensorFlow's inter_op_thread_pool: 0, the device's threads (the one inter-op pool here),
  /// or -1, the caller's thread: with a master in this process the step then runs on the
  /// calling thread whatever run_on_caller_thread says, and so does every kernel, the
  /// expensive ones included; none waits behind, or delays, another step's kernels on the
  /// device's threads (a queue runner's steps: client/queue_runner.h). Kernels still split
  /// large element-wise work over the device's threads. With a remote master it changes
  /// nothing. Other values: InvalidArgument, as TensorFlow's for a pool it does not have.
  int inter_op_thread_pool = 0;
};

/// TensorFlow's RunMetadata: what a step reports besides its fetches.
struct RunMetadata {
  /// The step's per-node statistics, when RunOptions::trace_level is above NO_TRACE.
  tensorflow::StepStats step_stats;  ///< one DeviceStepStats per device, one NodeExecStats per node
  /// The graph partitions the workers ran for the step, when
  /// RunOptions::output_partition_graphs is set (empty otherwise).
  std::vector<tensorflow::GraphDef> partition_graphs;
};

/// A client's handle on one graph at a master: creates, extends and runs it, as TensorFlow's
/// tensorflow::Session does. Overview, and what may be called from several threads, in
/// session.h's description.
class Session {
 public:
  /// A session with a private server in its own actor system. With `options.target` set,
  /// a client of that remote master instead (LocalServer::Connect).
  static StatusOr<std::unique_ptr<Session>> New(const SessionOptions& options = {});
  /// A session with a private server in the application's actor system (must outlive it).
  /// A remote `options.target` is InvalidArgument here.
  static StatusOr<std::unique_ptr<Session>> New(caf::actor_system& system, const SessionOptions& options = {});
  /// A session on `server`, sharing its worker (and variables) with the server's other
  /// sessions. The server's options apply; the server must outlive the session.
  static StatusOr<std::unique_ptr<Session>> New(LocalServer& server);

  ~Session();  ///< closes the session (and stops a private server)

  /// Hands the graph to the master, which validates it: an unknown op, invalid attrs, an
  /// input that does not exist or incompatible shapes fail here, naming the node.
  /// AlreadyExists when the session has a graph already, Cancelled once it was closed.
  Status Create(const tensorflow::GraphDef& graph);
  /// Adds the nodes of `more` to the session's graph (they may use the existing nodes as
  /// inputs). Validated like Create; on failure the graph is unchanged.
  Status Extend(const tensorflow::GraphDef& more);
  /// Creates the session anew on the master with the graph it had (Create's and every
  /// Extend's nodes), after closing the old one where the master still has it: what a
  /// client does when its master restarted and forgot it (TensorFlow's MonitoredSession
  /// makes a new session on every recovery). Variables are not touched: restore them.
  Status Recreate();
  /// The master's version number of the session's graph: 0 after Create, then the one the
  /// master returned for the last successful Extend (each Extend sends it back, as
  /// TensorFlow's ExtendSession checks the client's graph is current).
  int64_t graph_version() const { return graph_version_; }
  /// Create's graph with every Extend's nodes (what a MetaGraphDef of the session holds).
  const tensorflow::GraphDef& graph_def() const { return graph_; }

  /// Runs one step with default RunOptions: feeds `feeds` (tensor name and value), computes
  /// `fetches` into `outputs` in the same order (`outputs` may be null) and runs `targets`
  /// for their effects. FailedPrecondition before Create, Cancelled after Close; otherwise the
  /// step's own error, naming the node that failed.
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, std::vector<Tensor>* outputs);
  /// Runs one step as the other Run does, under `options`. `metadata`, when not null,
  /// receives the step's statistics (RunOptions::trace_level) and partition graphs
  /// (RunOptions::output_partition_graphs).
  Status Run(const RunOptions& options, const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, RunMetadata* metadata = nullptr);

  /// TensorFlow's partial runs: PRunSetup declares every feed, fetch and target and starts
  /// one step; each PRun then feeds some of the declared feeds and fetches some of the
  /// declared fetches, as soon as they are computed. The step keeps its state between PRuns
  /// (a stateful op runs once). The PRun that completes every feed and fetch returns when the
  /// whole step (targets included) is done. A feed or fetch not declared, or given twice, is
  /// InvalidArgument, in TensorFlow's words. `handle`: the partial run's name, which
  /// PRunSetup sets and each PRun gives.
  ///@{
  Status PRunSetup(const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::string* handle);
  Status PRun(const std::string& handle, const std::vector<std::pair<std::string, Tensor>>& feeds,
              const std::vector<std::string>& fetches, std::vector<Tensor>* outputs);
  ///@}

  /// TensorFlow's callables: MakeCallable has the master compile (place, partition, register)
  /// the signature of `options` (feed, fetch, target and run_options) now, so its errors come
  /// here; RunCallable then runs steps of it, feeds and fetches by position in the options'
  /// order. tensor_connection, feed_devices and fetch_devices are refused (Unimplemented).
  /// ReleaseCallable forgets a handle; an unknown handle is InvalidArgument.
  ///@{
  using CallableHandle = int64_t;
  Status MakeCallable(const tensorflow::CallableOptions& options, CallableHandle* handle);
  Status RunCallable(CallableHandle handle, const std::vector<Tensor>& feeds, std::vector<Tensor>* fetches,
                     RunMetadata* metadata = nullptr);
  Status ReleaseCallable(CallableHandle handle);
  ///@}

  /// The devices this session can place on: the master's task's and every other task's
  /// (TensorFlow's Session::ListDevices).
  Status ListDevices(std::vector<tensorflow::DeviceAttributes>* devices);

  /// Closes the session on the master, which drops its graphs; Runs still waiting, and later
  /// Creates, Runs and other calls on the graph, end with Cancelled. OK, doing nothing, for a
  /// session without a graph. The destructor closes the session too.
  Status Close();

  /// TensorFlow's Session.reset: clears the resource containers (variables) named, or the
  /// default container when none is named, on the server's worker, and closes every
  /// session of the server (this one included).
  Status Reset(const std::vector<std::string>& containers = {});

  // For inspection and for applications that talk to the master directly.
  /// The master actor this session sends its requests to (for a remote target, the proxy of
  /// the node's master).
  const caf::actor& master() const { return server_->master(); }
  std::string handle() const;  ///< the master's name for this session
  /// A snapshot of every actor's state, one line or more per actor.
  std::string Inspect();

 private:
  Session(LocalServer* server, std::unique_ptr<LocalServer> owned);

  std::unique_ptr<LocalServer> owned_;  // set when the session made its own server
  LocalServer* server_;
  // What Close may change while a Run reads it. The graph and its version are Create's
  // and Extend's alone.
  mutable std::mutex mu_;
  std::string handle_;   // guarded by mu_
  bool closed_ = false;  // guarded by mu_: Close or Reset ended the session
  // The handle (empty: no graph) and whether the session was closed, under mu_.
  std::pair<std::string, bool> State() const;
  // What MakeCallable made, by the master's handle: its names and run options.
  struct Callable {
    std::vector<std::string> feeds, fetches, targets;
    RunOptions options;
  };
  std::map<CallableHandle, Callable> callables_;  // guarded by mu_
  tensorflow::GraphDef graph_;  // Create's graph with every Extend's nodes, for Recreate
  int64_t graph_version_ = 0;
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_SESSION_H_
