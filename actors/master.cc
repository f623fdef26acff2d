#include "actors/master.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <caf/all.hpp>

#include "actors/cluster_credentials.h"
#include "actors/cluster_rendezvous.h"
#include "actors/messages.h"
#include "actors/remote_worker.h"
#include "graph/cost_model.h"
#include "graph/optimizer/remapper.h"
#include "graph/partition.h"
#include "graph/placer.h"
#include "graph/subgraph.h"
#include "kernels/constant_evaluator.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// TensorFlow's words for a handle the master does not know (master.cc): Aborted, which
// retry logic takes as "start over with a new session".
Status SessionNotFound(const std::string& handle) { return errors::Aborted("Session ", handle, " is not found."); }

using heartbeat_tick_atom = caf::atom_constant<caf::atom("hbtick")>;
using session_gc_atom = caf::atom_constant<caf::atom("sessiongc")>;

// One task's share of a call: its graph (every node on one of its devices) and the
// handle its worker gave that graph.
struct TaskGraph {
  int task = 0;
  std::shared_ptr<const tensorflow::GraphDef> graph;
  std::string handle;
};

struct CachedCall {
  CallSignature signature;
  std::vector<TaskGraph> tasks;  // the master's own task (feeds, fetches) first
  // One per device (RunMetadata.partition_graphs).
  std::vector<std::shared_ptr<const tensorflow::GraphDef>> partitions;
};

struct SessionState {
  std::string owner;  // CreateSessionRequest::owner
  std::shared_ptr<const tensorflow::GraphDef> graph;
  int64_t graph_version = 0;
  std::map<std::string, CachedCall> calls;  // by signature key
  std::chrono::steady_clock::time_point last_used;  // the last request naming it
};

// What the master knows of one task of the cluster.
struct TaskState {
  std::string name;
  caf::actor worker;  // the local worker, or a RemoteWorker
  bool healthy = false;
  bool heartbeat_in_flight = false;
  uint64_t incarnation = 0;  // 0: never heard from
  std::string data_plane;
  std::vector<tensorflow::DeviceAttributes> devices;
  Status last_error;
};

// A step in flight: one RunGraph per task, gathered.
struct StepInFlight {
  std::string session;  // the session whose step it is
  caf::typed_response_promise<RunStepResponse> promise;
  std::vector<int> tasks;
  int remaining = 0;
  Status status;  // the first error
  std::vector<Tensor> retvals;
  std::vector<int> produced;          // which retvals the tasks' replies set
  std::vector<std::string> fetches;   // the request's, by retval index
  std::shared_ptr<tensorflow::StepStats> step_stats;
  std::vector<std::shared_ptr<const tensorflow::GraphDef>> partition_graphs;
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
  std::vector<TaskState> tasks;  // [0]: the master's own task
  CostModel cost_model;  // static estimates, refined by every step that collects statistics
  std::map<std::string, SessionState> sessions;
  std::map<int64_t, StepInFlight> steps;
  std::map<int64_t, CallStarting> starting;  // by a start id of their own
  int64_t next_start = 0;
  // Callers waiting for every task to be known and healthy.
  std::vector<std::function<void(const Status&)>> waiting_for_cluster;
  int discovering = 0;  // heartbeats of the discovery round still out
  int64_t next_step = 1;
  bool heartbeats_started = false;  // with the first session: an idle master bothers nobody
  bool session_gc_started = false;  // likewise
  bool cluster() const { return tasks.size() > 1; }
  static inline const char* name = "tensoract.master";
};

using Self = caf::stateful_actor<MasterState>;

std::string SignatureKey(const RunStepRequest& r) {
  std::string key;
  for (const auto& f : r.feeds) key += f.first + ",";
  key += "|";
  for (const auto& f : r.fetches) key += f + ",";
  key += "|";
  for (const auto& t : r.targets) key += t + ",";
  return key;
}

std::vector<tensorflow::DeviceAttributes> AllDevices(const MasterState& st) {
  std::vector<tensorflow::DeviceAttributes> all;
  for (const TaskState& t : st.tasks) all.insert(all.end(), t.devices.begin(), t.devices.end());
  return all;
}

// Builds what one call signature runs: the session's graph rewritten for its feeds and
// fetches, pruned, optimised, placed on every task's devices and partitioned by device,
// then by task.
Status BuildCallGraph(const tensorflow::GraphDef& session_graph, const MasterState& st, CachedCall* call) {
  Graph graph;
  TA_RETURN_IF_ERROR(ImportGraphDef(session_graph, &graph));
  TA_RETURN_IF_ERROR(RewriteForCall(&graph, &call->signature));
  PruneForTargets(&graph, call->signature.targets);
  TA_RETURN_IF_ERROR(OptimizeGraph(st.options.optimizer, CpuConstantEvaluator(), &graph));
  const std::vector<tensorflow::DeviceAttributes> devices = AllDevices(st);
  PlacerOptions placer;
  placer.allow_soft_placement = st.options.allow_soft_placement;
  placer.cost_model = &st.cost_model;
  if (st.cluster() && !st.tasks[0].devices.empty()) {
    // As TensorFlow's master: what the graph does not place goes to the master's task,
    // and the step's feeds and fetches are exchanged there.
    const std::string home = st.tasks[0].devices[0].name();
    placer.default_device = home;
    for (Node* n : graph.op_nodes()) {
      if (n->type_string() == "_Arg" || n->type_string() == "_Retval") n->mutable_def()->set_device(home);
    }
  }
  TA_RETURN_IF_ERROR(PlaceGraph(&graph, devices,
                                [](const Node& n, const std::string& type) { return KernelExists(n.def(), type); },
                                placer));
  if (st.options.optimizer.do_remapping) Remap(&graph);
  PartitionOptions partition;
  for (const auto& d : devices) partition.device_incarnations[d.name()] = static_cast<int64_t>(d.incarnation());
  partition.lossy_float_transfers = st.options.enable_bfloat16_sendrecv;
  partition.schedule_recvs = st.options.enable_recv_scheduling;
  const CostModel* cost = &st.cost_model;
  partition.node_cost = [cost](const Node& n) { return cost->ComputeMicros(n, DEVICE_CPU); };
  std::map<std::string, tensorflow::GraphDef> parts;
  TA_RETURN_IF_ERROR(Partition(graph, partition, &parts));
  // The second level: each task gets one graph with its devices' parts.
  std::map<int, tensorflow::GraphDef> by_task;
  for (auto& [device, part] : parts) {
    const std::string task = TaskOfDevice(device);
    int index = -1;
    for (size_t t = 0; t < st.tasks.size(); ++t) {
      if (st.tasks[t].name == task) index = static_cast<int>(t);
    }
    if (index < 0 && !st.cluster()) index = 0;  // a lone worker may name its devices its own way
    if (index < 0) return errors::Internal("device ", device, " belongs to no task of the cluster");
    tensorflow::GraphDef& mine = by_task[index];
    *mine.mutable_versions() = graph.versions();
    for (const NodeDef& node : part.node()) *mine.add_node() = node;
    if (!part.has_versions()) *part.mutable_versions() = graph.versions();
    call->partitions.push_back(std::make_shared<const tensorflow::GraphDef>(std::move(part)));
  }
  if (by_task.empty()) by_task[0];  // nothing to run: the master's task answers an empty step
  for (auto& [index, g] : by_task) {
    call->tasks.push_back(TaskGraph{index, std::make_shared<const tensorflow::GraphDef>(std::move(g)), ""});
  }
  return Status::OK();
}

Status CheckFeeds(const RunStepRequest& r, const CallSignature& sig) {
  for (size_t i = 0; i < r.feeds.size(); ++i) {
    const Tensor& t = r.feeds[i].second;
    if (t.dtype() != sig.feed_types[i]) {
      return errors::InvalidArgument("feed '", r.feeds[i].first, "' is a ", DataTypeString(t.dtype()),
                                     " tensor but the graph's tensor '", r.feeds[i].first, "' is ",
                                     DataTypeString(sig.feed_types[i]));
    }
    if (!sig.feed_shapes[i].IsCompatibleWith(t.shape())) {
      return errors::InvalidArgument("feed '", r.feeds[i].first, "' has shape ", t.shape().DebugString(),
                                     " but the placeholder declares shape ", sig.feed_shapes[i].DebugString());
    }
    if (!t.IsInitialized()) {
      return errors::InvalidArgument("feed '", r.feeds[i].first, "' is a tensor without memory");
    }
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
  if (st.cluster()) {
    for (int t : step.tasks) {
      if (!step.status.ok()) self->send(st.tasks[t].worker, abort_step_atom::value, step_id, step.status);
      self->send(st.tasks[t].worker, cleanup_graph_atom::value, step_id);
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
    if (reply.step_stats) st.cost_model.RecordStepStats(*reply.step_stats);
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

void AskHeartbeat(Self* self, int task, int64_t timeout_ms, std::function<void()> then);

// Cancels the running steps of `session` (as TensorFlow's StartCancel): every task stops
// the step's executors and fails its Recvs with `why`; the client's Run returns it.
void CancelSessionSteps(Self* self, const std::string& session, const Status& why) {
  std::vector<int64_t> cancelled;
  for (const auto& [id, step] : self->state.steps) {
    if (step.session == session) cancelled.push_back(id);
  }
  for (int64_t id : cancelled) {
    // A local step has no CleanupGraph to wait for; the abort is what stops it.
    if (!self->state.cluster()) {
      for (int t : self->state.steps[id].tasks) self->send(self->state.tasks[t].worker, abort_step_atom::value, id, why);
    }
    FailStep(self, id, why);
  }
}

void OnRunGraphDone(Self* self, int64_t step_id, int task, RunGraphResponse reply) {
  auto& st = self->state;
  if (reply.graph_not_found && st.cluster()) {
    // The task forgot the graph: it restarted since the last heartbeat. Ask now, so its
    // new incarnation drops the stale registrations before the next step.
    reply.status = errors::Aborted("task ", st.tasks[task].name, " lost its graphs (it restarted): ",
                                   reply.status.message());
    if (!st.tasks[task].heartbeat_in_flight) AskHeartbeat(self, task, st.options.heartbeat_timeout_ms, [] {});
  }
  auto found = st.steps.find(step_id);
  if (found == st.steps.end()) return;  // already failed
  StepInFlight& step = found->second;
  if (!reply.status.ok() && step.status.ok()) {
    // The first error is the cause; the other tasks stop now rather than at their Recvs'
    // deadlines.
    step.status = reply.status;
    Status abort = errors::Aborted("step ", step_id, " was aborted because task ", st.tasks[task].name,
                                   " failed: ", reply.status.message());
    for (int t : step.tasks) {
      if (t != task) self->send(st.tasks[t].worker, abort_step_atom::value, step_id, abort);
    }
  }
  if (reply.status.ok()) {
    MoveProducedRetvals(&reply, &step.retvals, &step.produced);
    if (reply.step_stats) {
      if (!step.step_stats) step.step_stats = std::make_shared<tensorflow::StepStats>();
      for (auto& dev : *reply.step_stats->mutable_dev_stats()) *step.step_stats->add_dev_stats() = std::move(dev);
    }
  }
  if (--step.remaining == 0) FinishStep(self, step_id);
}

void RunCall(Self* self, const CachedCall& call, RunStepRequest request,
             caf::typed_response_promise<RunStepResponse> promise) {
  Status feeds_ok = CheckFeeds(request, call.signature);
  if (!feeds_ok.ok()) {
    promise.deliver(RunStepResponse{feeds_ok, {}, nullptr, {}});
    return;
  }
  auto& st = self->state;
  for (const TaskGraph& tg : call.tasks) {
    const TaskState& task = st.tasks[tg.task];
    if (!task.healthy) {
      promise.deliver(RunStepResponse{errors::Unavailable("task ", task.name, " is unavailable: ",
                                                          task.last_error.message()), {}, nullptr, {}});
      return;
    }
  }
  const int64_t step_id = st.next_step++;
  const int64_t timeout_ms = StepTimeoutMs(request.timeout_ms, st.options.default_step_timeout_ms);
  StepInFlight& step = st.steps[step_id];
  step.session = request.session_handle;
  step.promise = promise;
  step.remaining = static_cast<int>(call.tasks.size());
  step.fetches = call.signature.fetches;
  if (request.output_partition_graphs) step.partition_graphs = call.partitions;
  for (const TaskGraph& tg : call.tasks) step.tasks.push_back(tg.task);
  for (const TaskGraph& tg : call.tasks) {
    RunGraphRequest run;
    run.graph_handle = tg.handle;
    run.step_id = step_id;
    run.timeout_ms = timeout_ms;
    run.collect_stats = request.collect_stats;
    run.master_cleans_up = st.cluster();
    if (tg.task == 0) {
      for (auto& feed : request.feeds) run.args.push_back(std::move(feed.second));
    }
    const int task = tg.task;
    // The workers enforce the step's deadline; this one only guards against a lost worker.
    self->request(st.tasks[task].worker, std::chrono::milliseconds(timeout_ms + 5000), run_graph_atom::value,
                  std::move(run))
        .then([=](RunGraphResponse& response) { OnRunGraphDone(self, step_id, task, std::move(response)); },
              [=](caf::error& error) {
                OnRunGraphDone(self, step_id, task,
                               RunGraphFailure(FromCafError(error, StrCat("RunGraph of step ", step_id, " on task ",
                                                                           self->state.tasks[task].name))));
              });
  }
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
        if (tg.task != task) self->send(st.tasks[tg.task].worker, deregister_graph_atom::value, tg.handle);
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

PeerDirectory Directory(const MasterState& st) {
  PeerDirectory peers;
  for (const TaskState& t : st.tasks) {
    if (!t.data_plane.empty()) peers.data_plane_by_task[t.name] = t.data_plane;
  }
  return peers;
}

void SendPeers(Self* self) {
  PeerDirectory peers = Directory(self->state);
  for (const TaskState& t : self->state.tasks) self->send(t.worker, set_peers_atom::value, peers);
}

void Log(const std::string& line) { std::fputs((line + "\n").c_str(), stderr); }

void MarkUnhealthy(Self* self, int task, const Status& why) {
  TaskState& t = self->state.tasks[task];
  if (t.healthy) Log(StrCat("master: task ", t.name, " is unavailable: ", why.message()));
  t.healthy = false;
  t.last_error = why;
  FailStepsOn(self, task, errors::Unavailable("task ", t.name, " is unavailable: ", why.message()));
}

void OnHeartbeat(Self* self, int task, WorkerInfo info) {
  auto& st = self->state;
  TaskState& t = st.tasks[task];
  if (!info.status.ok()) return MarkUnhealthy(self, task, info.status);
  if (t.name.empty()) t.name = info.task;  // the master's own task names itself
  if (!info.task.empty() && info.task != t.name) {
    return MarkUnhealthy(self, task, errors::FailedPrecondition("the node at its address says it is task ",
                                                                info.task));
  }
  if (t.incarnation != 0 && info.incarnation != t.incarnation) {
    Log(StrCat("master: task ", t.name, " restarted (incarnation ", t.incarnation, " -> ", info.incarnation,
               "); its graphs will be registered again"));
    FailStepsOn(self, task, errors::Aborted("task ", t.name, " restarted during the step and lost its state"));
    DropCallsOn(self, task);
  } else if (!t.healthy && t.incarnation != 0) {
    Log(StrCat("master: task ", t.name, " answers again"));
  }
  bool moved = info.data_plane != t.data_plane;
  t.incarnation = info.incarnation;
  t.data_plane = std::move(info.data_plane);
  t.devices = std::move(info.devices);
  t.healthy = true;
  t.last_error = Status::OK();
  if (moved && st.cluster()) SendPeers(self);
}

void AskHeartbeat(Self* self, int task, int64_t timeout_ms, std::function<void()> then) {
  auto& st = self->state;
  st.tasks[task].heartbeat_in_flight = true;
  self->request(st.tasks[task].worker, std::chrono::milliseconds(timeout_ms), heartbeat_atom::value)
      .then(
          [=](WorkerInfo& info) {
            self->state.tasks[task].heartbeat_in_flight = false;
            OnHeartbeat(self, task, std::move(info));
            then();
          },
          [=](caf::error& e) {
            self->state.tasks[task].heartbeat_in_flight = false;
            Status why = e == caf::sec::request_timeout
                             ? errors::DeadlineExceeded("no heartbeat within ", timeout_ms, " ms")
                             : FromCafError(e, "heartbeat");
            MarkUnhealthy(self, task, why);
            then();
          });
}

// Calls `next` once every task is known and healthy (asking those that are not), or with
// Unavailable naming the tasks that are not.
void WithCluster(Self* self, std::function<void(const Status&)> next) {
  auto& st = self->state;
  bool ready = true;
  for (const TaskState& t : st.tasks) ready &= t.healthy;
  if (ready) return next(Status::OK());
  st.waiting_for_cluster.push_back(std::move(next));
  if (st.discovering > 0) return;
  auto round_done = [self]() {
    auto& st = self->state;
    if (--st.discovering > 0) return;
    std::string missing;
    for (const TaskState& t : st.tasks) {
      if (!t.healthy) missing += StrCat(missing.empty() ? "" : "; ", t.name, ": ", t.last_error.message());
    }
    Status status = missing.empty() ? Status::OK() : errors::Unavailable("tasks not reachable: ", missing);
    if (status.ok() && st.cluster()) SendPeers(self);
    auto waiting = std::move(st.waiting_for_cluster);
    st.waiting_for_cluster.clear();
    for (auto& k : waiting) k(status);
  };
  // A first contact includes connecting; give it the longer of the two.
  int64_t timeout = std::max<int64_t>(st.options.heartbeat_timeout_ms, 5000);
  for (size_t t = 0; t < st.tasks.size(); ++t) {
    if (st.tasks[t].healthy) continue;
    ++st.discovering;
    AskHeartbeat(self, static_cast<int>(t), timeout, round_done);
  }
}

// The first step of a signature: builds its call graph, registers each task's share with
// that task, caches the handles and runs the step.
void StartNewCall(Self* self, const std::string& key, RunStepRequest request,
                  caf::typed_response_promise<RunStepResponse> promise) {
  auto& st = self->state;
  const std::string session_handle = request.session_handle;
  auto session = st.sessions.find(session_handle);
  if (session == st.sessions.end()) {
    promise.deliver(RunStepResponse{SessionNotFound(session_handle), {}, nullptr, {}});
    return;
  }
  auto call = std::make_shared<CachedCall>();
  for (const auto& f : request.feeds) call->signature.feeds.push_back(f.first);
  call->signature.fetches = request.fetches;
  call->signature.targets = request.targets;
  Status built = BuildCallGraph(*session->second.graph, st, call.get());
  if (!built.ok()) {
    promise.deliver(RunStepResponse{built, {}, nullptr, {}});
    return;
  }
  // Registration on every task at once; the call is cached when all have answered.
  auto remaining = std::make_shared<int>(static_cast<int>(call->tasks.size()));
  auto failure = std::make_shared<Status>();
  auto request_ptr = std::make_shared<RunStepRequest>(std::move(request));
  const int64_t start_id = st.next_start++;
  // Runs once: when every task has answered, or when one is found unavailable first (the
  // answers still out are then ignored).
  auto all_answered = [=]() mutable {
    auto& st = self->state;
    if (st.starting.erase(start_id) == 0) return;
    auto forget = [&]() {
      for (const TaskGraph& tg : call->tasks) {
        if (!tg.handle.empty()) self->send(st.tasks[tg.task].worker, deregister_graph_atom::value, tg.handle);
      }
    };
    if (!failure->ok()) {
      forget();
      promise.deliver(RunStepResponse{*failure, {}, nullptr, {}});
      return;
    }
    auto s = st.sessions.find(session_handle);
    if (s == st.sessions.end()) {
      forget();
      promise.deliver(RunStepResponse{
          errors::Cancelled("session '", session_handle, "' was closed while the step started"), {}, nullptr, {}});
      return;
    }
    // Two first steps of one signature may race; the first handles win, the other
    // graphs are dropped.
    auto [it, inserted] = s->second.calls.emplace(key, *call);
    if (!inserted) forget();
    RunCall(self, it->second, std::move(*request_ptr), promise);
  };
  CallStarting& starting = st.starting[start_id];
  for (const TaskGraph& tg : call->tasks) starting.tasks.push_back(tg.task);
  starting.fail = [=](const Status& why) mutable {
    if (failure->ok()) *failure = why;
    all_answered();
  };
  for (size_t i = 0; i < call->tasks.size(); ++i) {
    const int task = call->tasks[i].task;
    self->request(st.tasks[task].worker, std::chrono::milliseconds(st.options.register_timeout_ms),
                  register_graph_atom::value, RegisterGraphRequest{call->tasks[i].graph})
        .then(
            [=](RegisterGraphResponse& response) mutable {
              auto& st = self->state;
              if (st.starting.count(start_id) == 0) {
                // The call failed while this task registered: nothing will run the graph.
                if (response.status.ok()) {
                  self->send(st.tasks[task].worker, deregister_graph_atom::value, response.graph_handle);
                }
                return;
              }
              if (response.status.ok()) {
                call->tasks[i].handle = response.graph_handle;
              } else if (failure->ok()) {
                *failure = self->state.cluster()
                               ? response.status.WithContext(StrCat("registering on task ", self->state.tasks[task].name))
                               : response.status;
              }
              if (--*remaining == 0) all_answered();
            },
            [=](caf::error& error) mutable {
              if (self->state.starting.count(start_id) == 0) return;
              if (failure->ok()) *failure = FromCafError(error, StrCat("RegisterGraph on task ", self->state.tasks[task].name));
              if (--*remaining == 0) all_answered();
            });
  }
}

// Asks every task and answers `promise` with the first error, or OK.
void ResetAll(Self* self, const std::vector<std::string>& containers, caf::typed_response_promise<Status> promise) {
  auto& st = self->state;
  auto remaining = std::make_shared<int>(static_cast<int>(st.tasks.size()));
  auto result = std::make_shared<Status>();
  for (const TaskState& t : st.tasks) {
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
      self->send(self->state.tasks[tg.task].worker, deregister_graph_atom::value, tg.handle);
    }
  }
}

// Closes a session: its running steps end with `why` (Cancelled), its graphs are dropped.
void CloseSession(Self* self, const std::string& handle, const Status& why) {
  auto& st = self->state;
  auto it = st.sessions.find(handle);
  if (it == st.sessions.end()) return;
  CancelSessionSteps(self, handle, why);
  DeregisterCalls(self, it->second);
  st.sessions.erase(it);
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

std::string InspectMaster(const MasterState& st) {
  std::string out = StrCat("master: ", st.sessions.size(), " sessions, ", st.steps.size(),
                           " steps running, next step id ", st.next_step);
  for (const auto& [handle, s] : st.sessions) {
    const auto idle = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - s.last_used);
    out += StrCat("\n  ", handle, ": ", s.graph->node_size(), " nodes, ", s.calls.size(), " cached signatures, idle ",
                  idle.count(), " s");
  }
  if (st.cluster()) {
    for (const TaskState& t : st.tasks) {
      out += StrCat("\n  task ", t.name, ": ", t.healthy ? "healthy" : "UNAVAILABLE",
                    t.healthy ? "" : StrCat(" (", t.last_error.message(), ")"), ", incarnation ", t.incarnation,
                    ", data plane ", t.data_plane.empty() ? "-" : t.data_plane, ", ", t.devices.size(), " devices");
    }
  }
  auto names = [&](const std::vector<int>& tasks) {
    std::string list;
    for (int t : tasks) list += StrCat(list.empty() ? "" : ", ", st.tasks[t].name);
    return list;
  };
  for (const auto& [id, step] : st.steps) {
    out += StrCat("\n  step ", id, ": waiting for ", step.remaining, " of ", step.tasks.size(), " tasks [",
                  names(step.tasks), "]");
  }
  for (const auto& [id, start] : st.starting) {
    out += StrCat("\n  a first step registering its graphs on tasks [", names(start.tasks), "]");
  }
  if (!st.waiting_for_cluster.empty()) {
    out += StrCat("\n  ", st.waiting_for_cluster.size(), " first steps wait to learn every task's devices (",
                  st.discovering, " heartbeats out)");
  }
  return out;
}

caf::behavior master_actor(Self* self, caf::actor worker, MasterOptions options) {
  auto& st = self->state;
  st.options = options;
  TaskState home;
  home.name = "";  // filled in by the first heartbeat
  home.worker = std::move(worker);
  st.tasks.push_back(std::move(home));
  for (const RemoteAddress& address : options.remote_tasks) {
    TaskState t;
    t.name = address.name;
    t.worker = SpawnRemoteWorker(self->system(), address);
    self->link_to(t.worker);
    t.last_error = errors::Unavailable("not contacted yet");
    st.tasks.push_back(std::move(t));
  }
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
        if (st.cluster() && !st.heartbeats_started) {
          st.heartbeats_started = true;
          self->send(self, heartbeat_tick_atom::value);
        }
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
      [=](run_step_atom, RunStepRequest& request) -> caf::result<RunStepResponse> {
        auto& st = self->state;
        auto session = st.sessions.find(request.session_handle);
        if (session == st.sessions.end()) {
          return RunStepResponse{SessionNotFound(request.session_handle), {}, nullptr, {}};
        }
        session->second.last_used = std::chrono::steady_clock::now();
        // A promise takes over the reply: make it only on the paths that answer through it,
        // never before an early `return RunStepResponse{...}` (that reply would be lost).
        const std::string key = SignatureKey(request);
        auto promise = self->make_response_promise<RunStepResponse>();
        if (auto hit = session->second.calls.find(key); hit != session->second.calls.end()) {
          RunCall(self, hit->second, std::move(request), promise);
          return promise;
        }
        // Placement needs every task's devices: the first step of a signature makes sure
        // the master knows them.
        auto request_ptr = std::make_shared<RunStepRequest>(std::move(request));
        WithCluster(self, [=](const Status& ready) mutable {
          if (!ready.ok()) {
            promise.deliver(RunStepResponse{ready, {}, nullptr, {}});
            return;
          }
          StartNewCall(self, key, std::move(*request_ptr), promise);
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
        // TensorFlow's Reset also closes every session on the master.
        for (const auto& [handle, session] : st.sessions) DeregisterCalls(self, session);
        st.sessions.clear();
        auto promise = self->make_response_promise<Status>();
        ResetAll(self, containers, promise);
        return promise;
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
      [=](heartbeat_tick_atom) {
        auto& st = self->state;
        for (size_t t = 1; t < st.tasks.size(); ++t) {
          if (!st.tasks[t].heartbeat_in_flight) {
            AskHeartbeat(self, static_cast<int>(t), st.options.heartbeat_timeout_ms, [] {});
          }
        }
        self->delayed_send(self, std::chrono::milliseconds(st.options.heartbeat_interval_ms),
                           heartbeat_tick_atom::value);
      },
      [=](session_gc_atom) {
        CollectIdleSessions(self);
        // Checked a few times per period, so a session goes at most a quarter late.
        const int64_t period_ms = std::max<int64_t>(self->state.options.session_gc_seconds * 250, 100);
        self->delayed_send(self, std::chrono::milliseconds(period_ms), session_gc_atom::value);
      },
      [=](inspect_atom) -> std::string { return InspectMaster(self->state); },
      // Replies to the deregistrations and peer directories sent above.
      [=](const Status&) {},
  };
}

}  // namespace

caf::actor SpawnMaster(caf::actor_system& system, caf::actor worker, const MasterOptions& options) {
  return system.spawn(master_actor, std::move(worker), options);
}

}  // namespace tensoract
