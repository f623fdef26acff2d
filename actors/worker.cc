#include "actors/worker.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <random>

#include <caf/all.hpp>

#include "actors/cluster_credentials.h"
#include "actors/observe.h"
#include "actors/cluster_rendezvous.h"
#include "actors/collective_executor.h"
#include "actors/data_plane/client.h"
#include "actors/data_plane/server.h"
#include "actors/device_actor.h"
#include "actors/executor.h"
#include "actors/frozen_variables.h"
#include "actors/local_devices.h"
#include "actors/queue_actor.h"
#include "actors/rendezvous.h"
#include "graph/partition.h"

namespace tensoract {
namespace {

// The worker's timer: while a step runs or a remote master holds a live lease, it checks
// the steps' deadlines and the leases this often (each is acted on at most this late).
using worker_tick_atom = caf::atom_constant<caf::atom("workertick")>;
constexpr int64_t kTickMs = 50;

// A registered graph: one plan per device it uses, and per lane of a device
// (graph/loop_lanes.h).
struct RegisteredGraph {
  std::vector<std::shared_ptr<const ExecutorPlan>> plans;
  std::vector<int> device_index;  // the device of each plan
  bool has_lanes = false;         // some device has more than one plan (lanes)
  int num_args = 0;
  std::string owner;  // RegisterGraphRequest::owner
  // The stateful kernels its plans share with the other graphs of its session; they go
  // when the session's last graph does.
  std::shared_ptr<SharedKernels> shared_kernels;
  // Some plan has a _Send or _Recv (only they use the rendezvous).
  bool uses_rendezvous = false;
  // Executors of each plan idle after a step, for the next ones (actors/executor.h). They
  // are linked to the worker while they wait, so they go down with it.
  std::vector<std::vector<caf::actor>> idle;
  // Counts the rebuilds of `plans`: an executor of older plans is not kept idle.
  uint64_t generation = 0;
  // Frozen variables (actors/frozen_variables.h): the graph as registered, the variables
  // it only reads (at their versions then; emptied when the graph stops freezing), whether
  // it ran since, and, once frozen, the variables its plans hold as constants.
  std::shared_ptr<const tensorflow::GraphDef> source;
  FrozenVariables freezable;
  bool ran = false;
  FrozenVariables frozen;
};

// Idle executors kept per plan: as many as the steps of one graph that usually overlap.
constexpr size_t kIdleExecutorsPerPlan = 2;

// A step in flight: its executors, and what their replies add up to so far.
struct RunningStep {
  std::vector<caf::actor> executors;
  int remaining = 0;
  bool master_cleans_up = false;
  // The rendezvous holds something of this step (its graph has transfers, or an abort
  // went there): it gets the step's cleanup. A step that never touched it costs it no
  // message, nor a scheduler thread woken for one (steps run on their caller's thread).
  bool uses_rendezvous = false;
  std::string owner;  // RunGraphRequest::owner
  RunGraphResponse response;
  caf::typed_response_promise<RunGraphResponse> promise;
  // The step's deadline, checked by the worker's deadline tick (not by a CAF request
  // timeout: CAF 0.17 keeps each request's timeout in its clock until it fires, ~190 bytes
  // for as long as the deadline, which at hundreds of steps a second adds up).
  std::chrono::steady_clock::time_point deadline;
  int64_t timeout_ms = 0;
  bool expired = false;
};

struct WorkerState {
  WorkerOptions options;
  std::vector<std::shared_ptr<Device>> devices;
  std::vector<caf::actor> device_actors;
  caf::actor rendezvous_actor;
  std::shared_ptr<QueueRegistry> queues = std::make_shared<QueueRegistry>();  // for an observer
  // Tensors an observer asked to watch in the next `watch_steps` steps, and what was seen.
  std::shared_ptr<const WatchSpec> watch;
  int watch_steps = 0;
  std::shared_ptr<WatchSink> watched = std::make_shared<WatchSink>();
  std::shared_ptr<ClusterRendezvous> rendezvous;
  // Collective ops' groups (actors/collective_executor.h), and the leader that forms them
  // when this task is the cluster's collective leader.
  caf::actor collective_leader;
  std::shared_ptr<CollectiveService> collectives;
  uint64_t incarnation = 0;  // tells this process's worker apart from a restarted one
  std::unique_ptr<DataPlaneServer> data_plane;  // with serve_data_plane
  std::string data_plane_address;
  std::map<std::string, RegisteredGraph> graphs;
  std::map<int64_t, std::shared_ptr<RunningStep>> running;
  // Steps that ended with their rendezvous entries kept for the master's CleanupGraph, by
  // the remote master that ran them: dropped if it goes away before it cleans up.
  std::map<std::string, std::set<int64_t>> awaiting_cleanup;
  // The remote masters' leases on their steps: until when, and for how long each renewal.
  struct Lease {
    std::chrono::steady_clock::time_point until;
    int64_t ms = 0;
    bool expired = false;  // its steps were aborted; the next renewal starts it again
  };
  std::map<std::string, Lease> leases;
  // Each session's shared stateful kernels, held by its registered graphs (by "owner|handle").
  std::map<std::string, std::weak_ptr<SharedKernels>> session_kernels;
  bool tick_scheduled = false;
  static inline const char* name = "tensoract.worker";
};

using WorkerSelf = caf::stateful_actor<WorkerState>;

// Splits `graph` by device, and each device's nodes by lane (their attr "_executor_lane",
// graph/partition.h), and makes a plan for each part.
// With `freeze`, each part first takes those variables as constants (FreezeVariableReads),
// and what it froze is added to `frozen`. With `earlier` (the same graph's plans), nodes
// that compute what they computed there keep their kernels.
StatusOr<RegisteredGraph> BuildPlans(WorkerState& st, const tensorflow::GraphDef& graph,
                                     std::shared_ptr<SharedKernels> shared, const FrozenVariables* freeze = nullptr,
                                     FrozenVariables* frozen = nullptr, const RegisteredGraph* earlier = nullptr) {
  std::map<std::pair<int, int>, tensorflow::GraphDef> parts;  // by (device, lane)
  for (const NodeDef& node : graph.node()) {
    int index = 0;
    if (!node.device().empty()) {
      auto it = std::find_if(st.devices.begin(), st.devices.end(),
                             [&](const std::shared_ptr<Device>& d) { return d->name() == node.device(); });
      if (it == st.devices.end()) {
        std::string names;
        for (const auto& d : st.devices) names += StrCat(names.empty() ? "" : ", ", d->name());
        return errors::InvalidArgument("node '", node.name(), "' is assigned to device '", node.device(),
                                       "', which worker ", st.options.task_name, " does not have (it has ", names, ")");
      }
      index = static_cast<int>(it - st.devices.begin());
    }
    auto lane = node.attr().find(kExecutorLaneAttr);
    tensorflow::GraphDef& part = parts[{index, lane == node.attr().end() ? 0 : static_cast<int>(lane->second.i())}];
    if (part.node_size() == 0) {
      *part.mutable_versions() = graph.versions();
      *part.mutable_library() = graph.library();
    }
    *part.add_node() = node;
  }
  RegisteredGraph registered;
  registered.shared_kernels = shared;
  for (auto& [where, part] : parts) {
    const int index = where.first;
    if (freeze != nullptr) {
      TA_ASSIGN_OR_RETURN(FrozenVariables part_frozen, FreezeVariableReads(*freeze, st.devices[index]->name(), &part));
      frozen->Merge(part_frozen);
    }
    const size_t p = registered.plans.size();
    const ExecutorPlan* before = earlier != nullptr && p < earlier->plans.size() ? earlier->plans[p].get() : nullptr;
    auto plan = ExecutorPlan::Build(part, st.devices[index].get(), st.rendezvous, shared.get(), st.collectives, before);
    if (!plan.ok()) return plan.status();
    registered.num_args = std::max(registered.num_args, plan.value()->num_args);
    registered.uses_rendezvous |= plan.value()->has_transfers;
    registered.plans.push_back(std::move(plan).value());
    registered.device_index.push_back(index);
    registered.has_lanes |= where.second > 0;
  }
  return registered;
}

// The kernels shared by the graphs of `request`'s session (from one master: the owner is
// part of the key); null for a graph of no session.
std::shared_ptr<SharedKernels> SessionKernels(WorkerState& st, const RegisterGraphRequest& request) {
  if (request.session_handle.empty()) return nullptr;
  for (auto it = st.session_kernels.begin(); it != st.session_kernels.end();) {
    it = it->second.expired() ? st.session_kernels.erase(it) : std::next(it);  // sessions gone
  }
  std::weak_ptr<SharedKernels>& slot = st.session_kernels[request.owner + "|" + request.session_handle];
  std::shared_ptr<SharedKernels> shared = slot.lock();
  if (shared == nullptr) {
    shared = std::make_shared<SharedKernels>();
    slot = shared;
  }
  return shared;
}

Status StepDeadlineExceeded(int64_t step_id, int64_t timeout_ms) {
  return errors::DeadlineExceeded("step ", step_id, " did not finish before its deadline (", timeout_ms, " ms)");
}

void ScheduleTick(WorkerSelf* self) {
  if (self->state.tick_scheduled) return;
  self->state.tick_scheduled = true;
  self->delayed_send(self, std::chrono::milliseconds(kTickMs), worker_tick_atom::value);
}

// Aborts the running steps the remote master `owner` ran, with `why`, and drops what they
// keep for its CleanupGraph: that master will not send it (it went away or stopped
// renewing its lease).
void AbandonStepsOf(WorkerSelf* self, const std::string& owner, const Status& why) {
  auto& st = self->state;
  for (auto& [step_id, step] : st.running) {
    if (step->owner != owner) continue;
    // The step drops its rendezvous entries when it ends.
    step->master_cleans_up = false;
    step->uses_rendezvous = true;
    self->send(st.rendezvous_actor, abort_atom::value, step_id, why);
    for (const caf::actor& e : step->executors) self->send(e, abort_atom::value, why);
  }
  auto waiting = st.awaiting_cleanup.find(owner);
  if (waiting != st.awaiting_cleanup.end()) {
    for (int64_t step_id : waiting->second) self->send(st.rendezvous_actor, cleanup_step_atom::value, step_id);
    st.awaiting_cleanup.erase(waiting);
  }
}

// Folds one executor's reply into its step; the step ends with the last reply.
// Stops the idle executors of `graph` (it is being forgotten).
void StopIdleExecutors(WorkerSelf* self, RegisteredGraph& graph) {
  for (auto& pool : graph.idle) {
    for (const caf::actor& e : pool) {
      self->unlink_from(e);
      self->send_exit(e, caf::exit_reason::user_shutdown);
    }
    pool.clear();
  }
}

// Remakes `graph`'s plans from its source, its variables frozen as `freeze` lists or (null)
// read. On failure the graph keeps the plans it has.
Status RebuildPlans(WorkerSelf* self, RegisteredGraph& graph, const FrozenVariables* freeze) {
  FrozenVariables frozen;
  TA_ASSIGN_OR_RETURN(RegisteredGraph rebuilt,
                      BuildPlans(self->state, *graph.source, graph.shared_kernels, freeze, &frozen, &graph));
  StopIdleExecutors(self, graph);
  graph.plans = std::move(rebuilt.plans);
  graph.device_index = std::move(rebuilt.device_index);
  graph.idle.assign(graph.plans.size(), {});
  graph.frozen = std::move(frozen);
  ++graph.generation;
  return Status::OK();
}

// Before a step (actors/frozen_variables.h): a graph running again with the variables it
// only reads unchanged since it was registered takes them as constants; a frozen graph
// whose variables changed reads them again, from then on.
Status UpdateFreezing(WorkerSelf* self, RegisteredGraph& graph) {
  if (graph.freezable.empty()) return Status::OK();
  if (!graph.frozen.empty()) {
    if (graph.frozen.Current()) return Status::OK();
    Status rebuilt = RebuildPlans(self, graph, nullptr);
    if (!rebuilt.ok()) {
      return errors::Internal("variables this graph took as constants changed, and its plans could not be remade "
                              "to read them: ", rebuilt.message());
    }
    graph.freezable = FrozenVariables();
    return Status::OK();
  }
  if (!graph.ran) {
    graph.ran = true;
    return Status::OK();
  }
  // Freezing is only worth it: a graph it cannot freeze runs on as it is.
  if (!graph.freezable.Current() || !RebuildPlans(self, graph, &graph.freezable).ok() || graph.frozen.empty()) {
    graph.freezable = FrozenVariables();
  }
  return Status::OK();
}

// An executor that finished a step of plan `plan` of graph `handle`: kept for the next
// step if it stayed idle, `pooled` and there is room, else stopped.
void ReturnExecutor(WorkerSelf* self, const std::string& handle, size_t plan, const caf::actor& executor, bool idle,
                    bool pooled, uint64_t generation) {
  if (!idle) return;  // it quit
  auto found = self->state.graphs.find(handle);
  if (pooled && found != self->state.graphs.end() && found->second.generation == generation &&
      plan < found->second.idle.size() &&
      found->second.idle[plan].size() < kIdleExecutorsPerPlan) {
    self->link_to(executor);
    found->second.idle[plan].push_back(executor);
    return;
  }
  self->send_exit(executor, caf::exit_reason::user_shutdown);
}

// Adds `dev` to `all`: to the device's entry if it has one already (a device's lanes report
// apart), as TensorFlow has one DeviceStepStats per device.
void MergeDeviceStats(tensorflow::DeviceStepStats dev, tensorflow::StepStats* all) {
  for (tensorflow::DeviceStepStats& have : *all->mutable_dev_stats()) {
    if (have.device() != dev.device()) continue;
    for (auto& node : *dev.mutable_node_stats()) *have.add_node_stats() = std::move(node);
    for (const auto& [id, name] : dev.thread_names()) (*have.mutable_thread_names())[id] = name;
    return;
  }
  *all->add_dev_stats() = std::move(dev);
}

void OnExecutorDone(WorkerSelf* self, int64_t step_id, RunGraphResponse reply) {
  auto& st = self->state;
  auto found = st.running.find(step_id);
  if (found == st.running.end()) return;
  RunningStep& step = *found->second;
  RunGraphResponse& merged = step.response;
  if (!reply.status.ok() && merged.status.ok()) {
    // The first error is the cause; stop everything else in the step.
    merged.status = reply.status;
    Status abort = errors::Aborted("step ", step_id, " was aborted because another device failed: ",
                                   reply.status.message());
    for (const caf::actor& e : step.executors) self->send(e, abort_atom::value, abort);
    step.uses_rendezvous = true;
    self->send(st.rendezvous_actor, abort_atom::value, step_id, abort);
  }
  if (reply.status.ok()) {
    MoveProducedRetvals(&reply, &merged.retvals, &merged.produced);
    if (reply.step_stats) {
      if (!merged.step_stats) merged.step_stats = std::make_shared<tensorflow::StepStats>();
      for (auto& dev : *reply.step_stats->mutable_dev_stats()) MergeDeviceStats(std::move(dev), merged.step_stats.get());
    }
  }
  if (--step.remaining > 0) return;
  if (merged.status.ok() && std::chrono::steady_clock::now() > step.deadline) {
    // Done, but late: a deadline is a promise to the caller, as TensorFlow's is.
    merged.status = StepDeadlineExceeded(step_id, step.timeout_ms);
  }
  if (!merged.status.ok()) {
    merged.retvals.clear();
    merged.produced.clear();
    merged.step_stats.reset();
  }
  step.promise.deliver(std::move(merged));
  if (!step.master_cleans_up) {
    if (step.uses_rendezvous) self->send(st.rendezvous_actor, cleanup_step_atom::value, step_id);
  } else if (!step.owner.empty()) {
    st.awaiting_cleanup[step.owner].insert(step_id);
  }
  st.running.erase(found);
}

caf::behavior worker_actor(WorkerSelf* self, WorkerOptions options) {
  auto& st = self->state;
  st.options = options;
  st.rendezvous_actor = SpawnRendezvous(self->system(), options.task_name);
  self->link_to(st.rendezvous_actor);
  st.incarnation = (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
  st.collective_leader = SpawnCollectiveLeader(self->system(), options.task_name);
  self->link_to(st.collective_leader);
  std::shared_ptr<DataPlaneClient> fetcher;
  if (options.serve_data_plane) {
    caf::actor rdv = st.rendezvous_actor;
    caf::actor leader = st.collective_leader;
    // Another task's fetch is a Recv on this task's rendezvous, answered when the _Send
    // here has run (or with the step's abort status); a collective member's join goes to
    // the collective leader (a fetch of a group formation this task has left fails in
    // the rendezvous, which remembers it).
    auto provider = [rdv, leader](int64_t step, const std::string& key, DataPlaneServer::Reply reply) {
      if (IsCollectiveJoinKey(key)) return ServeCollectiveJoin(leader, key, std::move(reply));
      caf::anon_send(rdv, rdv_recv_atom::value, step, key,
                     RecvCallback{[reply](const Status& s, const Tensor& v, bool dead) { reply(s, v, dead); }});
    };
    DataPlaneServer::Options where;
    where.host = options.data_plane_host;
    where.credentials = options.credentials;
    auto server = DataPlaneServer::Start(provider, where);
    if (server.ok()) {
      st.data_plane = std::move(server).value();
      const std::string& host =
          options.data_plane_advertise.empty() ? options.data_plane_host : options.data_plane_advertise;
      st.data_plane_address = StrCat(host, ":", st.data_plane->port());
      fetcher = std::make_shared<DataPlaneClient>(options.credentials);
    } else {
      // The worker still runs single-task steps; the master sees no data plane and fails
      // any step that needs one, naming this task.
      std::fprintf(stderr, "worker %s: no data plane: %s\n", options.task_name.c_str(),
                   server.status().ToString().c_str());
    }
  }
  st.rendezvous = std::make_shared<ClusterRendezvous>(st.rendezvous_actor, options.task_name, std::move(fetcher),
                                                      options.default_step_timeout_ms);
  CollectiveOptions collective;
  collective.task = options.task_name;
  collective.leader_task = options.collective_leader;
  collective.default_timeout_ms = options.default_step_timeout_ms;
  collective.incarnation = st.incarnation;
  st.collectives = std::make_shared<CollectiveService>(self->system(), collective, st.rendezvous, st.collective_leader);
  std::vector<std::shared_ptr<Device>> devices = options.devices;
  if (devices.empty()) {
    std::string gpu_notes;
    devices = MakeLocalDevices(options.task_name, options.cpu_threads, options.num_cpu_devices, options.gpu, &gpu_notes);
    if (!gpu_notes.empty()) std::fprintf(stderr, "worker %s: %s", options.task_name.c_str(), gpu_notes.c_str());
  }
  for (auto& device : devices) {
    st.device_actors.push_back(SpawnDeviceActor(self->system(), device));
    self->link_to(st.device_actors.back());  // the devices go down with their worker
    // Queues made by this worker's steps are actors of its own, going down with it.
    device->set_queue_maker(MakeQueueMaker(self->system(), self->address(), st.queues));
    st.devices.push_back(std::move(device));
  }
  return {
      [=](register_graph_atom, const RegisterGraphRequest& request) {
        auto& st = self->state;
        RegisterGraphResponse response;
        if (!request.graph) {
          response.status = errors::InvalidArgument("RegisterGraph needs a graph");
          return response;
        }
        auto plans = BuildPlans(st, *request.graph, SessionKernels(st, request));
        if (!plans.ok()) {
          response.status = plans.status();
          return response;
        }
        // Random, as TensorFlow's: a master that outlived this worker's restart must not find
        // another graph under its old handle.
        response.graph_handle = StrCat("graph_", RandomHandle());
        RegisteredGraph& registered = st.graphs[response.graph_handle] = std::move(plans).value();
        registered.owner = request.owner;
        registered.idle.resize(registered.plans.size());
        if (request.freeze_variables) {
          registered.source = request.graph;
          registered.freezable = FreezableVariables(*request.graph, st.devices);
        }
        return response;
      },
      [=](run_graph_atom, RunGraphRequest& request) -> caf::result<RunGraphResponse> {
        auto& st = self->state;
        auto it = st.graphs.find(request.graph_handle);
        if (it == st.graphs.end()) {
          // TensorFlow's words (graph_mgr.cc); the flag says it without the words.
          RunGraphResponse unknown = RunGraphFailure(errors::Aborted(
              "Graph handle is not found: ", request.graph_handle, ". Possibly, this worker (", st.options.task_name,
              ") just restarted."));
          unknown.graph_not_found = true;
          return unknown;
        }
        RegisteredGraph& graph = it->second;
        if (Status frozen = UpdateFreezing(self, graph); !frozen.ok()) return RunGraphFailure(frozen);
        const uint64_t generation = graph.generation;
        if (!request.partial_run && static_cast<int>(request.args.size()) < graph.num_args) {
          return RunGraphFailure(errors::InvalidArgument("graph '", request.graph_handle, "' takes ", graph.num_args,
                                                          " feeds but the step gave ", request.args.size()));
        }
        const int64_t step_id = request.step_id;
        if (st.running.count(step_id)) {
          return RunGraphFailure(errors::AlreadyExists("step ", step_id, " is already running on worker ",
                                                        st.options.task_name));
        }
        auto step = std::make_shared<RunningStep>();
        step->master_cleans_up = request.master_cleans_up;
        step->uses_rendezvous = graph.uses_rendezvous;
        step->owner = request.owner;
        step->promise = self->make_response_promise<RunGraphResponse>();
        step->remaining = static_cast<int>(graph.plans.size());
        st.running[step_id] = step;
        std::shared_ptr<const WatchSpec> watch;
        if (st.watch && st.watch_steps > 0) {
          watch = st.watch;
          if (--st.watch_steps == 0) st.watch.reset();
        }
        // Each partition's executor: an idle one of an earlier step, or a new one. Every
        // executor gets every feed (a Tensor copy shares its buffer). The executors of a
        // graph with lanes have threads of their own (below), except in a step run with
        // inter_op_thread_pool -1 (on_caller_thread): that step's are made for it, as
        // ordinary actors, and not kept.
        // A partial run's executors are its own (they wait for feeds and report fetches).
        const bool pooled = !(graph.has_lanes && request.on_caller_thread) && !request.partial_run;
        std::vector<std::vector<Tensor>> later_args(graph.plans.size());
        std::vector<bool> reused(graph.plans.size(), false);
        for (size_t p = 0; p < graph.plans.size(); ++p) {
          std::vector<Tensor> args = p + 1 == graph.plans.size() ? std::move(request.args) : request.args;
          auto& pool = graph.idle[p];
          if (pooled && !pool.empty()) {
            caf::actor executor = std::move(pool.back());
            pool.pop_back();
            self->unlink_from(executor);
            step->executors.push_back(std::move(executor));
            later_args[p] = std::move(args);
            reused[p] = true;
            continue;
          }
          ExecutorArgs spawned;
          spawned.plan = graph.plans[p];
          spawned.device = st.device_actors[graph.device_index[p]];
          spawned.step_id = step_id;
          spawned.args = std::move(args);
          spawned.collect_stats = request.collect_stats;
          spawned.device_owner = st.devices[graph.device_index[p]];
          spawned.watch = watch;
          spawned.on_caller_thread = request.on_caller_thread;
          // The executors of a graph with lanes have threads of their own (unless the step
          // asked for no inter-op threads): on CAF's shared threads a lane queued behind
          // another one's loop, and so did the rendezvous actor that carries their values
          // (bidirectional GRU, batch 32: 11.6 ms a step, 6.9 on threads of their own).
          // Kept idle for later steps, they keep their threads.
          spawned.own_thread = graph.has_lanes && !request.on_caller_thread;
          spawned.partial_run = request.partial_run;
          spawned.on_retval = request.on_retval;
          step->executors.push_back(SpawnExecutor(self->system(), std::move(spawned)));
        }
        if (graph.plans.empty()) {
          auto promise = step->promise;
          st.running.erase(step_id);
          promise.deliver(RunGraphResponse{});
          return promise;
        }
        step->timeout_ms = StepTimeoutMs(request.timeout_ms, st.options.default_step_timeout_ms);
        step->deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(step->timeout_ms);
        ScheduleTick(self);
        const std::string handle = request.graph_handle;
        for (size_t p = 0; p < step->executors.size(); ++p) {
          const caf::actor executor = step->executors[p];
          // Local: the executor answers (or CAF does, if it stops); the deadline is the tick's.
          auto sent = reused[p] ? self->request(executor, caf::infinite, start_atom::value,
                                                ExecutorStep{step_id, std::move(later_args[p]), request.collect_stats,
                                                             watch, request.on_caller_thread})
                                : self->request(executor, caf::infinite, start_atom::value);
          sent.then(
              [=](RunGraphResponse& reply) {
                ReturnExecutor(self, handle, p, executor, reply.executor_idle, pooled, generation);
                OnExecutorDone(self, step_id, std::move(reply));
              },
              [=](caf::error& error) {
                // Stop this executor: it may still be waiting on kernels or Recvs.
                self->send(executor, abort_atom::value, errors::Cancelled("step ", step_id, " was abandoned"));
                OnExecutorDone(self, step_id, RunGraphFailure(FromCafError(error, StrCat("step ", step_id))));
              });
        }
        return step->promise;
      },
      [=](heartbeat_atom) {
        auto& st = self->state;
        WorkerInfo info;
        info.task = st.options.task_name;
        info.incarnation = st.incarnation;
        info.data_plane = st.data_plane_address;
        for (const auto& d : st.devices) info.devices.push_back(d->attributes());
        for (const auto& [id, step] : st.running) info.running_steps.push_back(id);
        return info;
      },
      [=](set_peers_atom, PeerDirectory& peers) {
        self->state.rendezvous->SetPeers(std::move(peers.data_plane_by_task));
        return Status::OK();
      },
      [=](peer_down_atom, const std::string& task, uint64_t incarnation, const Status& why) {
        self->state.collectives->PeerDown(task, incarnation, why);
      },
      [=](partial_feed_atom, const PartialRunValue& feed) {
        // Each executor of the step takes the feeds of its own _Args.
        auto it = self->state.running.find(feed.step_id);
        if (it == self->state.running.end()) return;  // over: its reply says why
        for (const caf::actor& e : it->second->executors) self->send(e, partial_feed_atom::value, feed);
      },
      [=](abort_step_atom, int64_t step_id, const Status& why) {
        auto& st = self->state;
        self->send(st.rendezvous_actor, abort_atom::value, step_id, why);
        auto it = st.running.find(step_id);
        if (it == st.running.end()) return;
        it->second->uses_rendezvous = true;
        for (const caf::actor& e : it->second->executors) self->send(e, abort_atom::value, why);
      },
      [=](master_gone_atom, const std::string& owner, const Status& why) {
        auto& st = self->state;
        if (owner.empty()) return;  // this process's own master never goes alone
        AbandonStepsOf(self, owner, why);
        for (auto it = st.graphs.begin(); it != st.graphs.end();) {
          if (it->second.owner == owner) StopIdleExecutors(self, it->second);
          it = it->second.owner == owner ? st.graphs.erase(it) : std::next(it);
        }
        st.leases.erase(owner);
      },
      [=](master_lease_atom, const std::string& owner, int64_t lease_ms) {
        auto& st = self->state;
        WorkerState::Lease& lease = st.leases[owner];
        lease.until = std::chrono::steady_clock::now() + std::chrono::milliseconds(lease_ms);
        lease.ms = lease_ms;
        lease.expired = false;
        ScheduleTick(self);
      },
      [=](worker_tick_atom) {
        auto& st = self->state;
        st.tick_scheduled = false;
        const auto now = std::chrono::steady_clock::now();
        for (auto& [step_id, step] : st.running) {
          if (step->expired || now < step->deadline) continue;
          step->expired = true;
          const Status why = StepDeadlineExceeded(step_id, step->timeout_ms);
          for (const caf::actor& e : step->executors) self->send(e, abort_atom::value, why);
        }
        bool lapsed = false, any_live_lease = false;
        for (const auto& [owner, lease] : st.leases) {
          if (lease.expired) continue;
          any_live_lease = true;
          lapsed |= now >= lease.until;
        }
        if (lapsed) self->send(self, lease_confirm_atom::value);
        if (!st.running.empty() || any_live_lease) ScheduleTick(self);
      },
      [=](lease_confirm_atom) {
        auto& st = self->state;
        const auto now = std::chrono::steady_clock::now();
        for (auto& [owner, lease] : st.leases) {
          if (lease.expired || now < lease.until) continue;
          lease.expired = true;
          // Its graphs stay: a master that thaws runs them again (a dead one takes them
          // with it, master_gone_atom).
          AbandonStepsOf(self, owner,
                         errors::Aborted("the master that ran this step stopped renewing its lease (no heartbeat for ",
                                         lease.ms, " ms): it is frozen or cut off from this worker"));
        }
      },
      [=](cleanup_graph_atom, int64_t step_id) {
        for (auto it = self->state.awaiting_cleanup.begin(); it != self->state.awaiting_cleanup.end();) {
          it->second.erase(step_id);
          it = it->second.empty() ? self->state.awaiting_cleanup.erase(it) : std::next(it);
        }
        self->send(self->state.rendezvous_actor, cleanup_step_atom::value, step_id);
      },
      [=](reset_atom, const std::vector<std::string>& containers) {
        // As TensorFlow's Reset: no names means the default container. A container that
        // does not exist is already reset.
        for (const auto& device : self->state.devices) {
          ResourceMgr* rm = device->resource_manager();
          if (containers.empty()) rm->Cleanup("").IgnoreError();
          for (const std::string& c : containers) rm->Cleanup(c).IgnoreError();
        }
        return Status::OK();
      },
      [=](deregister_graph_atom, const std::string& handle) {
        auto found = self->state.graphs.find(handle);
        if (found == self->state.graphs.end()) return errors::NotFound("graph handle '", handle, "' is not registered");
        StopIdleExecutors(self, found->second);
        self->state.graphs.erase(found);
        return Status::OK();
      },
      [=](watch_atom, const std::string& bytes) -> Status {
        auto& st = self->state;
        observe::WatchRequest request;
        if (!request.ParseFromString(bytes)) return errors::InvalidArgument("an unreadable watch request");
        if (request.steps() < 1 || request.steps() > 1000) {
          return errors::InvalidArgument("watch: steps must be 1 to 1000, not ", request.steps());
        }
        TA_ASSIGN_OR_RETURN(WatchSpec spec, WatchSpec::FromRequest(request, st.watched));
        st.watch = std::make_shared<const WatchSpec>(std::move(spec));
        st.watch_steps = request.steps();
        return Status::OK();
      },
      [=](observe_atom) -> caf::result<std::string> {
        auto& st = self->state;
        observe::NodeSnapshot base;
        base.set_task(st.options.task_name);
        st.watched->CopyTo(&base);
        base.set_incarnation(st.incarnation);
        observe::Actor* actor = base.add_actors();
        actor->set_name("worker " + st.options.task_name);
        actor->set_kind("worker");
        actor->set_mailbox(static_cast<int64_t>(self->mailbox().size()));
        actor->set_doing(StrCat(st.graphs.size(), " graphs registered, ", st.running.size(), " steps running"));
        std::vector<caf::actor> asked = st.device_actors;
        std::vector<std::string> names;
        for (const auto& d : st.devices) names.push_back("device " + d->name());
        asked.push_back(st.rendezvous_actor);
        names.push_back("the rendezvous");
        for (caf::actor& q : st.queues->Live()) {
          asked.push_back(std::move(q));
          names.push_back("a queue");
        }
        for (const auto& [id, step] : st.running) {
          for (const caf::actor& e : step->executors) {
            asked.push_back(e);
            names.push_back(StrCat("an executor of step ", id));
          }
        }
        auto promise = self->make_response_promise<std::string>();
        GatherSnapshot(self, asked, names, std::move(base), std::chrono::seconds(2),
                       [promise](observe::NodeSnapshot all) mutable { promise.deliver(all.SerializeAsString()); });
        return promise;
      },
      [=](inspect_atom) -> caf::result<std::string> {
        auto& st = self->state;
        std::string steps;
        for (const auto& [id, step] : st.running) {
          steps += StrCat(steps.empty() ? "" : ", ", id, " (", step->remaining, " of ", step->executors.size(),
                          " devices busy)");
        }
        std::string out = StrCat("worker ", st.options.task_name, ": ", st.devices.size(), " devices, ",
                                 st.graphs.size(), " graphs registered, steps running: [", steps, "]");
        for (const auto& device : st.devices) {
          out += StrCat("\n  device ", device->DebugString());
          std::string resources = device->resource_manager()->DebugString();
          if (!resources.empty()) out += StrCat("\n  resources on ", device->name(), ":\n  ", resources);
        }
        // The rendezvous's part (which Recv waits for which Send) and each running
        // executor's (which nodes wait for how many inputs), gathered in that order.
        std::vector<caf::actor> asked = {st.rendezvous_actor};
        for (const auto& [id, step] : st.running) asked.insert(asked.end(), step->executors.begin(), step->executors.end());
        for (caf::actor& a : st.collectives->actors()) asked.push_back(std::move(a));
        auto parts = std::make_shared<std::vector<std::string>>(asked.size());
        auto remaining = std::make_shared<size_t>(asked.size());
        auto promise = self->make_response_promise<std::string>();
        for (size_t i = 0; i < asked.size(); ++i) {
          auto done = [=](std::string text) mutable {
            (*parts)[i] = std::move(text);
            if (--*remaining > 0) return;
            std::string all = out;
            for (const std::string& p : *parts) all += "\n" + p;
            promise.deliver(all);
          };
          self->request(asked[i], std::chrono::seconds(5), inspect_atom::value)
              .then([=](std::string& text) mutable { done(std::move(text)); },
                    [=](caf::error& e) mutable { done(FromCafError(e, "inspecting").ToString()); });
        }
        return promise;
      },
  };
}

}  // namespace

caf::actor SpawnWorker(caf::actor_system& system, const WorkerOptions& options) {
  return system.spawn(worker_actor, options);
}

}  // namespace tensoract
