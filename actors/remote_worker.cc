#include "actors/remote_worker.h"

#include <caf/all.hpp>

#include "actors/messages.h"
#include "actors/rpc.h"
#include "messages/tensoract_worker.pb.h"
#include "messages/worker.pb.h"

namespace tensoract {
namespace {

struct RemoteWorkerState {
  RemoteNode node;
  int64_t heartbeat_sequence = 0;
  int64_t master_lease_ms = 0;
  static inline const char* name = "tensoract.remote_worker";
};
using RemoteWorkerSelf = caf::stateful_actor<RemoteWorkerState>;

caf::behavior remote_worker_actor(RemoteWorkerSelf* self, RemoteAddress address, int64_t master_lease_ms) {
  self->state.node.Attach(self, std::move(address));
  self->state.master_lease_ms = master_lease_ms;
  return {
      [=](remote_node_tick_atom) { self->state.node.OnTick(); },
      [=](register_graph_atom, const RegisterGraphRequest& request) {
        tensorflow::RegisterGraphRequest proto;
        if (request.graph) *proto.mutable_graph_def() = *request.graph;
        proto.set_session_handle(request.session_handle);
        // TensorFlow's L0 means "run the graph as written"; frozen variables are an optimisation.
        if (!request.freeze_variables) {
          proto.mutable_graph_options()->mutable_optimizer_options()->set_opt_level(tensorflow::OptimizerOptions::L0);
        }
        return CallAndConvert<RegisterGraphResponse>(
            self, self->state.node, "RegisterGraph", ProtoBytes(proto), kRpcControlTimeoutMs,
            [](const Status& s, const std::string& bytes) {
              tensorflow::RegisterGraphResponse r;
              RegisterGraphResponse out;
              out.status = ParseResponse(s, bytes, &r, "RegisterGraph");
              out.graph_handle = r.graph_handle();
              return out;
            });
      },
      [=](run_graph_atom, const RunGraphRequest& request) -> caf::result<RunGraphResponse> {
        if (!request.args.empty()) {
          return RunGraphFailure(errors::InvalidArgument("a remote RunGraph cannot carry feeds (task ",
                                                          self->state.node.address().name, ")"));
        }
        tensorflow::RunGraphRequest proto;
        proto.set_graph_handle(request.graph_handle);
        proto.set_step_id(request.step_id);
        proto.mutable_exec_opts()->set_record_timeline(request.collect_stats);
        proto.set_store_errors_in_response_body(true);
        int64_t timeout = (request.timeout_ms > 0 ? request.timeout_ms : kRpcControlTimeoutMs) + kRpcStepSlackMs;
        return CallAndConvert<RunGraphResponse>(
            self, self->state.node, "RunGraph", ProtoBytes(proto), timeout,
            [](const Status& s, const std::string& bytes) {
              tensorflow::RunGraphResponse r;
              RunGraphResponse out;
              out.status = ParseResponse(s, bytes, &r, "RunGraph");
              tensoract::RunGraphResponseExtras extras;
              if (extras.ParseFromString(bytes)) out.graph_not_found = extras.graph_not_found();
              if (out.status.ok() && r.has_step_stats()) {
                out.step_stats = std::make_shared<tensorflow::StepStats>(std::move(*r.mutable_step_stats()));
              }
              return out;
            });
      },
      [=](deregister_graph_atom, const std::string& handle) {
        tensorflow::DeregisterGraphRequest proto;
        proto.set_graph_handle(handle);
        return CallAndConvert<Status>(self, self->state.node, "DeregisterGraph", ProtoBytes(proto),
                                      kRpcControlTimeoutMs, [](const Status& s, const std::string&) { return s; });
      },
      [=](heartbeat_atom) {
        tensoract::HeartbeatRequest proto;
        proto.set_sequence(++self->state.heartbeat_sequence);
        proto.set_lease_ms(self->state.master_lease_ms);
        return CallAndConvert<WorkerInfo>(
            self, self->state.node, "Heartbeat", ProtoBytes(proto), kRpcControlTimeoutMs,
            [](const Status& s, const std::string& bytes) {
              tensoract::HeartbeatResponse r;
              WorkerInfo info;
              info.status = ParseResponse(s, bytes, &r, "Heartbeat");
              info.task = r.task();
              info.incarnation = r.worker_incarnation();
              info.data_plane = r.data_plane_address();
              info.devices.assign(r.device_attributes().begin(), r.device_attributes().end());
              info.running_steps.assign(r.running_step_id().begin(), r.running_step_id().end());
              return info;
            });
      },
      [=](set_peers_atom, const PeerDirectory& peers) {
        tensoract::PeerDirectoryRequest proto;
        for (const auto& [task, address] : peers.data_plane_by_task) {
          (*proto.mutable_data_plane_by_task())[task] = address;
        }
        return CallAndConvert<Status>(self, self->state.node, "SetPeers", ProtoBytes(proto), kRpcControlTimeoutMs,
                                      [](const Status& s, const std::string&) { return s; });
      },
      [=](abort_step_atom, int64_t step_id, const Status& why) {
        tensoract::AbortStepRequest proto;
        proto.set_step_id(step_id);
        proto.set_code(static_cast<tensorflow::error::Code>(why.code()));
        proto.set_message(why.message());
        self->state.node.Tell("AbortStep", ProtoBytes(proto));
      },
      [=](cleanup_graph_atom, int64_t step_id) {
        tensorflow::CleanupGraphRequest proto;
        proto.set_step_id(step_id);
        self->state.node.Tell("CleanupGraph", ProtoBytes(proto));
      },
      [=](reset_atom, const std::vector<std::string>& containers) {
        tensorflow::CleanupAllRequest proto;
        for (const auto& c : containers) proto.add_container(c);
        return CallAndConvert<Status>(self, self->state.node, "CleanupAll", ProtoBytes(proto), kRpcControlTimeoutMs,
                                      [](const Status& s, const std::string&) { return s; });
      },
  };
}

}  // namespace

caf::actor SpawnRemoteWorker(caf::actor_system& system, RemoteAddress address, int64_t master_lease_ms) {
  return system.spawn(remote_worker_actor, std::move(address), master_lease_ms);
}

}  // namespace tensoract
