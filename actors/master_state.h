// The master's state and the functions its files share (actors/master.cc: the actor, its
// sessions; master_steps.cc: a step's life; master_calls.cc: compiling a signature's call
// and the requests that run one; master_report.cc: what Inspect and an observer see).
// Internal to the master: everything runs on the master actor's thread.
#ifndef TENSORACT_ACTORS_MASTER_STATE_H_
#define TENSORACT_ACTORS_MASTER_STATE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/call_graph.h"
#include "actors/cluster_membership.h"
#include "actors/master.h"
#include "actors/messages.h"
#include "actors/partial_runs.h"

namespace tensoract {
namespace master_internal {

// TensorFlow's words for a handle the master does not know (master.cc): Aborted, which
// retry logic takes as "start over with a new session".
inline Status SessionNotFound(const std::string& handle) { return errors::Aborted("Session ", handle, " is not found."); }

// A callable's signature (MakeCallableRequest's names).
struct CallableNames {
  std::vector<std::string> feeds, fetches, targets;
  int64_t timeout_ms = 0;
  bool collect_stats = false;
};

struct SessionState {
  std::string owner;  // CreateSessionRequest::owner
  std::shared_ptr<const tensorflow::GraphDef> graph;
  int64_t graph_version = 0;
  std::map<std::string, CachedCall> calls;  // by signature key
  std::map<int64_t, CallableNames> callables;  // by MakeCallable's handle
  int64_t next_callable = 0;
  std::chrono::steady_clock::time_point last_used;  // the last request naming it
  int64_t feed_bytes_in_flight = 0;  // held by its running steps' feeds
  // Set when a task holding graphs of this session restarted (its variables, queues and
  // other state there are gone); the session's next step fails with it, once, as
  // TensorFlow's step fails with "Graph handle is not found ... just restarted": a client
  // learns to restore or initialize, and is not left computing on the new task's nothing.
  Status lost_state;
};

// Where a step's reply goes: the RunStep request's response promise, or the callback a
// caller in this process gave instead (RunStepRequest::reply_to).
class StepReply {
 public:
  StepReply() = default;
  explicit StepReply(caf::typed_response_promise<RunStepResponse> promise) : promise_(std::move(promise)) {}
  explicit StepReply(std::function<void(RunStepResponse)> direct) : direct_(std::move(direct)) {}
  void deliver(RunStepResponse reply) {
    if (direct_) {
      direct_(std::move(reply));
    } else {
      promise_.deliver(std::move(reply));
    }
  }

 private:
  caf::typed_response_promise<RunStepResponse> promise_;
  std::function<void(RunStepResponse)> direct_;
};

// A step in flight: one RunGraph per task, gathered.
struct StepInFlight {
  std::string session;  // the session whose step it is
  int64_t request_id = 0;  // the client's name for the call (RunStepRequest::request_id)
  StepReply promise;
  std::vector<int> tasks;
  int remaining = 0;
  Status status;  // the first error
  std::vector<Tensor> retvals;
  std::vector<int> produced;          // which retvals the tasks' replies set
  std::vector<std::string> fetches;   // the request's, by retval index
  std::shared_ptr<tensorflow::StepStats> step_stats;
  std::vector<std::shared_ptr<const tensorflow::GraphDef>> partition_graphs;
  std::chrono::steady_clock::time_point started;  // for an observer
  std::vector<int> answered;                       // the tasks that replied
  int64_t feed_bytes = 0;  // its feeds', charged to its session and the master until it ends
};

// A signature's first step while its graphs are being registered (before it becomes a
// StepInFlight): a task found unavailable meanwhile fails it at once, where its RegisterGraph
// request would wait for register_timeout_ms (60 s by default).
struct CallStarting {
  std::vector<int> tasks;
  std::function<void(const Status&)> fail;
};

struct MasterState {
  MasterOptions options;
  std::unique_ptr<ClusterMembership> membership;  // the tasks, [0] the master's own
  CostModel cost_model;  // static estimates, refined by every step that collects statistics
  std::map<std::string, SessionState> sessions;
  std::map<int64_t, StepInFlight> steps;
  // The last step run with statistics, for an observer's slow-step view (a copy: the
  // client takes the reply's).
  std::shared_ptr<const tensorflow::StepStats> last_traced;
  int64_t last_traced_step = 0;
  double last_traced_s = 0;
  std::map<int64_t, CallStarting> starting;  // by a start id of their own
  PartialRuns partial_runs;
  int64_t next_start = 0;
  int64_t next_step = 1;
  // Cancels that came before their step started (session, request id), with when they came.
  std::map<std::pair<std::string, int64_t>, std::chrono::steady_clock::time_point> early_cancels;
  int64_t feed_bytes_in_flight = 0;  // every running step's feeds
  // The remote clients' leases (client_lease_atom), by owner: when each lapses, and its length.
  struct ClientLease {
    std::chrono::steady_clock::time_point expires;
    int64_t lease_ms = 0;
  };
  std::map<std::string, ClientLease> client_leases;
  bool lease_check_scheduled = false;
  bool session_gc_started = false;  // with the first session: an idle master does nothing
  bool cluster() const { return membership->cluster(); }
  const caf::actor& worker(int task) const { return membership->task(task).worker; }
  static inline const char* name = "tensoract.master";
};

using Self = caf::stateful_actor<MasterState>;

// master_steps.cc: a step's life.

// Starts a step of `call`; returns its id, or 0 when it was answered at once (cancelled,
// bad feeds, a task unavailable). A partial run's step (request.partial_run_handle set) gets
// its feeds later (partial_feed_atom) and reports each fetch as it is computed.
int64_t RunCall(Self* self, const CachedCall& call, RunStepRequest request, StepReply promise);
// Cancels a running step (as TensorFlow's StartCancel): every task stops the step's
// executors and fails its Recvs with `why`; the client's Run returns it.
void CancelStep(Self* self, int64_t id, const Status& why);
// Cancels the running steps of `session`.
void CancelSessionSteps(Self* self, const std::string& session, const Status& why);
// A cancel for a step of `session` the client called `request_id`: now if it runs, else
// when it starts (kept a minute: a cancel may overtake its step, never by that much).
void CancelRequest(Self* self, const std::string& session, int64_t request_id);
// Fails every step (and every first step registering its graphs) that uses `task`.
void FailStepsOn(Self* self, int task, const Status& why);

// master_calls.cc: compiling a signature's call, and the requests that run one.

// Drops every cached call that has a graph on `task` (it restarted and forgot them), so
// that the next step of its signature registers again; the other tasks forget theirs.
// Their sessions' next step fails with Aborted (SessionState::lost_state).
void DropCallsOn(Self* self, int task);
// A RunStep: runs the session's cached call of its signature, or compiles it first.
caf::result<RunStepResponse> OnRunStep(Self* self, RunStepRequest& request);
// RunCallable: a RunStep of the callable's signature with the request's feeds.
caf::result<RunStepResponse> OnRunCallable(Self* self, RunCallableRequest& request);
// MakeCallable: compiles the signature now (its errors are MakeCallable's, as in
// TensorFlow) and names it by a handle of the session.
caf::result<MakeCallableResponse> OnMakeCallable(Self* self, const MakeCallableRequest& request);
// PartialRunSetup: compiles the signature (or finds it compiled) and starts its step.
caf::result<PartialRunSetupResponse> OnPartialRunSetup(Self* self, const PartialRunSetupRequest& request);

// master_report.cc.

// The master's part of its node's snapshot (messages/observer.proto): the cluster's tasks
// as its heartbeats see them, and the steps in flight with the tasks they still wait for.
std::string ObserveMaster(Self* self);
// Inspect's text: sessions, tasks, steps in flight and what they wait for.
std::string InspectMaster(const MasterState& st);

}  // namespace master_internal
}  // namespace tensoract

#endif  // TENSORACT_ACTORS_MASTER_STATE_H_
