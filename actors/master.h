// The master actor: owns sessions and turns each RunStep into work for the workers.
//
// A session is a GraphDef (validated when created). For each distinct (feeds, fetches,
// targets) signature the master rewrites the graph for that call (feeds become _Arg,
// fetches _Retval), prunes it to what the call needs, registers it with the worker once
// and caches the handle; every later step with that signature only checks the feeds and
// sends RunGraph. Step ids are the master's.
//
// Compiling a call (rewriting, pruning, optimising, placing, partitioning by device and
// by task) is actors/call_graph.h; knowing the cluster's tasks (heartbeats, health,
// incarnations, data-plane addresses) is actors/cluster_membership.h.
//
// In a cluster (MasterOptions::remote_tasks), the master drives its own task's worker
// and a RemoteWorker per other task alike. A step is one RunGraph per task (a counter and
// a promise); the first error aborts the step on the others, and when all have answered
// every task is told to drop the step's leftovers (CleanupGraph).
//
// Faults: a task the membership finds unavailable (frozen past the heartbeat timeout, or
// killed) fails every step using it at once with Unavailable naming the task, and the step
// is aborted on the other tasks. A task that comes back with a new incarnation has
// restarted: the calls registered on it are dropped, so the next step registers its graphs
// again (its variables are gone; see TrainingLoop for recovery). A remote client that goes
// away has its sessions closed at once (client_gone_atom); one that only stops using a
// session leaves it to the idle-session collector (session_gc_seconds).
//
// Protocol: (create_session_atom, CreateSessionRequest) -> CreateSessionResponse
//           (extend_session_atom, ExtendSessionRequest) -> ExtendSessionResponse
//           (run_step_atom, RunStepRequest) -> RunStepResponse
//           (make_callable_atom, MakeCallableRequest) -> MakeCallableResponse: the signature
//               compiled and registered now, named by a handle of the session
//           (run_callable_atom, RunCallableRequest) -> RunStepResponse: a step of it, feeds
//               and fetches by position
//           (release_callable_atom, std::string session, int64_t handle) -> Status
//           (list_devices_atom) -> ListDevicesResponse: every task's devices
//           (reset_atom, std::vector<std::string> containers) -> Status (closes every session)
//           (close_session_atom, std::string handle) -> Status
//           (cancel_step_atom, std::string handle, int64_t request_id) -> Status
//           (inspect_atom) -> std::string
#ifndef TENSORACT_ACTORS_MASTER_H_
#define TENSORACT_ACTORS_MASTER_H_

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <string>
#include <utility>
#include <vector>

#include "actors/remote_node.h"
#include "graph/optimizer/graph_optimizer.h"

namespace tensoract {

// TENSORACT_MAX_SESSION_FEED_BYTES, else 4 GiB: MasterOptions::max_session_feed_bytes.
int64_t MaxSessionFeedBytesFromEnv();

struct MasterOptions {
  int64_t default_step_timeout_ms = 10 * 60 * 1000;
  int64_t register_timeout_ms = 60 * 1000;
  GraphOptimizerOptions optimizer;  // passes run on every call graph
  bool allow_soft_placement = false;      // see SessionOptions
  bool log_device_placement = false;      // see SessionOptions
  bool enable_bfloat16_sendrecv = false;  // see SessionOptions
  bool enable_recv_scheduling = false;    // see SessionOptions
  // The cluster, when the master drives more than its own task: the other tasks'
  // addresses (RemoteAddress::name is the task's name, "/job:ps/replica:0/task:0"). The
  // actor system needs CAF's middleman then.
  std::vector<RemoteAddress> remote_tasks;
  // More tasks, after remote_tasks, reached as actors of this process that speak the
  // worker's protocol (actors/worker.h): (task name, actor). For simulating a master over
  // many workers without their processes (tests/bench/master_scale.cc).
  std::vector<std::pair<std::string, caf::actor>> in_process_tasks;
  int64_t heartbeat_interval_ms = 1000;
  int64_t heartbeat_timeout_ms = 3000;
  // A session with no step running and no request for this long is closed, as by
  // CloseSession (TensorFlow's master garbage-collects idle sessions the same way, for
  // clients that vanish without closing). 0: never.
  int64_t session_gc_seconds = 0;
  // The bytes of feeds one session's running steps may hold at once (each request's own
  // are bounded by its decoding); the master as a whole holds at most 4 times this. A step
  // beyond it fails with ResourceExhausted, so a client cannot pin memory without bound by
  // sending steps that wait.
  int64_t max_session_feed_bytes = MaxSessionFeedBytesFromEnv();
};

// `worker` is the master's own task's worker (feeds and fetches live there).
caf::actor SpawnMaster(caf::actor_system& system, caf::actor worker, const MasterOptions& options);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_MASTER_H_
