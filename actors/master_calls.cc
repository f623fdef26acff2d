// Compiling a session's call of a signature (PrepareCall: its call graph, registered on
// every task, cached under the signature's key) and the requests that run one: RunStep,
// RunCallable, MakeCallable, PartialRunSetup.
#include "actors/master_state.h"

#include <utility>

namespace tensoract {
namespace master_internal {
namespace {

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
                  register_graph_atom::value, RegisterGraphRequest{call->tasks[i].graph, "", session_handle,
                                                             st.options.optimizer.freeze_variables})
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

}  // namespace

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
      if (session.lost_state.ok()) {
        session.lost_state = errors::Aborted(
            "task ", st.membership->task(task).name,
            " restarted and lost this session's state there (variables, queues and other resources); "
            "restore a checkpoint or run the initializers again");
      }
    }
  }
}

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
  if (!session->second.lost_state.ok()) {
    RunStepResponse lost{std::exchange(session->second.lost_state, Status::OK()), {}, nullptr, {}};
    if (!request.reply_to) return lost;
    request.reply_to(std::move(lost));
    return RunStepResponse{};
  }
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

caf::result<RunStepResponse> OnRunCallable(Self* self, RunCallableRequest& request) {
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
}

}  // namespace master_internal
}  // namespace tensoract
