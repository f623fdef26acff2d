#include "actors/rpc_requests.h"

#include <functional>
#include <map>
#include <utility>

#include "actors/rpc.h"
#include "messages/master.pb.h"
#include "messages/tensoract_worker.pb.h"
#include "messages/worker.pb.h"

namespace tensoract {
namespace rpc {
namespace {

template <class Proto>
Status Parse(const std::string& method, const std::string& bytes, Proto* proto) {
  if (!proto->ParseFromString(bytes)) return errors::InvalidArgument("cannot parse the ", method, " request");
  return Status::OK();
}

std::shared_ptr<const tensorflow::GraphDef> TakeGraph(tensorflow::GraphDef* graph) {
  return std::make_shared<const tensorflow::GraphDef>(std::move(*graph));
}

}  // namespace

StatusOr<CreateSessionRequest> DecodeCreateSession(const std::string& bytes, const std::string& owner) {
  tensorflow::CreateSessionRequest req;
  TA_RETURN_IF_ERROR(Parse("CreateSession", bytes, &req));
  return CreateSessionRequest{TakeGraph(req.mutable_graph_def()), owner};
}

StatusOr<ExtendSessionRequest> DecodeExtendSession(const std::string& bytes) {
  tensorflow::ExtendSessionRequest req;
  TA_RETURN_IF_ERROR(Parse("ExtendSession", bytes, &req));
  return ExtendSessionRequest{req.session_handle(), TakeGraph(req.mutable_graph_def()), req.current_graph_version()};
}

StatusOr<RunStepRequest> DecodeRunStep(const std::string& bytes) {
  tensorflow::RunStepRequest req;
  TA_RETURN_IF_ERROR(Parse("RunStep", bytes, &req));
  RunStepRequest local;
  local.session_handle = req.session_handle();
  ExpansionBudget budget;
  for (const auto& feed : req.feed()) {
    TA_RETURN_IF_ERROR(budget.Charge(feed.tensor(), StrCat("RunStep feed '", feed.name(), "'")));
    auto t = Tensor::FromProto(feed.tensor());
    if (!t.ok()) return errors::InvalidArgument("RunStep feed '", feed.name(), "': ", t.status().message());
    local.feeds.emplace_back(feed.name(), std::move(t).value());
  }
  local.fetches.assign(req.fetch().begin(), req.fetch().end());
  local.targets.assign(req.target().begin(), req.target().end());
  // Clamped again where it is used; negative means "the default", as in TensorFlow.
  local.timeout_ms = StepTimeoutMs(req.options().timeout_in_ms(), 0);
  local.collect_stats = req.options().trace_level() != tensorflow::RunOptions::NO_TRACE;
  local.output_partition_graphs = req.options().output_partition_graphs();
  local.request_id = req.request_id();
  local.store_errors_in_response_body = req.store_errors_in_response_body();
  local.partial_run_handle = req.partial_run_handle();
  return local;
}

StatusOr<PartialRunSetupRequest> DecodePartialRunSetup(const std::string& bytes) {
  tensorflow::PartialRunSetupRequest req;
  TA_RETURN_IF_ERROR(Parse("PartialRunSetup", bytes, &req));
  PartialRunSetupRequest local;
  local.session_handle = req.session_handle();
  local.feeds.assign(req.feed().begin(), req.feed().end());
  local.fetches.assign(req.fetch().begin(), req.fetch().end());
  local.targets.assign(req.target().begin(), req.target().end());
  return local;
}

StatusOr<MakeCallableRequest> DecodeMakeCallable(const std::string& bytes) {
  tensorflow::MakeCallableRequest req;
  TA_RETURN_IF_ERROR(Parse("MakeCallable", bytes, &req));
  const tensorflow::CallableOptions& options = req.options();
  if (options.tensor_connection_size() > 0 || options.feed_devices_size() > 0 || options.fetch_devices_size() > 0) {
    return errors::Unimplemented("MakeCallable: tensor_connection, feed_devices and fetch_devices are not supported");
  }
  MakeCallableRequest local;
  local.session_handle = req.session_handle();
  local.feeds.assign(options.feed().begin(), options.feed().end());
  local.fetches.assign(options.fetch().begin(), options.fetch().end());
  local.targets.assign(options.target().begin(), options.target().end());
  local.timeout_ms = StepTimeoutMs(options.run_options().timeout_in_ms(), 0);
  local.collect_stats = options.run_options().trace_level() != tensorflow::RunOptions::NO_TRACE;
  return local;
}

StatusOr<RunCallableRequest> DecodeRunCallable(const std::string& bytes) {
  tensorflow::RunCallableRequest req;
  TA_RETURN_IF_ERROR(Parse("RunCallable", bytes, &req));
  RunCallableRequest local;
  local.session_handle = req.session_handle();
  local.handle = req.handle();
  local.request_id = req.request_id();
  ExpansionBudget budget;
  for (int i = 0; i < req.feed_size(); ++i) {
    TA_RETURN_IF_ERROR(budget.Charge(req.feed(i), StrCat("RunCallable feed ", i)));
    auto t = Tensor::FromProto(req.feed(i));
    if (!t.ok()) return errors::InvalidArgument("RunCallable feed ", i, ": ", t.status().message());
    local.feeds.push_back(std::move(t).value());
  }
  return local;
}

StatusOr<ReleaseCallable> DecodeReleaseCallable(const std::string& bytes) {
  tensorflow::ReleaseCallableRequest req;
  TA_RETURN_IF_ERROR(Parse("ReleaseCallable", bytes, &req));
  return ReleaseCallable{req.session_handle(), req.handle()};
}

Status DecodeListDevices(const std::string& bytes) {
  tensorflow::ListDevicesRequest req;
  return Parse("ListDevices", bytes, &req);
}

StatusOr<std::string> DecodeCloseSession(const std::string& bytes) {
  tensorflow::CloseSessionRequest req;
  TA_RETURN_IF_ERROR(Parse("CloseSession", bytes, &req));
  return req.session_handle();
}

StatusOr<std::vector<std::string>> DecodeReset(const std::string& bytes) {
  tensorflow::ResetRequest req;
  TA_RETURN_IF_ERROR(Parse("Reset", bytes, &req));
  return std::vector<std::string>(req.container().begin(), req.container().end());
}

StatusOr<CancelStep> DecodeCancelStep(const std::string& bytes) {
  tensoract::CancelStepRequest req;
  TA_RETURN_IF_ERROR(Parse("CancelStep", bytes, &req));
  return CancelStep{req.session_handle(), req.request_id()};
}

StatusOr<Heartbeat> DecodeHeartbeat(const std::string& bytes) {
  tensoract::HeartbeatRequest req;
  TA_RETURN_IF_ERROR(Parse("Heartbeat", bytes, &req));
  // Clamped like a step's timeout: a lease near INT64_MAX would overflow the deadline.
  return Heartbeat{req.sequence(), req.lease_ms() > 0 ? StepTimeoutMs(req.lease_ms(), 0) : 0,
                   req.client_lease_ms() > 0 ? StepTimeoutMs(req.client_lease_ms(), 0) : 0};
}

StatusOr<PeerDirectory> DecodeSetPeers(const std::string& bytes) {
  tensoract::PeerDirectoryRequest req;
  TA_RETURN_IF_ERROR(Parse("SetPeers", bytes, &req));
  PeerDirectory local;
  local.data_plane_by_task.insert(req.data_plane_by_task().begin(), req.data_plane_by_task().end());
  return local;
}

StatusOr<RegisterGraphRequest> DecodeRegisterGraph(const std::string& bytes, const std::string& owner) {
  tensorflow::RegisterGraphRequest req;
  TA_RETURN_IF_ERROR(Parse("RegisterGraph", bytes, &req));
  const bool freeze = req.graph_options().optimizer_options().opt_level() != tensorflow::OptimizerOptions::L0;
  return RegisterGraphRequest{TakeGraph(req.mutable_graph_def()), owner, req.session_handle(), freeze};
}

StatusOr<RunGraphRequest> DecodeRunGraph(const std::string& bytes, const std::string& owner) {
  tensorflow::RunGraphRequest req;
  TA_RETURN_IF_ERROR(Parse("RunGraph", bytes, &req));
  if (req.send_size() > 0) {
    return errors::Unimplemented("RunGraph with tensors in the request: feeds travel over the data plane");
  }
  RunGraphRequest local;
  local.graph_handle = req.graph_handle();
  local.step_id = req.step_id();
  local.collect_stats = req.exec_opts().record_timeline() || req.exec_opts().record_costs();
  // A remote step always spans tasks: the master says when its values may go.
  local.master_cleans_up = true;
  local.owner = owner;
  return local;
}

StatusOr<std::string> DecodeDeregisterGraph(const std::string& bytes) {
  tensorflow::DeregisterGraphRequest req;
  TA_RETURN_IF_ERROR(Parse("DeregisterGraph", bytes, &req));
  return req.graph_handle();
}

StatusOr<int64_t> DecodeCleanupGraph(const std::string& bytes) {
  tensorflow::CleanupGraphRequest req;
  TA_RETURN_IF_ERROR(Parse("CleanupGraph", bytes, &req));
  return req.step_id();
}

StatusOr<AbortStep> DecodeAbortStep(const std::string& bytes) {
  tensoract::AbortStepRequest req;
  TA_RETURN_IF_ERROR(Parse("AbortStep", bytes, &req));
  Status why = RpcStatus(req.code(), req.message());
  if (why.ok()) why = errors::Aborted("step ", req.step_id(), " was aborted");
  return AbortStep{req.step_id(), why};
}

StatusOr<std::vector<std::string>> DecodeCleanupAll(const std::string& bytes) {
  tensorflow::CleanupAllRequest req;
  TA_RETURN_IF_ERROR(Parse("CleanupAll", bytes, &req));
  return std::vector<std::string>(req.container().begin(), req.container().end());
}

namespace {

template <class T>
Status Dropped(const StatusOr<T>& decoded) {
  return decoded.status();
}
Status Dropped(const Status& decoded) { return decoded; }

const std::map<std::string, std::function<Status(const std::string&)>>& Decoders() {
  static const auto* decoders = new std::map<std::string, std::function<Status(const std::string&)>>{
      {"CreateSession", [](const std::string& b) { return Dropped(DecodeCreateSession(b, "")); }},
      {"ExtendSession", [](const std::string& b) { return Dropped(DecodeExtendSession(b)); }},
      {"RunStep", [](const std::string& b) { return Dropped(DecodeRunStep(b)); }},
      {"CloseSession", [](const std::string& b) { return Dropped(DecodeCloseSession(b)); }},
      {"Reset", [](const std::string& b) { return Dropped(DecodeReset(b)); }},
      {"CancelStep", [](const std::string& b) { return Dropped(DecodeCancelStep(b)); }},
      {"MakeCallable", [](const std::string& b) { return Dropped(DecodeMakeCallable(b)); }},
      {"PartialRunSetup", [](const std::string& b) { return Dropped(DecodePartialRunSetup(b)); }},
      {"RunCallable", [](const std::string& b) { return Dropped(DecodeRunCallable(b)); }},
      {"ReleaseCallable", [](const std::string& b) { return Dropped(DecodeReleaseCallable(b)); }},
      {"ListDevices", [](const std::string& b) { return Dropped(DecodeListDevices(b)); }},
      {"Heartbeat", [](const std::string& b) { return Dropped(DecodeHeartbeat(b)); }},
      {"SetPeers", [](const std::string& b) { return Dropped(DecodeSetPeers(b)); }},
      {"RegisterGraph", [](const std::string& b) { return Dropped(DecodeRegisterGraph(b, "")); }},
      {"RunGraph", [](const std::string& b) { return Dropped(DecodeRunGraph(b, "")); }},
      {"DeregisterGraph", [](const std::string& b) { return Dropped(DecodeDeregisterGraph(b)); }},
      {"CleanupGraph", [](const std::string& b) { return Dropped(DecodeCleanupGraph(b)); }},
      {"AbortStep", [](const std::string& b) { return Dropped(DecodeAbortStep(b)); }},
      {"CleanupAll", [](const std::string& b) { return Dropped(DecodeCleanupAll(b)); }},
  };
  return *decoders;
}

}  // namespace

const std::vector<std::string>& Methods() {
  static const auto* methods = [] {
    auto* names = new std::vector<std::string>;
    for (const auto& [name, decode] : Decoders()) names->push_back(name);
    return names;
  }();
  return *methods;
}

Status Decode(const std::string& method, const std::string& bytes) {
  auto it = Decoders().find(method);
  if (it == Decoders().end()) return errors::Unimplemented("no control method '", method, "'");
  return it->second(bytes);
}

}  // namespace rpc
}  // namespace tensoract
