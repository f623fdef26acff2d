#include "actors/master.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <caf/all.hpp>

#include "actors/call_graph.h"
#include "actors/cluster_credentials.h"
#include "actors/cluster_membership.h"
#include "actors/partial_runs.h"
#include "actors/messages.h"
#include "messages/observer.pb.h"

namespace tensoract {
namespace {

// TensorFlow's words for a handle the master does not know (master.cc): Aborted, which
// retry logic takes as "start over with a new session".
Status SessionNotFound(const std::string& handle) { return errors::Aborted("Session ", handle, " is not found."); }

using session_gc_atom = caf::atom_constant<caf::atom("sessiongc")>;

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
};

// A signature's first step while its graphs are being registered (before it becomes a
// StepInFlight): a task found unavailable meanwhile fails it at once, where its RegisterGraph
// request would wait for register_timeout_ms (60 s by default).
struct CallStarting {
  std::vector<int> tasks;
  std::function<void(const Status&)> fail;
};

// A step whose tasks all succeeded but left a fetch unset is a bug somewhere in the
// runtime: it fails naming the fetch instead of answering with a short or empty result.
Status CheckAllFetched(const StepInFlight& step) {
  std::vector<bool> got(step.fetches.size(), false);
  for (int i : step.produced) {
    if (static_cast<size_t>(i) < got.size()) got[i] = true;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i]) return errors::Internal("no partition of the step produced fetch '", step.fetches[i], "'");
  }
  return Status::OK();
}

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
  bool session_gc_started = false;  // with the first session: an idle master does nothing
  bool cluster() const { return membership->cluster(); }
  const caf::actor& worker(int task) const { return membership->task(task).worker; }
  static inline const char* name = "tensoract.master";
};

using Self = caf::stateful_actor<MasterState>;

// Ends a step: answers the client, and in a cluster tells every task of the step to drop
// what is left of it (after aborting it there, if it failed).
void FinishStep(Self* self, int64_t step_id) {
  auto& st = self->state;
  auto found = st.steps.find(step_id);
  if (found == st.steps.end()) return;
  StepInFlight step = std::move(found->second);
  st.steps.erase(found);
  if (st.cluster()) {
    for (int t : step.tasks) {
      if (!step.status.ok()) self->send(st.worker(t), abort_step_atom::value, step_id, step.status);
      self->send(st.worker(t), cleanup_graph_atom::value, step_id);
    }
  }
  if (step.status.ok()) step.status = CheckAllFetched(step);
  RunStepResponse reply;
  reply.status = step.status;
  if (step.status.ok()) {
    reply.fetched = std::move(step.retvals);
    reply.step_stats = std::move(step.step_stats);
    reply.partition_graphs = std::move(step.partition_graphs);
    // Measured times make the next placements better (whitepaper section 3.2.1).
    if (reply.step_stats) {
      st.cost_model.RecordStepStats(*reply.step_stats);
      st.last_traced = std::make_shared<const tensorflow::StepStats>(*reply.step_stats);
      st.last_traced_step = step_id;
      st.last_traced_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - step.started).count();
    }
  }
  step.promise.deliver(std::move(reply));
}

// Fails a step at once (a task it needs is gone); the other tasks' answers are ignored.
void FailStep(Self* self, int64_t step_id, const Status& why) {
  auto it = self->state.steps.find(step_id);
  if (it == self->state.steps.end()) return;
  if (it->second.status.ok()) it->second.status = why;
  FinishStep(self, step_id);
}

// Cancels a running step (as TensorFlow's StartCancel): every task stops the step's
// executors and fails its Recvs with `why`; the client's Run returns it.
void CancelStep(Self* self, int64_t id, const Status& why) {
  auto it = self->state.steps.find(id);
  if (it == self->state.steps.end()) return;
  // A local step has no CleanupGraph to wait for; the abort is what stops it.
  if (!self->state.cluster()) {
    for (int t : it->second.tasks) self->send(self->state.worker(t), abort_step_atom::value, id, why);
  }
  FailStep(self, id, why);
}

// Cancels the running steps of `session`.
void CancelSessionSteps(Self* self, const std::string& session, const Status& why) {
  std::vector<int64_t> cancelled;
  for (const auto& [id, step] : self->state.steps) {
    if (step.session == session) cancelled.push_back(id);
  }
  for (int64_t id : cancelled) CancelStep(self, id, why);
}

Status StepCancelled(int64_t request_id) {
  return errors::Cancelled("the step was cancelled (request ", request_id, ")");
}

// A cancel for a step of `session` the client called `request_id`: now if it runs, else
// when it starts (kept a minute: a cancel may overtake its step, never by that much).
void CancelRequest(Self* self, const std::string& session, int64_t request_id) {
  auto& st = self->state;
  for (const auto& [id, step] : st.steps) {
    if (step.session == session && step.request_id == request_id) return CancelStep(self, id, StepCancelled(request_id));
  }
  const auto now = std::chrono::steady_clock::now();
  for (auto it = st.early_cancels.begin(); it != st.early_cancels.end();) {
    it = now - it->second > std::chrono::minutes(1) ? st.early_cancels.erase(it) : std::next(it);
  }
  st.early_cancels[{session, request_id}] = now;
}

void OnRunGraphDone(Self* self, int64_t step_id, int task, RunGraphResponse reply) {
  auto& st = self->state;
  if (reply.graph_not_found && st.cluster()) {
    // The task forgot the graph: it restarted since the last heartbeat. Ask now, so its
    // new incarnation drops the stale registrations before the next step.
    reply.status = errors::Aborted("task ", st.membership->task(task).name, " lost its graphs (it restarted): ",
                                   reply.status.message());
    st.membership->CheckNow(task);
  }
  auto found = st.steps.find(step_id);
  if (found == st.steps.end()) return;  // already failed
  StepInFlight& step = found->second;
  // A task aborted because another failed (its Recv's peer ended the step) may answer
  // before the one that failed: the failure itself is the step's error, as TensorFlow's
  // StatusGroup prefers a root error to the aborts it caused.
  const auto derived = [](const Status& s) {
    return s.code() == error::ABORTED || s.code() == error::CANCELLED;
  };
  if (!reply.status.ok() && !step.status.ok() && derived(step.status) && !derived(reply.status)) {
    step.status = reply.status;
  }
  if (!reply.status.ok() && step.status.ok()) {
    // The first error is the cause; the other tasks stop now rather than at their Recvs'
    // deadlines.
    step.status = reply.status;
    Status abort = errors::Aborted("step ", step_id, " was aborted because task ", st.membership->task(task).name,
                                   " failed: ", reply.status.message());
    for (int t : step.tasks) {
      if (t != task) self->send(st.worker(t), abort_step_atom::value, step_id, abort);
    }
  }
  if (reply.status.ok()) {
    MoveProducedRetvals(&reply, &step.retvals, &step.produced);
    if (reply.step_stats) {
      if (!step.step_stats) step.step_stats = std::make_shared<tensorflow::StepStats>();
      for (auto& dev : *reply.step_stats->mutable_dev_stats()) *step.step_stats->add_dev_stats() = std::move(dev);
    }
  }
  step.answered.push_back(task);
  if (--step.remaining == 0) FinishStep(self, step_id);
}

// Starts a step of `call`; returns its id, or 0 when it was answered at once (cancelled,
// bad feeds, a task unavailable). A partial run's step (request.partial_run_handle set) gets
// its feeds later (partial_feed_atom) and reports each fetch as it is computed.
int64_t RunCall(Self* self, const CachedCall& call, RunStepRequest request, StepReply promise) {
  if (request.request_id != 0 && self->state.early_cancels.erase({request.session_handle, request.request_id}) > 0) {
    promise.deliver(RunStepResponse{StepCancelled(request.request_id), {}, nullptr, {}});
    return 0;
  }
  Status feeds_ok = CheckFeeds(request, call.signature);
  if (!feeds_ok.ok()) {
    promise.deliver(RunStepResponse{feeds_ok, {}, nullptr, {}});
    return 0;
  }
  auto& st = self->state;
  for (const TaskGraph& tg : call.tasks) {
    const TaskState& task = st.membership->task(tg.task);
    if (!task.healthy) {
      promise.deliver(RunStepResponse{errors::Unavailable("task ", task.name, " is unavailable: ",
                                                          task.last_error.message()), {}, nullptr, {}});
      return 0;
    }
  }
  const int64_t step_id = st.next_step++;
  const int64_t timeout_ms = StepTimeoutMs(request.timeout_ms, st.options.default_step_timeout_ms);
  StepInFlight& step = st.steps[step_id];
  step.session = request.session_handle;
  step.request_id = request.request_id;
  step.promise = promise;
  step.remaining = static_cast<int>(call.tasks.size());
  step.started = std::chrono::steady_clock::now();
  step.fetches = call.signature.fetches;
  if (request.output_partition_graphs) step.partition_graphs = call.partitions;
  for (const TaskGraph& tg : call.tasks) step.tasks.push_back(tg.task);
  for (const TaskGraph& tg : call.tasks) {
    RunGraphRequest run;
    run.graph_handle = tg.handle;
    run.step_id = step_id;
    run.timeout_ms = timeout_ms;
    run.collect_stats = request.collect_stats;
    run.on_caller_thread = request.on_caller_thread;
    run.master_cleans_up = st.cluster();
    if (tg.task == 0) {
      for (auto& feed : request.feeds) run.args.push_back(std::move(feed.second));
      if (!request.partial_run_handle.empty()) {
        run.partial_run = true;
        run.on_retval = [master = caf::actor_cast<caf::actor>(self), step_id](int index, const Tensor& value) {
          caf::anon_send(master, partial_fetch_atom::value, PartialRunValue{step_id, index, value});
        };
      }
    }
    const int task = tg.task;
    // No CAF timeout: the worker enforces the step's deadline, a remote one's proxy has its
    // own for the call, and a timeout here would sit in CAF's clock (~190 bytes) until it
    // fired, long after the step.
    self->request(st.worker(task), caf::infinite, run_graph_atom::value,
                  std::move(run))
        .then([=](RunGraphResponse& response) { OnRunGraphDone(self, step_id, task, std::move(response)); },
              [=](caf::error& error) {
                OnRunGraphDone(self, step_id, task,
                               RunGraphFailure(FromCafError(error, StrCat("RunGraph of step ", step_id, " on task ",
                                                                           self->state.membership->task(task).name))));
              });
  }
  return step_id;
}

// Drops every cached call that has a graph on `task` (it restarted and forgot them), so
// that the next step of its signature registers again; the other tasks forget theirs.
void DropCallsOn(Self* self, int task) {
  auto& st = self->state;
  for (auto& [handle, session] : st.sessions) {
    for (auto it = session.calls.begin(); it != session.calls.end();) {
      bool uses = false;
      for (const TaskGraph& tg : it->second.tasks) uses |= tg.task == task;
      if (!uses) {
        ++it;
        continue;
      }
      for (const TaskGraph& tg : it->second.tasks) {
        if (tg.task != task) self->send(st.worker(tg.task), deregister_graph_atom::value, tg.handle);
      }
      it = session.calls.erase(it);
    }
  }
}

// Fails every step that uses `task`.
void FailStepsOn(Self* self, int task, const Status& why) {
  std::vector<int64_t> failing;
  for (const auto& [id, step] : self->state.steps) {
    for (int t : step.tasks) {
      if (t == task) failing.push_back(id);
    }
  }
  for (int64_t id : failing) FailStep(self, id, why);
  std::vector<std::function<void(const Status&)>> failing_starts;
  for (const auto& [id, start] : self->state.starting) {
    if (std::find(start.tasks.begin(), start.tasks.end(), task) != start.tasks.end()) {
      failing_starts.push_back(start.fail);
    }
  }
  for (auto& fail : failing_starts) fail(why);  // each erases its own entry
}

void Log(const std::string& line) { std::fputs((line + "\n").c_str(), stderr); }

// Compiles the call of `signature` for a session: builds its call graph, registers each
// task's share with that task and caches the handles under `key`. `done` gets the cached
// call (valid while the handler runs), or why it could not be made.
using CallReady = std::function<void(const Status&, const CachedCall*)>;
void PrepareCall(Self* self, const std::string& session_handle, const std::string& key, CallSignature signature,
                 CallReady done) {
  auto& st = self->state;
  auto session = st.sessions.find(session_handle);
  if (session == st.sessions.end()) return done(SessionNotFound(session_handle), nullptr);
  auto call = std::make_shared<CachedCall>();
  call->signature = std::move(signature);
  Status built = BuildCallGraph(*session->second.graph, st.membership->tasks(), st.options, st.cost_model, call.get());
  if (!built.ok()) return done(built, nullptr);
  // Registration on every task at once; the call is cached when all have answered.
  auto remaining = std::make_shared<int>(static_cast<int>(call->tasks.size()));
  auto failure = std::make_shared<Status>();
  const int64_t start_id = st.next_start++;
  // Runs once: when every task has answered, or when one is found unavailable first (the
  // answers still out are then ignored).
  auto all_answered = [=]() mutable {
    auto& st = self->state;
    if (st.starting.erase(start_id) == 0) return;
    auto forget = [&]() {
      for (const TaskGraph& tg : call->tasks) {
        if (!tg.handle.empty()) self->send(st.worker(tg.task), deregister_graph_atom::value, tg.handle);
      }
    };
    if (!failure->ok()) {
      forget();
      return done(*failure, nullptr);
    }
    auto s = st.sessions.find(session_handle);
    if (s == st.sessions.end()) {
      forget();
      return done(errors::Cancelled("session '", session_handle, "' was closed while the step started"), nullptr);
    }
    // Two first steps of one signature may race; the first handles win, the other
    // graphs are dropped.
    auto [it, inserted] = s->second.calls.emplace(key, *call);
    if (!inserted) forget();
    done(Status::OK(), &it->second);
  };
  CallStarting& starting = st.starting[start_id];
  for (const TaskGraph& tg : call->tasks) starting.tasks.push_back(tg.task);
  starting.fail = [=](const Status& why) mutable {
    if (failure->ok()) *failure = why;
    all_answered();
  };
  for (size_t i = 0; i < call->tasks.size(); ++i) {
    const int task = call->tasks[i].task;
    self->request(st.worker(task), std::chrono::milliseconds(st.options.register_timeout_ms),
                  register_graph_atom::value, RegisterGraphRequest{call->tasks[i].graph, "", session_handle})
        .then(
            [=](RegisterGraphResponse& response) mutable {
              auto& st = self->state;
              if (st.starting.count(start_id) == 0) {
                // The call failed while this task registered: nothing will run the graph.
                if (response.status.ok()) {
                  self->send(st.worker(task), deregister_graph_atom::value, response.graph_handle);
                }
                return;
              }
              if (response.status.ok()) {
                call->tasks[i].handle = response.graph_handle;
              } else if (failure->ok()) {
                *failure = self->state.cluster()
                               ? response.status.WithContext(StrCat("registering on task ", self->state.membership->task(task).name))
                               : response.status;
              }
              if (--*remaining == 0) all_answered();
            },
            [=](caf::error& error) mutable {
              if (self->state.starting.count(start_id) == 0) return;
              if (failure->ok()) *failure = FromCafError(error, StrCat("RegisterGraph on task ", self->state.membership->task(task).name));
              if (--*remaining == 0) all_answered();
            });
  }
}

// The first step of a signature: compiles its call (PrepareCall), then runs the step.
void StartNewCall(Self* self, const std::string& key, RunStepRequest request, StepReply promise) {
  CallSignature signature;
  for (const auto& f : request.feeds) signature.feeds.push_back(f.first);
  signature.fetches = request.fetches;
  signature.targets = request.targets;
  const std::string session_handle = request.session_handle;
  auto request_ptr = std::make_shared<RunStepRequest>(std::move(request));
  PrepareCall(self, session_handle, key, std::move(signature),
              [=](const Status& ready, const CachedCall* call) mutable {
                if (!ready.ok()) return promise.deliver(RunStepResponse{ready, {}, nullptr, {}});
                RunCall(self, *call, std::move(*request_ptr), promise);
              });
}

// Starts a partial run's step of `call` and answers the setup with the run's handle.
void StartPartialRun(Self* self, const std::string& session, const CachedCall& call,
                     caf::typed_response_promise<PartialRunSetupResponse> promise) {
  auto& st = self->state;
  const std::string handle = st.partial_runs.Add(session, call.signature, *st.sessions.at(session).graph);
  RunStepRequest request;
  request.session_handle = session;
  request.partial_run_handle = handle;
  const int64_t step_id = RunCall(self, call, std::move(request), StepReply([self, handle](RunStepResponse r) {
                                    self->state.partial_runs.Done(handle, std::move(r));
                                  }));
  // A step that could not start has answered already.
  Status failed = st.partial_runs.TakeEarlyFailure(handle);
  if (!failed.ok()) {
    promise.deliver(PartialRunSetupResponse{failed, ""});
    return;
  }
  st.partial_runs.Started(handle, step_id);
  promise.deliver(PartialRunSetupResponse{Status::OK(), handle});
}

// Asks every task and answers `promise` with the first error, or OK.
void ResetAll(Self* self, const std::vector<std::string>& containers, caf::typed_response_promise<Status> promise) {
  auto& st = self->state;
  auto remaining = std::make_shared<int>(static_cast<int>(st.membership->tasks().size()));
  auto result = std::make_shared<Status>();
  for (const TaskState& t : st.membership->tasks()) {
    std::string name = t.name;
    self->request(t.worker, std::chrono::milliseconds(st.options.register_timeout_ms), reset_atom::value, containers)
        .then(
            [=](Status& s) mutable {
              if (!s.ok() && result->ok()) *result = s;
              if (--*remaining == 0) promise.deliver(*result);
            },
            [=](caf::error& e) mutable {
              if (result->ok()) *result = FromCafError(e, StrCat("Reset on task ", name));
              if (--*remaining == 0) promise.deliver(*result);
            });
  }
}

void DeregisterCalls(Self* self, const SessionState& session) {
  for (const auto& [key, call] : session.calls) {
    for (const TaskGraph& tg : call.tasks) {
      self->send(self->state.worker(tg.task), deregister_graph_atom::value, tg.handle);
    }
  }
}

// Closes a session: its running steps end with `why` (Cancelled), its graphs are dropped.
void CloseSession(Self* self, const std::string& handle, const Status& why) {
  auto& st = self->state;
  auto it = st.sessions.find(handle);
  if (it == st.sessions.end()) return;
  CancelSessionSteps(self, handle, why);  // its partial runs' steps too: they answer their waiters
  DeregisterCalls(self, it->second);
  st.sessions.erase(it);
  st.partial_runs.EraseSession(handle);
}

// Closes the sessions nobody used for session_gc_seconds (none has a step running).
void CollectIdleSessions(Self* self) {
  auto& st = self->state;
  const auto idle_limit = std::chrono::seconds(st.options.session_gc_seconds);
  const auto now = std::chrono::steady_clock::now();
  std::set<std::string> busy;
  for (const auto& [id, step] : st.steps) busy.insert(step.session);
  std::vector<std::string> idle;
  for (const auto& [handle, session] : st.sessions) {
    if (!busy.count(handle) && now - session.last_used >= idle_limit) idle.push_back(handle);
  }
  for (const std::string& handle : idle) {
    Log(StrCat("master: closing session ", handle, ": unused for ", st.options.session_gc_seconds, " s"));
    CloseSession(self, handle, errors::Cancelled("Session ", handle, " was closed: unused for ",
                                                 st.options.session_gc_seconds, " s"));
  }
}

// The master's part of its node's snapshot (messages/observer.proto): the cluster's tasks
// as its heartbeats see them, and the steps in flight with the tasks they still wait for.
std::string ObserveMaster(Self* self) {
  const MasterState& st = self->state;
  observe::NodeSnapshot part;
  observe::Actor* actor = part.add_actors();
  actor->set_name("master");
  actor->set_kind("master");
  actor->set_mailbox(static_cast<int64_t>(self->mailbox().size()));
  actor->set_doing(StrCat(st.sessions.size(), " sessions, ", st.steps.size(), " steps running"));
  const auto now = std::chrono::steady_clock::now();
  for (const TaskState& t : st.membership->tasks()) {
    observe::Task* task = part.add_tasks();
    task->set_name(t.name);
    task->set_address(t.address);
    task->set_healthy(t.healthy);
    task->set_incarnation(t.incarnation);
    task->set_since_heartbeat_s(t.last_heartbeat.time_since_epoch().count() == 0
                                    ? -1
                                    : std::chrono::duration<double>(now - t.last_heartbeat).count());
    if (!t.healthy) task->set_error(t.last_error.message());
  }
  if (st.last_traced) {
    observe::TracedStep* traced = part.mutable_last_traced();
    traced->set_step_id(st.last_traced_step);
    traced->set_duration_s(st.last_traced_s);
    *traced->mutable_step_stats() = *st.last_traced;
  }
  for (const auto& [id, step] : st.steps) {
    observe::Step* s = part.add_steps();
    s->set_step_id(id);
    s->set_age_s(std::chrono::duration<double>(now - step.started).count());
    for (int t : step.tasks) {
      if (std::find(step.answered.begin(), step.answered.end(), t) == step.answered.end()) {
        s->add_waiting_for(st.membership->task(t).name);
      }
    }
  }
  return part.SerializeAsString();
}

std::string InspectMaster(const MasterState& st) {
  std::string out = StrCat("master: ", st.sessions.size(), " sessions, ", st.steps.size(),
                           " steps running, next step id ", st.next_step);
  for (const auto& [handle, s] : st.sessions) {
    const auto idle = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - s.last_used);
    out += StrCat("\n  ", handle, ": ", s.graph->node_size(), " nodes, ", s.calls.size(), " cached signatures, idle ",
                  idle.count(), " s");
  }
  out += st.membership->Inspect();
  auto names = [&](const std::vector<int>& tasks) {
    std::string list;
    for (int t : tasks) list += StrCat(list.empty() ? "" : ", ", st.membership->task(t).name);
    return list;
  };
  for (const auto& [id, step] : st.steps) {
    out += StrCat("\n  step ", id, ": waiting for ", step.remaining, " of ", step.tasks.size(), " tasks [",
                  names(step.tasks), "]");
  }
  for (const auto& [id, start] : st.starting) {
    out += StrCat("\n  a first step registering its graphs on tasks [", names(start.tasks), "]");
  }
  out += st.membership->InspectWaiting();
  return out;
}

// A RunStep: runs the session's cached call of its signature, or compiles it first.
caf::result<RunStepResponse> OnRunStep(Self* self, RunStepRequest& request) {
  auto& st = self->state;
  auto session = st.sessions.find(request.session_handle);
  if (session == st.sessions.end()) {
    RunStepResponse missing{SessionNotFound(request.session_handle), {}, nullptr, {}};
    if (!request.reply_to) return missing;
    request.reply_to(std::move(missing));
    return RunStepResponse{};  // to nobody: the request came without a sender
  }
  session->second.last_used = std::chrono::steady_clock::now();
  // A promise takes over the reply: make it only on the paths that answer through it,
  // never before an early `return RunStepResponse{...}` (that reply would be lost).
  // A caller that gave reply_to sent no request to answer: no promise then.
  const bool direct = static_cast<bool>(request.reply_to);
  caf::typed_response_promise<RunStepResponse> response;
  StepReply promise = direct ? StepReply(std::move(request.reply_to))
                             : StepReply(response = self->make_response_promise<RunStepResponse>());
  auto answer = [&]() -> caf::result<RunStepResponse> {
    if (direct) return RunStepResponse{};
    return response;
  };
  if (!request.partial_run_handle.empty()) {
    const caf::actor worker = st.worker(0);  // the feeds' _Args are on the master's own task
    st.partial_runs.Step(
        std::move(request), [promise](RunStepResponse r) mutable { promise.deliver(std::move(r)); },
        [self, worker](int64_t step, int index, Tensor value) {
          self->send(worker, partial_feed_atom::value, PartialRunValue{step, index, std::move(value)});
        });
    return answer();
  }
  const std::string key = SignatureKey(request);
  if (auto hit = session->second.calls.find(key); hit != session->second.calls.end()) {
    RunCall(self, hit->second, std::move(request), promise);
    return answer();
  }
  // Placement needs every task's devices: the first step of a signature makes sure
  // the master knows them.
  auto request_ptr = std::make_shared<RunStepRequest>(std::move(request));
  self->state.membership->WithCluster([=](const Status& ready) mutable {
    if (!ready.ok()) {
      promise.deliver(RunStepResponse{ready, {}, nullptr, {}});
      return;
    }
    StartNewCall(self, key, std::move(*request_ptr), promise);
  });
  return answer();
}

// Calls `done` with the session's compiled call of (feeds, fetches, targets): the cached
// one, or one compiled now (once the cluster's devices are known), or why there is none.
void WithCall(Self* self, const std::string& session, const std::vector<std::string>& feeds,
              const std::vector<std::string>& fetches, const std::vector<std::string>& targets, CallReady done) {
  auto& st = self->state;
  auto found = st.sessions.find(session);
  if (found == st.sessions.end()) return done(SessionNotFound(session), nullptr);
  found->second.last_used = std::chrono::steady_clock::now();
  const std::string key = SignatureKey(feeds, fetches, targets);
  if (auto hit = found->second.calls.find(key); hit != found->second.calls.end()) return done(Status::OK(), &hit->second);
  CallSignature signature{feeds, fetches, targets, {}, {}, {}};
  st.membership->WithCluster([=](const Status& ready) {
    if (!ready.ok()) return done(ready, nullptr);
    PrepareCall(self, session, key, signature, done);
  });
}

// PartialRunSetup: compiles the signature (or finds it compiled) and starts its step.
caf::result<PartialRunSetupResponse> OnPartialRunSetup(Self* self, const PartialRunSetupRequest& request) {
  auto promise = self->make_response_promise<PartialRunSetupResponse>();
  const std::string session = request.session_handle;
  WithCall(self, session, request.feeds, request.fetches, request.targets,
           [=](const Status& ready, const CachedCall* call) mutable {
             if (!ready.ok()) {
               promise.deliver(PartialRunSetupResponse{ready, ""});
               return;
             }
             StartPartialRun(self, session, *call, promise);
           });
  return promise;
}

// MakeCallable: compiles the signature now (its errors are MakeCallable's, as in
// TensorFlow) and names it by a handle of the session.
caf::result<MakeCallableResponse> OnMakeCallable(Self* self, const MakeCallableRequest& request) {
  auto promise = self->make_response_promise<MakeCallableResponse>();
  auto names = std::make_shared<CallableNames>(
      CallableNames{request.feeds, request.fetches, request.targets, request.timeout_ms, request.collect_stats});
  const std::string session = request.session_handle;
  WithCall(self, session, request.feeds, request.fetches, request.targets,
           [=](const Status& ready, const CachedCall*) mutable {
             auto s = self->state.sessions.find(session);
             if (!ready.ok() || s == self->state.sessions.end()) {
               promise.deliver(MakeCallableResponse{ready.ok() ? SessionNotFound(session) : ready, 0});
               return;
             }
             const int64_t id = s->second.next_callable++;
             s->second.callables[id] = std::move(*names);
             promise.deliver(MakeCallableResponse{Status::OK(), id});
           });
  return promise;
}

caf::behavior master_actor(Self* self, caf::actor worker, MasterOptions options) {
  auto& st = self->state;
  st.options = options;
  ClusterMembership::Events events;
  // The master's own worker hears of every task found down: its collective groups with a
  // member there stop (steps of other masters' clients meet this task's there).
  auto tell_own_worker = [self](int task, const Status& why) {
    const auto& tasks = self->state.membership->tasks();
    // The worker that went down: its incarnation as last heard (a restart's old one).
    self->send(tasks[0].worker, peer_down_atom::value, tasks[task].name, tasks[task].incarnation, why);
  };
  events.unavailable = [self, tell_own_worker](int task, const Status& why) {
    FailStepsOn(self, task, why);
    tell_own_worker(task, why);
  };
  events.restarted = [self, tell_own_worker](int task) {
    const Status why = errors::Aborted("task ", self->state.membership->task(task).name,
                                       " restarted during the step and lost its state");
    FailStepsOn(self, task, why);
    DropCallsOn(self, task);
    tell_own_worker(task, errors::Aborted("restarted and lost its state"));
  };
  st.membership = std::make_unique<ClusterMembership>(self, std::move(worker), options, std::move(events));
  if (st.cluster()) {
    // Step ids key every task's rendezvous: a restarted master must not reuse its
    // predecessor's, so they start somewhere random.
    std::mt19937_64 rng{std::random_device{}()};
    st.next_step = static_cast<int64_t>((rng() >> 24) << 20) + 1;
  }
  return {
      [=](create_session_atom, const CreateSessionRequest& request) {
        CreateSessionResponse response;
        // Validate now, so a bad graph fails at creation as in TensorFlow, not at first Run.
        Graph graph;
        response.status = request.graph ? ImportGraphDef(*request.graph, &graph)
                                        : errors::InvalidArgument("CreateSession needs a graph");
        if (!response.status.ok()) return response;
        auto& st = self->state;
        st.membership->StartHeartbeats();
        // Random, as TensorFlow's: a client of a master that restarted must not reach another
        // client's session under its old handle.
        response.session_handle = RandomHandle();
        SessionState& session = st.sessions[response.session_handle];
        session.graph = request.graph;
        session.owner = request.owner;
        session.last_used = std::chrono::steady_clock::now();
        if (st.options.session_gc_seconds > 0 && !st.session_gc_started) {
          st.session_gc_started = true;
          self->send(self, session_gc_atom::value);
        }
        return response;
      },
      [=](run_step_atom, RunStepRequest& request) { return OnRunStep(self, request); },
      [=](make_callable_atom, MakeCallableRequest& request) { return OnMakeCallable(self, request); },
      [=](partial_setup_atom, PartialRunSetupRequest& request) { return OnPartialRunSetup(self, request); },
      [=](partial_fetch_atom, PartialRunValue& fetch) {
        self->state.partial_runs.Computed(fetch.step_id, fetch.index, std::move(fetch.value));
      },
      [=](run_callable_atom, RunCallableRequest& request) -> caf::result<RunStepResponse> {
        auto& st = self->state;
        auto session = st.sessions.find(request.session_handle);
        if (session == st.sessions.end()) return RunStepResponse{SessionNotFound(request.session_handle), {}, nullptr, {}};
        auto callable = session->second.callables.find(request.handle);
        if (callable == session->second.callables.end()) {
          // TensorFlow's words (DirectSession::RunCallable).
          return RunStepResponse{errors::InvalidArgument("No such callable handle: ", request.handle), {}, nullptr, {}};
        }
        const CallableNames& names = callable->second;
        if (request.feeds.size() != names.feeds.size()) {
          return RunStepResponse{errors::InvalidArgument("Invalid number of feed values: expected ", names.feeds.size(),
                                                         " but got ", request.feeds.size()),
                                 {}, nullptr, {}};
        }
        RunStepRequest step;
        step.session_handle = std::move(request.session_handle);
        for (size_t i = 0; i < names.feeds.size(); ++i) step.feeds.emplace_back(names.feeds[i], std::move(request.feeds[i]));
        step.fetches = names.fetches;
        step.targets = names.targets;
        step.timeout_ms = names.timeout_ms;
        step.collect_stats = names.collect_stats;
        step.request_id = request.request_id;
        return OnRunStep(self, step);
      },
      [=](release_callable_atom, const std::string& handle, int64_t callable) -> Status {
        auto session = self->state.sessions.find(handle);
        if (session == self->state.sessions.end()) return SessionNotFound(handle);
        if (session->second.callables.erase(callable) == 0) {
          return errors::InvalidArgument("No such callable handle: ", callable);
        }
        // Its call stays cached under its signature: a Run of the same signature uses it.
        return Status::OK();
      },
      [=](list_devices_atom) {
        auto promise = self->make_response_promise<ListDevicesResponse>();
        self->state.membership->WithCluster([=](const Status& ready) mutable {
          ListDevicesResponse response;
          response.status = ready;
          const auto& tasks = self->state.membership->tasks();
          for (size_t t = 0; t < tasks.size(); ++t) {
            auto& into = t == 0 ? response.local : response.remote;
            into.insert(into.end(), tasks[t].devices.begin(), tasks[t].devices.end());
          }
          promise.deliver(std::move(response));
        });
        return promise;
      },
      [=](extend_session_atom, const ExtendSessionRequest& request) {
        auto& st = self->state;
        ExtendSessionResponse response;
        auto it = st.sessions.find(request.session_handle);
        if (it == st.sessions.end()) {
          response.status = SessionNotFound(request.session_handle);
          return response;
        }
        SessionState& session = it->second;
        session.last_used = std::chrono::steady_clock::now();
        if (request.current_graph_version != session.graph_version) {
          // TensorFlow's words: another client extended the graph meanwhile.
          response.status = errors::Aborted("Current version is ", session.graph_version, " but caller expected ",
                                            request.current_graph_version, ".");
          return response;
        }
        if (!request.graph) {
          response.status = errors::InvalidArgument("ExtendSession needs a graph");
          return response;
        }
        auto merged = std::make_shared<tensorflow::GraphDef>(*session.graph);
        for (const auto& node : request.graph->node()) *merged->add_node() = node;
        if (request.graph->has_versions()) *merged->mutable_versions() = request.graph->versions();
        // The whole extended graph must import: duplicate names, dangling inputs, cycles
        // and shape errors fail here and leave the session's graph as it was.
        Graph check;
        response.status = ImportGraphDef(*merged, &check);
        if (!response.status.ok()) return response;
        // Cached calls stay valid: new nodes cannot change what existing fetches depend on.
        session.graph = std::move(merged);
        response.new_graph_version = ++session.graph_version;
        return response;
      },
      [=](reset_atom, const std::vector<std::string>& containers) {
        auto& st = self->state;
        // TensorFlow's Reset also closes every session on the master, and its partial runs.
        for (int64_t step : st.partial_runs.RunningSteps()) {
          CancelStep(self, step, errors::Cancelled("the partial run of step ", step, " was reset"));
        }
        st.partial_runs.Clear();
        for (const auto& [handle, session] : st.sessions) DeregisterCalls(self, session);
        st.sessions.clear();
        auto promise = self->make_response_promise<Status>();
        ResetAll(self, containers, promise);
        return promise;
      },
      [=](cancel_step_atom, const std::string& session, int64_t request_id) -> Status {
        if (request_id == 0) return errors::InvalidArgument("CancelStep needs the request_id the step was run with");
        if (!self->state.sessions.count(session)) return SessionNotFound(session);
        CancelRequest(self, session, request_id);
        return Status::OK();
      },
      [=](close_session_atom, const std::string& handle) {
        auto& st = self->state;
        auto it = st.sessions.find(handle);
        if (it == st.sessions.end()) {
          return errors::Aborted("Session ", handle, " is not found. Possibly, this master has restarted.");
        }
        CloseSession(self, handle, errors::Cancelled("Session ", handle, " was closed"));
        return Status::OK();
      },
      [=](client_gone_atom, const std::string& owner) {
        auto& st = self->state;
        if (owner.empty()) return;
        std::vector<std::string> gone;
        for (const auto& [handle, session] : st.sessions) {
          if (session.owner == owner) gone.push_back(handle);
        }
        for (const std::string& handle : gone) {
          Log(StrCat("master: the client of session ", handle, " went away; closing it"));
          CloseSession(self, handle, errors::Cancelled("the client of session ", handle, " went away"));
        }
      },
      [=](heartbeat_tick_atom) { self->state.membership->Tick(); },
      [=](discovery_retry_atom, uint64_t id) { self->state.membership->Retry(id); },
      [=](heartbeat_deadline_atom) { self->state.membership->CheckDeadlines(); },
      [=](session_gc_atom) {
        CollectIdleSessions(self);
        // Checked a few times per period, so a session goes at most a quarter late.
        const int64_t period_ms = std::max<int64_t>(self->state.options.session_gc_seconds * 250, 100);
        self->delayed_send(self, std::chrono::milliseconds(period_ms), session_gc_atom::value);
      },
      [=](inspect_atom) -> std::string { return InspectMaster(self->state); },
      [=](observe_atom) -> std::string { return ObserveMaster(self); },
      // Replies to the deregistrations and peer directories sent above.
      [=](const Status&) {},
  };
}

}  // namespace

caf::actor SpawnMaster(caf::actor_system& system, caf::actor worker, const MasterOptions& options) {
  return system.spawn(master_actor, std::move(worker), options);
}

}  // namespace tensoract
