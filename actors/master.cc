// The master actor: sessions (create, extend, close, reset, collected when idle or when their
// client goes), and the handlers that hand steps and calls to master_steps.cc and
// master_calls.cc. Its state is in actors/master_state.h.
#include "actors/master.h"

#include <chrono>
#include <random>
#include <set>

#include "actors/cluster_credentials.h"  // RandomHandle
#include "actors/master_state.h"
#include "base/log_line.h"

namespace tensoract {
namespace {

using namespace master_internal;  // NOLINT: the master's own internals

using session_gc_atom = caf::atom_constant<caf::atom("sessiongc")>;
using lease_check_atom = caf::atom_constant<caf::atom("leasechk")>;
constexpr int64_t kLeaseCheckMs = 250;


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

// The sessions a remote client (`owner`) created.
std::vector<std::string> OwnerSessions(const MasterState& st, const std::string& owner) {
  std::vector<std::string> handles;
  for (const auto& [handle, session] : st.sessions) {
    if (session.owner == owner) handles.push_back(handle);
  }
  return handles;
}

void CloseSessionsOf(Self* self, const std::string& owner, const std::string& what_happened) {
  for (const std::string& handle : OwnerSessions(self->state, owner)) {
    LogLine(StrCat("master: the client of session ", handle, " ", what_happened, "; closing it"));
    CloseSession(self, handle, errors::Cancelled("the client of session ", handle, " ", what_happened));
  }
  self->state.client_leases.erase(owner);
}

// The clients whose lease lapsed while a step of theirs ran. A client heartbeats only
// while a call waits, so a lease that lapsed between calls means nothing; a step started
// less than a lease ago has not had its first heartbeat yet.
std::vector<std::pair<std::string, int64_t>> LapsedClientLeases(Self* self) {
  auto& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, int64_t>> lapsed;
  for (auto it = st.client_leases.begin(); it != st.client_leases.end();) {
    const std::string& owner = it->first;
    if (OwnerSessions(st, owner).empty()) {
      it = st.client_leases.erase(it);
      continue;
    }
    const auto lease = std::chrono::milliseconds(it->second.lease_ms);
    bool running = false;
    auto latest_start = std::chrono::steady_clock::time_point::min();
    for (const auto& [id, step] : st.steps) {
      auto session = st.sessions.find(step.session);
      if (session == st.sessions.end() || session->second.owner != owner) continue;
      running = true;
      latest_start = std::max(latest_start, step.started);
    }
    if (running && now > it->second.expires && now > latest_start + lease) {
      lapsed.emplace_back(owner, it->second.lease_ms);
    }
    ++it;
  }
  return lapsed;
}

// Closes the sessions of every client whose lease lapsed (lease_confirm_atom: after the
// renewals queued before it).
void CloseLapsedClients(Self* self) {
  for (const auto& [owner, lease_ms] : LapsedClientLeases(self)) {
    CloseSessionsOf(self, owner, StrCat("sent no heartbeat for ", lease_ms, " ms while its step ran (it froze, died "
                                        "unseen or was cut off)"));
  }
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
    LogLine(StrCat("master: closing session ", handle, ": unused for ", st.options.session_gc_seconds, " s"));
    CloseSession(self, handle, errors::Cancelled("Session ", handle, " was closed: unused for ",
                                                 st.options.session_gc_seconds, " s"));
  }
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
      [=](run_callable_atom, RunCallableRequest& request) { return OnRunCallable(self, request); },
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
        if (owner.empty()) return;
        CloseSessionsOf(self, owner, "went away");
      },
      [=](client_lease_atom, const std::string& owner, int64_t lease_ms) {
        auto& st = self->state;
        if (OwnerSessions(st, owner).empty()) return;  // a master probing this node's worker, or a client between sessions
        st.client_leases[owner] = {std::chrono::steady_clock::now() + std::chrono::milliseconds(lease_ms), lease_ms};
        if (!st.lease_check_scheduled) {
          st.lease_check_scheduled = true;
          self->delayed_send(self, std::chrono::milliseconds(kLeaseCheckMs), lease_check_atom::value);
        }
      },
      [=](lease_check_atom) {
        auto& st = self->state;
        st.lease_check_scheduled = false;
        if (!LapsedClientLeases(self).empty()) self->send(self, lease_confirm_atom::value);
        if (!st.client_leases.empty()) {
          st.lease_check_scheduled = true;
          self->delayed_send(self, std::chrono::milliseconds(kLeaseCheckMs), lease_check_atom::value);
        }
      },
      [=](lease_confirm_atom) { CloseLapsedClients(self); },
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