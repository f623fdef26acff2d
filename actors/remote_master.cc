#include "actors/remote_master.h"

#include <caf/all.hpp>

#include "actors/messages.h"
#include "actors/rpc.h"
#include "messages/master.pb.h"
#include "messages/tensoract_worker.pb.h"

namespace tensoract {
namespace {

struct RemoteMasterState {
  RemoteNode node;
  int64_t default_step_timeout_ms = 0;
  static inline const char* name = "tensoract.remote_master";
};
using RemoteMasterSelf = caf::stateful_actor<RemoteMasterState>;

RunStepResponse FromRunStep(const Status& s, const std::string& bytes, size_t num_fetches) {
  tensorflow::RunStepResponse r;
  RunStepResponse out;
  out.status = ParseResponse(s, bytes, &r, "RunStep");
  if (!out.status.ok()) return out;
  if (static_cast<size_t>(r.tensor_size()) != num_fetches) {
    out.status = errors::DataLoss("RunStep answered ", r.tensor_size(), " tensors for ", num_fetches, " fetches");
    return out;
  }
  for (const auto& named : r.tensor()) {
    auto t = Tensor::FromProto(named.tensor());
    if (!t.ok()) {
      out.status = errors::DataLoss("fetch '", named.name(), "' in the RunStep response: ", t.status().message());
      out.fetched.clear();
      return out;
    }
    out.fetched.push_back(std::move(t).value());
  }
  if (r.has_metadata()) {
    if (r.metadata().has_step_stats()) {
      out.step_stats = std::make_shared<tensorflow::StepStats>(r.metadata().step_stats());
    }
    for (const auto& g : r.metadata().partition_graphs()) {
      out.partition_graphs.push_back(std::make_shared<const tensorflow::GraphDef>(g));
    }
  }
  return out;
}

caf::behavior remote_master_actor(RemoteMasterSelf* self, RemoteAddress address, int64_t default_step_timeout_ms) {
  self->state.node.Attach(self, std::move(address));
  self->state.default_step_timeout_ms = default_step_timeout_ms;
  return {
      [=](remote_node_tick_atom) { self->state.node.OnTick(); },
      [=](create_session_atom, const CreateSessionRequest& request) {
        tensorflow::CreateSessionRequest proto;
        if (request.graph) *proto.mutable_graph_def() = *request.graph;
        return CallAndConvert<CreateSessionResponse>(
            self, self->state.node, "CreateSession", ProtoBytes(proto), kRpcControlTimeoutMs,
            [](const Status& s, const std::string& bytes) {
              tensorflow::CreateSessionResponse r;
              CreateSessionResponse out;
              out.status = ParseResponse(s, bytes, &r, "CreateSession");
              out.session_handle = r.session_handle();
              return out;
            });
      },
      [=](extend_session_atom, const ExtendSessionRequest& request) {
        tensorflow::ExtendSessionRequest proto;
        proto.set_session_handle(request.session_handle);
        if (request.graph) *proto.mutable_graph_def() = *request.graph;
        proto.set_current_graph_version(request.current_graph_version);
        return CallAndConvert<ExtendSessionResponse>(
            self, self->state.node, "ExtendSession", ProtoBytes(proto), kRpcControlTimeoutMs,
            [](const Status& s, const std::string& bytes) {
              tensorflow::ExtendSessionResponse r;
              ExtendSessionResponse out;
              out.status = ParseResponse(s, bytes, &r, "ExtendSession");
              out.new_graph_version = r.new_graph_version();
              return out;
            });
      },
      [=](run_step_atom, const RunStepRequest& request) {
        tensorflow::RunStepRequest proto;
        proto.set_session_handle(request.session_handle);
        for (const auto& [name, tensor] : request.feeds) {
          tensorflow::NamedTensorProto* feed = proto.add_feed();
          feed->set_name(name);
          tensor.AsProtoTensorContent(feed->mutable_tensor());
        }
        for (const auto& f : request.fetches) proto.add_fetch(f);
        for (const auto& t : request.targets) proto.add_target(t);
        proto.mutable_options()->set_timeout_in_ms(request.timeout_ms);
        if (request.collect_stats) proto.mutable_options()->set_trace_level(tensorflow::RunOptions::FULL_TRACE);
        proto.mutable_options()->set_output_partition_graphs(request.output_partition_graphs);
        proto.set_request_id(request.request_id);
        proto.set_partial_run_handle(request.partial_run_handle);
        int64_t timeout = StepTimeoutMs(request.timeout_ms, self->state.default_step_timeout_ms) + kRpcStepSlackMs;
        size_t num_fetches = request.fetches.size();
        return CallAndConvert<RunStepResponse>(self, self->state.node, "RunStep", ProtoBytes(proto), timeout,
            [num_fetches](const Status& s, const std::string& bytes) { return FromRunStep(s, bytes, num_fetches); });
      },
      [=](make_callable_atom, const MakeCallableRequest& request) {
        tensorflow::MakeCallableRequest proto;
        proto.set_session_handle(request.session_handle);
        tensorflow::CallableOptions* options = proto.mutable_options();
        for (const auto& f : request.feeds) options->add_feed(f);
        for (const auto& f : request.fetches) options->add_fetch(f);
        for (const auto& t : request.targets) options->add_target(t);
        options->mutable_run_options()->set_timeout_in_ms(request.timeout_ms);
        if (request.collect_stats) options->mutable_run_options()->set_trace_level(tensorflow::RunOptions::FULL_TRACE);
        return CallAndConvert<MakeCallableResponse>(
            self, self->state.node, "MakeCallable", ProtoBytes(proto), kRpcControlTimeoutMs,
            [](const Status& s, const std::string& bytes) {
              tensorflow::MakeCallableResponse r;
              MakeCallableResponse out;
              out.status = ParseResponse(s, bytes, &r, "MakeCallable");
              out.handle = r.handle();
              return out;
            });
      },
      [=](partial_setup_atom, const PartialRunSetupRequest& request) {
        tensorflow::PartialRunSetupRequest proto;
        proto.set_session_handle(request.session_handle);
        for (const auto& f : request.feeds) proto.add_feed(f);
        for (const auto& f : request.fetches) proto.add_fetch(f);
        for (const auto& t : request.targets) proto.add_target(t);
        return CallAndConvert<PartialRunSetupResponse>(
            self, self->state.node, "PartialRunSetup", ProtoBytes(proto), kRpcControlTimeoutMs,
            [](const Status& s, const std::string& bytes) {
              tensorflow::PartialRunSetupResponse r;
              PartialRunSetupResponse out;
              out.status = ParseResponse(s, bytes, &r, "PartialRunSetup");
              out.partial_run_handle = r.partial_run_handle();
              return out;
            });
      },
      [=](release_callable_atom, const std::string& session, int64_t handle) {
        tensorflow::ReleaseCallableRequest proto;
        proto.set_session_handle(session);
        proto.set_handle(handle);
        return CallAndConvert<Status>(self, self->state.node, "ReleaseCallable", ProtoBytes(proto),
                                      kRpcControlTimeoutMs, [](const Status& s, const std::string&) { return s; });
      },
      [=](list_devices_atom) {
        return CallAndConvert<ListDevicesResponse>(
            self, self->state.node, "ListDevices", ProtoBytes(tensorflow::ListDevicesRequest()), kRpcControlTimeoutMs,
            [](const Status& s, const std::string& bytes) {
              tensorflow::ListDevicesResponse r;
              ListDevicesResponse out;
              out.status = ParseResponse(s, bytes, &r, "ListDevices");
              out.local.assign(r.local_device().begin(), r.local_device().end());
              out.remote.assign(r.remote_device().begin(), r.remote_device().end());
              return out;
            });
      },
      [=](cancel_step_atom, const std::string& session, int64_t request_id) {
        tensoract::CancelStepRequest proto;
        proto.set_session_handle(session);
        proto.set_request_id(request_id);
        return CallAndConvert<Status>(self, self->state.node, "CancelStep", ProtoBytes(proto), kRpcControlTimeoutMs,
                                      [](const Status& s, const std::string&) { return s; });
      },
      [=](close_session_atom, const std::string& handle) {
        tensorflow::CloseSessionRequest proto;
        proto.set_session_handle(handle);
        return CallAndConvert<Status>(self, self->state.node, "CloseSession", ProtoBytes(proto), kRpcControlTimeoutMs,
                                      [](const Status& s, const std::string&) { return s; });
      },
      [=](inspect_atom) {
        auto promise = self->make_response_promise<std::string>();
        self->state.node.Inspect(kRpcControlTimeoutMs, [promise](const Status& s, std::string text) mutable {
          promise.deliver(s.ok() ? text : s.ToString());
        });
        return promise;
      },
      [=](reset_atom, const std::vector<std::string>& containers) {
        tensorflow::ResetRequest proto;
        for (const auto& c : containers) proto.add_container(c);
        return CallAndConvert<Status>(self, self->state.node, "Reset", ProtoBytes(proto), kRpcControlTimeoutMs,
                                      [](const Status& s, const std::string&) { return s; });
      },
  };
}

}  // namespace

caf::actor SpawnRemoteMaster(caf::actor_system& system, RemoteAddress address, int64_t default_step_timeout_ms) {
  return system.spawn(remote_master_actor, std::move(address), default_step_timeout_ms);
}

}  // namespace tensoract
