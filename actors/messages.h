// The messages the runtime's actors exchange inside one process.
//
// Atoms name the request; the structs carry tensors by reference (a Tensor copy shares
// its buffer), so a feed or a fetch crosses the master, the worker and the executor
// without its bytes being copied. Errors travel as Status values inside replies: a
// caf::error means only that the actor system itself failed (timeout, actor gone).
//
// These structs are local-only (CAF_ALLOW_UNSAFE_MESSAGE_TYPE): across processes the
// control protocol travels as protobuf bytes and tensors over the data plane (a later
// issue), never through CAF's serializer.
#ifndef TENSORACT_ACTORS_MESSAGES_H_
#define TENSORACT_ACTORS_MESSAGES_H_

#include <map>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/error.hpp>

#include "base/status.h"
#include "kernels/tensor.h"
#include "messages/device_attributes.pb.h"
#include "messages/graph.pb.h"
#include "messages/step_stats.pb.h"

namespace tensoract {

// The longest step deadline a request may ask for (30 days). A larger one (INT64_MAX from a
// careless or hostile client) would overflow where CAF turns it into nanoseconds past now.
inline constexpr int64_t kMaxTimeoutMs = int64_t{30} * 24 * 3600 * 1000;
// A request's timeout: `requested` clamped to kMaxTimeoutMs, or `fallback` when it is <= 0.
inline int64_t StepTimeoutMs(int64_t requested, int64_t fallback) {
  return requested > 0 ? (requested < kMaxTimeoutMs ? requested : kMaxTimeoutMs) : fallback;
}


class Var;

// Session lifecycle, client -> master.
// (master_gone_atom, std::string owner, Status why) to a worker: the remote master that
// registered graphs and ran steps as `owner` went away (its process died or its connection
// broke); the worker aborts those steps, drops their rendezvous entries and the graphs.
using master_gone_atom = caf::atom_constant<caf::atom("mastergone")>;
// (client_gone_atom, std::string owner) to a master: the remote client that created
// sessions as `owner` went away; they are closed and their running steps cancelled.
using client_gone_atom = caf::atom_constant<caf::atom("clientgone")>;
// (client_lease_atom, std::string owner, int64_t lease_ms) to a master: the remote client
// `owner` is alive (it sent a heartbeat while a call of its waited). With no renewal within
// lease_ms while a step of its sessions runs, its sessions are closed, as by client_gone.
using client_lease_atom = caf::atom_constant<caf::atom("clilease")>;
// (master_lease_atom, std::string owner, int64_t lease_ms) to a worker: the remote master
// `owner` renewed its lease (it sent a heartbeat); if it does not renew it within lease_ms,
// the worker aborts its running steps (a frozen or cut-off master never "goes away").
using master_lease_atom = caf::atom_constant<caf::atom("mastlease")>;
// (lease_confirm_atom) a master or worker sends itself when its timer finds a lease
// lapsed. It queues behind every message already in the mailbox, renewals that waited
// there while the actor was busy among them, so only a lease still lapsed when it arrives
// is acted on: a receiver slow to read its mailbox must not drop a live sender.
using lease_confirm_atom = caf::atom_constant<caf::atom("leaseconf")>;
using create_session_atom = caf::atom_constant<caf::atom("createsess")>;
using run_step_atom = caf::atom_constant<caf::atom("runstep")>;
using close_session_atom = caf::atom_constant<caf::atom("closesess")>;
using extend_session_atom = caf::atom_constant<caf::atom("extendsess")>;
// (cancel_step_atom, std::string session, int64_t request_id) -> Status: cancels the step
// the session runs for that RunStepRequest::request_id (see StepCanceller).
using cancel_step_atom = caf::atom_constant<caf::atom("cancelstep")>;
// Drops resource containers (variables) on every worker: client -> master -> workers.
using reset_atom = caf::atom_constant<caf::atom("reset")>;
// Callables (TensorFlow's MakeCallable/RunCallable/ReleaseCallable), client -> master:
//   (make_callable_atom, MakeCallableRequest) -> MakeCallableResponse
//   (run_callable_atom, RunCallableRequest) -> RunStepResponse (fetched by position)
//   (release_callable_atom, std::string session, int64_t handle) -> Status
using make_callable_atom = caf::atom_constant<caf::atom("mkcallable")>;
using run_callable_atom = caf::atom_constant<caf::atom("runcallabl")>;
using release_callable_atom = caf::atom_constant<caf::atom("relcallabl")>;
// Partial runs (TensorFlow's PartialRunSetup and RunStep with a partial_run_handle):
//   (partial_setup_atom, PartialRunSetupRequest) -> PartialRunSetupResponse, client -> master
//   (partial_feed_atom, PartialRunValue), master -> worker -> executors: a feed of a partial
//       run's step, for the _Arg of its index
//   (partial_fetch_atom, PartialRunValue), executor -> master: a fetch of a partial run's
//       step, as soon as its _Retval has it
using partial_setup_atom = caf::atom_constant<caf::atom("prunsetup")>;
using partial_feed_atom = caf::atom_constant<caf::atom("prunfeed")>;
using partial_fetch_atom = caf::atom_constant<caf::atom("prunfetch")>;
// (list_devices_atom) -> ListDevicesResponse: the devices the master can place on.
using list_devices_atom = caf::atom_constant<caf::atom("listdevs")>;
// Graph lifecycle, master -> worker.
using register_graph_atom = caf::atom_constant<caf::atom("reggraph")>;
using run_graph_atom = caf::atom_constant<caf::atom("rungraph")>;
using deregister_graph_atom = caf::atom_constant<caf::atom("dereggraph")>;
// Step execution, worker -> executor -> device -> executor.
using start_atom = caf::atom_constant<caf::atom("start")>;
using launch_atom = caf::atom_constant<caf::atom("launch")>;
using kernel_done_atom = caf::atom_constant<caf::atom("kerneldone")>;
using abort_atom = caf::atom_constant<caf::atom("abort")>;
// Any actor: a readable snapshot of its state.
using inspect_atom = caf::atom_constant<caf::atom("inspect")>;
// (observe_atom) -> std::string: the actor's part of its node's snapshot for an observer
// (a serialized observe::NodeSnapshot with only its own fields set; messages/observer.proto).
using observe_atom = caf::atom_constant<caf::atom("observe")>;
// (watch_atom, std::string request) -> Status: a worker watches tensors in its next steps
// (a serialized observe::WatchRequest; actors/tensor_watch.h).
using watch_atom = caf::atom_constant<caf::atom("watch")>;
// Cluster, master -> worker: liveness and identity (WorkerInfo), where the other tasks'
// data planes are (PeerDirectory), stopping a step that failed elsewhere, and dropping
// what is left of a step once every task has answered RunGraph.
using heartbeat_atom = caf::atom_constant<caf::atom("heartbeat")>;
using set_peers_atom = caf::atom_constant<caf::atom("setpeers")>;
using abort_step_atom = caf::atom_constant<caf::atom("abortstep")>;
using cleanup_graph_atom = caf::atom_constant<caf::atom("cleangraph")>;
// (peer_down_atom, std::string task, uint64_t incarnation, Status why), master -> its own
// worker: its heartbeats found `task`'s worker `incarnation` unavailable (or restarted);
// collective groups with it as a member stop.
using peer_down_atom = caf::atom_constant<caf::atom("peerdown")>;

using NamedTensor = std::pair<std::string, Tensor>;

struct CreateSessionRequest {
  std::shared_ptr<const tensorflow::GraphDef> graph;
  // The remote client that creates it ("" for one in this process): when that client goes
  // away, its sessions are closed and their steps cancelled (client_gone_atom).
  std::string owner;
};
struct CreateSessionResponse {
  Status status;
  std::string session_handle;
};

// Adds nodes to a session's graph. The client says which version it extends, so two
// clients extending one session cannot silently interleave (Aborted on a mismatch).
struct ExtendSessionRequest {
  std::string session_handle;
  std::shared_ptr<const tensorflow::GraphDef> graph;  // only the new nodes
  int64_t current_graph_version = 0;
};
struct ExtendSessionResponse {
  Status status;
  int64_t new_graph_version = 0;
};

struct RunStepResponse;

struct RunStepRequest {
  std::string session_handle;
  std::vector<NamedTensor> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  int64_t timeout_ms = 0;  // 0: the master's default
  bool collect_stats = false;             // RunOptions trace_level above NO_TRACE
  bool output_partition_graphs = false;   // RunOptions.output_partition_graphs
  // RunOptions::inter_op_thread_pool -1 from a caller whose thread runs the step: every
  // kernel runs there, none is handed to the device's threads.
  bool on_caller_thread = false;
  // The client's name for this call (TensorFlow's RunStepRequest.request_id), by which
  // cancel_step_atom finds it; 0: not cancellable.
  int64_t request_id = 0;
  // A remote caller's (TensorFlow's RunStepRequest field): the reply carries the step's
  // error in its body and the call itself succeeds.
  bool store_errors_in_response_body = false;
  // Set: a step of that partial run, which feeds and fetches some of what its setup
  // declared (targets are ignored).
  std::string partial_run_handle;
  // A caller in the master's process may take the reply here instead of as the request's
  // response (it then sends RunStep without a sender): one actor hop less per step
  // (client/step_caller.h). Never set by a remote caller.
  std::function<void(RunStepResponse)> reply_to;
};
struct RunStepResponse {
  Status status;
  std::vector<Tensor> fetched;  // in the order of RunStepRequest::fetches
  std::shared_ptr<tensorflow::StepStats> step_stats;  // when collect_stats
  std::vector<std::shared_ptr<const tensorflow::GraphDef>> partition_graphs;  // when asked for
};

// A step signature compiled once (placed, partitioned, registered) and run by handle.
struct MakeCallableRequest {
  std::string session_handle;
  std::vector<std::string> feeds, fetches, targets;
  // Its steps' (CallableOptions.run_options): 0, the master's default deadline.
  int64_t timeout_ms = 0;
  bool collect_stats = false;
};
struct MakeCallableResponse {
  Status status;
  int64_t handle = 0;
};
struct RunCallableRequest {
  std::string session_handle;
  int64_t handle = 0;
  std::vector<Tensor> feeds;  // by position, in MakeCallableRequest::feeds' order
  int64_t request_id = 0;     // as RunStepRequest's
};

struct PartialRunSetupRequest {
  std::string session_handle;
  std::vector<std::string> feeds, fetches, targets;
};
struct PartialRunSetupResponse {
  Status status;
  std::string partial_run_handle;
};

// A feed or a fetch of a partial run's step, by its _Arg or _Retval index.
struct PartialRunValue {
  int64_t step_id = 0;
  int index = 0;
  Tensor value;
};

struct ListDevicesResponse {
  Status status;
  std::vector<tensorflow::DeviceAttributes> local;   // the master's own task's
  std::vector<tensorflow::DeviceAttributes> remote;  // the other tasks'
};

struct RegisterGraphRequest {
  // The worker's share of a call graph, feeds and fetches rewritten: every node names its
  // device (empty: the worker's first), and nodes on different devices meet only through
  // _Send/_Recv pairs (graph/partition.h). The worker makes one executor plan per device.
  std::shared_ptr<const tensorflow::GraphDef> graph;
  // Who registered it: "" for this process's master; for a remote one, the node service's
  // name for it, so the graph goes when that master does (master_gone_atom).
  std::string owner;
  // The master's session: graphs of one session share their stateful kernels
  // (SharedKernels, actors/executor_plan.h). Empty: shared with nothing.
  std::string session_handle;
  // Variables the graph only reads may become constants once they hold still
  // (actors/frozen_variables.h; GraphOptimizerOptions::freeze_variables).
  bool freeze_variables = true;
};
struct RegisterGraphResponse {
  Status status;
  std::string graph_handle;
};

struct RunGraphRequest {
  std::string graph_handle;
  int64_t step_id = 0;
  std::vector<Tensor> args;  // by _Arg index
  int64_t timeout_ms = 0;
  bool collect_stats = false;  // per-node statistics in RunGraphResponse::step_stats
  bool on_caller_thread = false;  // as RunStepRequest's (a remote worker ignores it)
  // The step spans tasks: its rendezvous entries stay until the master's CleanupGraph
  // (another task may still be fetching what this one sent). Otherwise the worker drops
  // them as soon as the step ends.
  bool master_cleans_up = false;
  std::string owner;  // as RegisterGraphRequest::owner
  // A partial run's step (local only): `args` may lack feeds, which come later
  // (partial_feed_atom), and each fetch goes to on_retval as soon as it is computed.
  bool partial_run = false;
  std::function<void(int index, const Tensor& value)> on_retval;
};
struct RunGraphResponse {
  Status status;
  std::vector<Tensor> retvals;  // by _Retval index; only those in `produced` are values
  std::shared_ptr<tensorflow::StepStats> step_stats;  // when asked for: one DeviceStepStats per device
  // The _Retval indices this response set. Each partition of a graph sets its own; the
  // others' entries are empty Tensors, which must not overwrite a value another partition
  // set (an empty Tensor cannot be told from a fetched empty value).
  std::vector<int> produced;
  // The worker does not know the graph handle: it restarted since the graph was registered.
  bool graph_not_found = false;
  // From an executor: it stays, idle, for another step of its partition (the worker keeps
  // it); false: it has quit.
  bool executor_idle = false;
};
// A RunGraph that failed before any executor ran: `status` and nothing else.
inline RunGraphResponse RunGraphFailure(Status status) {
  RunGraphResponse r;
  r.status = std::move(status);
  return r;
}
// Moves the retvals `from` produced into `into` (grown as needed), and adds their indices
// to `produced` when given: gathering the partitions' (and the tasks') results of a step.
void MoveProducedRetvals(RunGraphResponse* from, std::vector<Tensor>* into, std::vector<int>* produced = nullptr);

// A worker's identity and health, its answer to a heartbeat.
struct WorkerInfo {
  Status status;                 // not OK: the task could not be reached (a remote one)
  std::string task;              // "/job:worker/replica:0/task:1"
  uint64_t incarnation = 0;      // changes when the task's process restarts
  std::string data_plane;        // "host:port" of its data plane; empty: none
  std::vector<tensorflow::DeviceAttributes> devices;
  std::vector<int64_t> running_steps;
};

// Task name -> "host:port" of its data plane (tensoract.PeerDirectory).
struct PeerDirectory {
  std::map<std::string, std::string> data_plane_by_task;
};

// Which outputs of a node are dead, a bit per output: all of them, or none; and output
// `port`'s bit (an output past the 32nd is dead only when all are).
constexpr uint32_t kAllDead = ~uint32_t{0};
constexpr uint32_t kNoneDead = 0;
inline bool OutputDead(uint32_t dead_outputs, size_t port) {
  return port >= 32 ? dead_outputs == kAllDead : (dead_outputs >> port) & 1;
}

// A kernel's result, device thread (or async kernel) -> executor.
struct KernelDone {
  int node = 0;
  intptr_t tag = 0;          // the executor's, from NodeInputs::tag (which iteration it ran in)
  bool input_dead = false;   // it ran with a dead input (a _Send): its outputs are dead
  uint32_t dead_outputs = 0;  // bit i: output i is dead (left unset by a Switch or _Recv)
  std::vector<Tensor> outputs;
  std::vector<std::shared_ptr<Var>> output_refs;  // empty unless the node has ref outputs
  Status status;
  int64_t start_ns = 0, end_ns = 0;  // wall clock, when statistics are collected
  uint32_t thread_id = 0;
};

// caf::error (a failure of the actor system) as a Status naming what was asked of whom.
Status FromCafError(const caf::error& error, const std::string& what);

}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::Status)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::CreateSessionRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::CreateSessionResponse)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::ExtendSessionRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::ExtendSessionResponse)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RunStepRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RunStepResponse)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::MakeCallableRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::MakeCallableResponse)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RunCallableRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::ListDevicesResponse)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::PartialRunSetupRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::PartialRunSetupResponse)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::PartialRunValue)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RegisterGraphRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RegisterGraphResponse)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RunGraphRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RunGraphResponse)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::KernelDone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::WorkerInfo)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::PeerDirectory)

#endif  // TENSORACT_ACTORS_MESSAGES_H_
