// A step's life on the master: started on every task of its call (RunCall), gathered as
// the tasks answer, ended (answered, and the tasks told to clean up), failed or cancelled.
#include <algorithm>

#include "actors/master_state.h"
#include "base/env_limit.h"

namespace tensoract {

int64_t MaxSessionFeedBytesFromEnv() {
  static const uint64_t limit = EnvLimit("TENSORACT_MAX_SESSION_FEED_BYTES", uint64_t{4} << 30);
  return static_cast<int64_t>(std::min<uint64_t>(limit, INT64_MAX));
}

namespace master_internal {
namespace {

// Charges a step's feeds to its session and the master (ResourceExhausted, naming the
// budget, when they would hold more than it); the step gives them back when it ends.
Status ChargeFeeds(MasterState& st, const RunStepRequest& request, int64_t* charged) {
  int64_t bytes = 0;
  for (const auto& feed : request.feeds) bytes += static_cast<int64_t>(feed.second.TotalBytes());
  if (bytes == 0) return Status::OK();
  const int64_t session_limit = st.options.max_session_feed_bytes;
  const int64_t master_limit = session_limit > INT64_MAX / 4 ? INT64_MAX : session_limit * 4;
  auto session = st.sessions.find(request.session_handle);
  const int64_t session_held = session == st.sessions.end() ? 0 : session->second.feed_bytes_in_flight;
  if (bytes > session_limit - session_held) {
    return errors::ResourceExhausted("session ", request.session_handle, ": this step's feeds (", bytes,
                                     " bytes) and those its running steps hold (", session_held,
                                     " bytes) exceed the session's budget of ", session_limit,
                                     " bytes (TENSORACT_MAX_SESSION_FEED_BYTES)");
  }
  if (bytes > master_limit - st.feed_bytes_in_flight) {
    return errors::ResourceExhausted("session ", request.session_handle, ": this step's feeds (", bytes,
                                     " bytes) and those every running step holds (", st.feed_bytes_in_flight,
                                     " bytes) exceed the master's budget of ", master_limit,
                                     " bytes (4 x TENSORACT_MAX_SESSION_FEED_BYTES)");
  }
  if (session != st.sessions.end()) session->second.feed_bytes_in_flight += bytes;
  st.feed_bytes_in_flight += bytes;
  *charged = bytes;
  return Status::OK();
}

void ReleaseFeeds(MasterState& st, const StepInFlight& step) {
  st.feed_bytes_in_flight -= step.feed_bytes;
  auto session = st.sessions.find(step.session);
  if (session != st.sessions.end()) session->second.feed_bytes_in_flight -= step.feed_bytes;
}

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

// Ends a step: answers the client, and in a cluster tells every task of the step to drop
// what is left of it (after aborting it there, if it failed).
void FinishStep(Self* self, int64_t step_id) {
  auto& st = self->state;
  auto found = st.steps.find(step_id);
  if (found == st.steps.end()) return;
  StepInFlight step = std::move(found->second);
  st.steps.erase(found);
  ReleaseFeeds(st, step);
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

Status StepCancelled(int64_t request_id) {
  return errors::Cancelled("the step was cancelled (request ", request_id, ")");
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

}  // namespace

void CancelStep(Self* self, int64_t id, const Status& why) {
  auto it = self->state.steps.find(id);
  if (it == self->state.steps.end()) return;
  // A local step has no CleanupGraph to wait for; the abort is what stops it.
  if (!self->state.cluster()) {
    for (int t : it->second.tasks) self->send(self->state.worker(t), abort_step_atom::value, id, why);
  }
  FailStep(self, id, why);
}

void CancelSessionSteps(Self* self, const std::string& session, const Status& why) {
  std::vector<int64_t> cancelled;
  for (const auto& [id, step] : self->state.steps) {
    if (step.session == session) cancelled.push_back(id);
  }
  for (int64_t id : cancelled) CancelStep(self, id, why);
}

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
  int64_t feed_bytes = 0;
  Status budget = ChargeFeeds(st, request, &feed_bytes);
  if (!budget.ok()) {
    promise.deliver(RunStepResponse{budget, {}, nullptr, {}});
    return 0;
  }
  const int64_t step_id = st.next_step++;
  const int64_t timeout_ms = StepTimeoutMs(request.timeout_ms, st.options.default_step_timeout_ms);
  StepInFlight& step = st.steps[step_id];
  step.feed_bytes = feed_bytes;
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

}  // namespace master_internal
}  // namespace tensoract
