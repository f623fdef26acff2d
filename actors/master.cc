#include "actors/master.h"

#include <chrono>
#include <map>

#include <caf/all.hpp>

#include "actors/messages.h"
#include "graph/cost_model.h"
#include "graph/partition.h"
#include "graph/placer.h"
#include "graph/subgraph.h"
#include "kernels/constant_evaluator.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

struct CachedCall {
  std::string graph_handle;
  CallSignature signature;
  std::shared_ptr<const tensorflow::GraphDef> graph;  // as registered: every device's nodes
  // One per device (RunMetadata.partition_graphs).
  std::vector<std::shared_ptr<const tensorflow::GraphDef>> partitions;
};

struct SessionState {
  std::shared_ptr<const tensorflow::GraphDef> graph;
  int64_t graph_version = 0;
  std::map<std::string, CachedCall> calls;  // by signature key
};

struct MasterState {
  MasterOptions options;
  caf::actor worker;
  std::vector<tensorflow::DeviceAttributes> devices;  // the worker's, asked for once
  CostModel cost_model;  // static estimates, refined by every step that collects statistics
  std::map<std::string, SessionState> sessions;
  int64_t next_session = 0;
  int64_t next_step = 1;
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

// Builds what one call signature runs: the session's graph rewritten for its feeds and
// fetches, pruned, optimised, placed on `devices` and partitioned by device.
Status BuildCallGraph(const tensorflow::GraphDef& session_graph, const MasterState& st, CachedCall* call) {
  Graph graph;
  TA_RETURN_IF_ERROR(ImportGraphDef(session_graph, &graph));
  TA_RETURN_IF_ERROR(RewriteForCall(&graph, &call->signature));
  PruneForTargets(&graph, call->signature.targets);
  TA_RETURN_IF_ERROR(OptimizeGraph(st.options.optimizer, CpuConstantEvaluator(), &graph));
  PlacerOptions placer;
  placer.allow_soft_placement = st.options.allow_soft_placement;
  placer.cost_model = &st.cost_model;
  TA_RETURN_IF_ERROR(PlaceGraph(&graph, st.devices,
                                [](const Node& n, const std::string& type) { return KernelExists(n.def(), type); },
                                placer));
  PartitionOptions partition;
  partition.lossy_float_transfers = st.options.enable_bfloat16_sendrecv;
  partition.schedule_recvs = st.options.enable_recv_scheduling;
  const CostModel* cost = &st.cost_model;
  partition.node_cost = [cost](const Node& n) { return cost->ComputeMicros(n, DEVICE_CPU); };
  std::map<std::string, tensorflow::GraphDef> parts;
  TA_RETURN_IF_ERROR(Partition(graph, partition, &parts));
  auto all = std::make_shared<tensorflow::GraphDef>();
  *all->mutable_versions() = graph.versions();
  for (auto& [device, part] : parts) {
    for (const NodeDef& node : part.node()) *all->add_node() = node;
    if (!part.has_versions()) *part.mutable_versions() = graph.versions();
    call->partitions.push_back(std::make_shared<const tensorflow::GraphDef>(std::move(part)));
  }
  call->graph = std::move(all);
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

void RunCall(Self* self, const CachedCall& call, RunStepRequest request,
             caf::typed_response_promise<RunStepResponse> promise) {
  Status feeds_ok = CheckFeeds(request, call.signature);
  if (!feeds_ok.ok()) {
    promise.deliver(RunStepResponse{feeds_ok, {}, nullptr, {}});
    return;
  }
  auto& st = self->state;
  RunGraphRequest run;
  run.graph_handle = call.graph_handle;
  run.step_id = st.next_step++;
  run.timeout_ms = request.timeout_ms > 0 ? request.timeout_ms : st.options.default_step_timeout_ms;
  run.collect_stats = request.collect_stats;
  for (auto& feed : request.feeds) run.args.push_back(std::move(feed.second));
  const int64_t step_id = run.step_id;
  std::vector<std::shared_ptr<const tensorflow::GraphDef>> partition_graphs;
  if (request.output_partition_graphs) partition_graphs = call.partitions;
  // The worker enforces the step's deadline; this one only guards against a lost worker.
  auto deadline = std::chrono::milliseconds(run.timeout_ms + 5000);
  self->request(st.worker, deadline, run_graph_atom::value, std::move(run))
      .then(
          [=](RunGraphResponse& response) mutable {
            RunStepResponse reply{std::move(response.status), std::move(response.retvals),
                                  std::move(response.step_stats), std::move(partition_graphs)};
            // Measured times make the next placements better (whitepaper section 3.2.1).
            if (reply.step_stats) self->state.cost_model.RecordStepStats(*reply.step_stats);
            promise.deliver(std::move(reply));
          },
          [=](caf::error& error) mutable {
            promise.deliver(RunStepResponse{FromCafError(error, StrCat("RunGraph of step ", step_id)), {}, nullptr, {}});
          });
}

// The first step of a signature: builds its call graph, registers it with the worker,
// caches the handle and runs the step.
void StartNewCall(Self* self, const std::string& key, RunStepRequest request,
                  caf::typed_response_promise<RunStepResponse> promise) {
  auto& st = self->state;
  const std::string session_handle = request.session_handle;
  auto session = st.sessions.find(session_handle);
  if (session == st.sessions.end()) {
    promise.deliver(RunStepResponse{errors::FailedPrecondition("session '", session_handle,
                                                               "' does not exist or was closed"), {}, nullptr, {}});
    return;
  }
  CachedCall call;
  for (const auto& f : request.feeds) call.signature.feeds.push_back(f.first);
  call.signature.fetches = request.fetches;
  call.signature.targets = request.targets;
  Status built = BuildCallGraph(*session->second.graph, st, &call);
  if (!built.ok()) {
    promise.deliver(RunStepResponse{built, {}, nullptr, {}});
    return;
  }
  self->request(st.worker, std::chrono::milliseconds(st.options.register_timeout_ms), register_graph_atom::value,
                RegisterGraphRequest{call.graph})
      .then(
          [=](RegisterGraphResponse& response) mutable {
            if (!response.status.ok()) {
              promise.deliver(RunStepResponse{response.status, {}, nullptr, {}});
              return;
            }
            auto s = self->state.sessions.find(session_handle);
            if (s == self->state.sessions.end()) {
              self->send(self->state.worker, deregister_graph_atom::value, response.graph_handle);
              promise.deliver(RunStepResponse{
                  errors::Cancelled("session '", session_handle, "' was closed while the step started"), {}, nullptr, {}});
              return;
            }
            call.graph_handle = response.graph_handle;
            // Two first steps of one signature may race; the first handle wins, the
            // other graph is dropped.
            auto [it, inserted] = s->second.calls.emplace(key, call);
            if (!inserted) self->send(self->state.worker, deregister_graph_atom::value, response.graph_handle);
            RunCall(self, it->second, std::move(request), promise);
          },
          [=](caf::error& error) mutable {
            promise.deliver(RunStepResponse{FromCafError(error, "RegisterGraph"), {}, nullptr, {}});
          });
}

caf::behavior master_actor(Self* self, caf::actor worker, MasterOptions options) {
  self->state.worker = std::move(worker);
  self->state.options = options;
  return {
      [=](create_session_atom, const CreateSessionRequest& request) {
        CreateSessionResponse response;
        // Validate now, so a bad graph fails at creation as in TensorFlow, not at first Run.
        Graph graph;
        response.status = request.graph ? ImportGraphDef(*request.graph, &graph)
                                        : errors::InvalidArgument("CreateSession needs a graph");
        if (!response.status.ok()) return response;
        auto& st = self->state;
        response.session_handle = StrCat("session_", st.next_session++);
        st.sessions[response.session_handle].graph = request.graph;
        return response;
      },
      [=](run_step_atom, RunStepRequest& request) -> caf::result<RunStepResponse> {
        auto& st = self->state;
        auto session = st.sessions.find(request.session_handle);
        if (session == st.sessions.end()) {
          return RunStepResponse{errors::FailedPrecondition("session '", request.session_handle,
                                                            "' does not exist or was closed"), {}, nullptr, {}};
        }
        // A promise takes over the reply: make it only on the paths that answer through it,
        // never before an early `return RunStepResponse{...}` (that reply would be lost).
        const std::string key = SignatureKey(request);
        if (auto hit = session->second.calls.find(key); hit != session->second.calls.end()) {
          auto promise = self->make_response_promise<RunStepResponse>();
          RunCall(self, hit->second, std::move(request), promise);
          return promise;
        }
        auto promise = self->make_response_promise<RunStepResponse>();
        if (!st.devices.empty()) {
          StartNewCall(self, key, std::move(request), promise);
          return promise;
        }
        // The first step asks the worker for its devices; placement needs them.
        self->request(st.worker, std::chrono::milliseconds(st.options.register_timeout_ms), get_devices_atom::value)
            .then(
                [=](std::vector<tensorflow::DeviceAttributes>& devices) mutable {
                  if (self->state.devices.empty()) self->state.devices = std::move(devices);
                  StartNewCall(self, key, std::move(request), promise);
                },
                [=](caf::error& error) mutable {
                  promise.deliver(RunStepResponse{FromCafError(error, "asking the worker for its devices"), {}, nullptr, {}});
                });
        return promise;
      },
      [=](extend_session_atom, const ExtendSessionRequest& request) {
        auto& st = self->state;
        ExtendSessionResponse response;
        auto it = st.sessions.find(request.session_handle);
        if (it == st.sessions.end()) {
          response.status = errors::FailedPrecondition("session '", request.session_handle,
                                                       "' does not exist or was closed");
          return response;
        }
        SessionState& session = it->second;
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
        for (const auto& [handle, session] : st.sessions) {
          for (const auto& [key, call] : session.calls) {
            self->send(st.worker, deregister_graph_atom::value, call.graph_handle);
          }
        }
        st.sessions.clear();
        auto promise = self->make_response_promise<Status>();
        self->request(st.worker, std::chrono::milliseconds(st.options.register_timeout_ms), reset_atom::value,
                      containers)
            .then([=](Status& s) mutable { promise.deliver(s); },
                  [=](caf::error& e) mutable { promise.deliver(FromCafError(e, "Reset on the worker")); });
        return promise;
      },
      [=](close_session_atom, const std::string& handle) {
        auto& st = self->state;
        auto it = st.sessions.find(handle);
        if (it == st.sessions.end()) return errors::NotFound("session '", handle, "' does not exist");
        for (const auto& [key, call] : it->second.calls) {
          self->send(st.worker, deregister_graph_atom::value, call.graph_handle);
        }
        st.sessions.erase(it);
        return Status::OK();
      },
      [=](inspect_atom) -> std::string {
        auto& st = self->state;
        std::string out = StrCat("master: ", st.sessions.size(), " sessions, next step id ", st.next_step);
        for (const auto& [handle, s] : st.sessions) {
          out += StrCat("\n  ", handle, ": ", s.graph->node_size(), " nodes, ", s.calls.size(), " cached signatures");
        }
        return out;
      },
      // Replies to the deregistrations sent above.
      [=](const Status&) {},
  };
}

}  // namespace

caf::actor SpawnMaster(caf::actor_system& system, caf::actor worker, const MasterOptions& options) {
  return system.spawn(master_actor, std::move(worker), options);
}

}  // namespace tensoract
