#include "client/session.h"

#include <algorithm>
#include <chrono>

#include <caf/all.hpp>

#include "actors/cluster_credentials.h"
#include "actors/messages.h"
#include "client/caf_thread_state.h"
#include "client/step_caller.h"

namespace tensoract {
namespace {

// Client-side waits get this much beyond the step's own deadline, so the runtime's
// clearer error arrives first.
constexpr int64_t kClientSlackMs = 10 * 1000;

// Sends one request to `actor` and waits for its reply: `on_reply` gets the reply; a
// failure of the actor system (timeout, actor gone) becomes a Status naming `what`.
template <class Reply, class... Args>
Status Ask(caf::actor_system& system, const caf::actor& actor, int64_t timeout_ms, const std::string& what,
           const std::function<Status(Reply&)>& on_reply, Args&&... args) {
  KeepCafThreadState keep;  // the scoped_actor must not leave a logger reference behind
  caf::scoped_actor self{system};
  Status status;
  self->request(actor, std::chrono::milliseconds(timeout_ms), std::forward<Args>(args)...)
      .receive([&](Reply& reply) { status = on_reply(reply); },
               [&](caf::error& error) { status = FromCafError(error, what); });
  return status;
}

}  // namespace

StatusOr<std::unique_ptr<Session>> Session::New(const SessionOptions& options) {
  TA_ASSIGN_OR_RETURN(auto server, LocalServer::New(options));
  LocalServer* raw = server.get();
  return std::unique_ptr<Session>(new Session(raw, std::move(server)));
}

StatusOr<std::unique_ptr<Session>> Session::New(caf::actor_system& system, const SessionOptions& options) {
  TA_ASSIGN_OR_RETURN(auto server, LocalServer::New(system, options));
  LocalServer* raw = server.get();
  return std::unique_ptr<Session>(new Session(raw, std::move(server)));
}

StatusOr<std::unique_ptr<Session>> Session::New(LocalServer& server) {
  return std::unique_ptr<Session>(new Session(&server, nullptr));
}

Session::Session(LocalServer* server, std::unique_ptr<LocalServer> owned) : owned_(std::move(owned)), server_(server) {}

Session::~Session() { Close().IgnoreError(); }

// Why a session without a handle cannot run: never created, or closed since.
static Status NoGraph(bool closed, const char* call) {
  // TensorFlow's DirectSession says exactly this.
  return closed ? errors::Cancelled("Session has been closed.")
                : errors::FailedPrecondition("Session::", call, " before Session::Create gave it a graph");
}

std::pair<std::string, bool> Session::State() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {handle_, closed_};
}

std::string Session::handle() const { return State().first; }

Status Session::Create(const tensorflow::GraphDef& graph) {
  const auto [handle, closed] = State();
  if (closed) return NoGraph(closed, "Create");
  if (!handle.empty()) {
    return errors::AlreadyExists("this session already has a graph (session '", handle, "'); make a new session");
  }
  return Ask<CreateSessionResponse>(
      server_->system(), master(), server_->options().step_timeout_ms, "CreateSession",
      [&](CreateSessionResponse& r) {
        std::lock_guard<std::mutex> lock(mu_);
        handle_ = r.session_handle;
        graph_version_ = 0;
        if (r.status.ok()) graph_ = graph;
        return r.status;
      },
      create_session_atom::value, CreateSessionRequest{std::make_shared<const tensorflow::GraphDef>(graph), /*owner=*/""});
}

Status Session::Recreate() {
  const auto [handle, closed] = State();
  if (closed || (handle.empty() && graph_.node_size() == 0)) return NoGraph(closed, "Recreate");
  if (!handle.empty()) {
    // The old session, if the master still has it, would keep its graphs registered. A
    // master that cannot answer soon has surely lost it.
    const int64_t timeout_ms = std::min<int64_t>(server_->options().step_timeout_ms, 10000);
    (void)Ask<Status>(server_->system(), master(), timeout_ms, "CloseSession", [](Status& s) { return s; },
                      close_session_atom::value, handle);
    std::lock_guard<std::mutex> lock(mu_);
    handle_.clear();
    callables_.clear();  // the new session has none
  }
  const tensorflow::GraphDef graph = graph_;  // Create keeps it again when it succeeds
  return Create(graph);
}

Status Session::Extend(const tensorflow::GraphDef& more) {
  const auto [handle, closed] = State();
  if (handle.empty()) return NoGraph(closed, "Extend");
  ExtendSessionRequest request{handle, std::make_shared<const tensorflow::GraphDef>(more), graph_version_};
  return Ask<ExtendSessionResponse>(
      server_->system(), master(), server_->options().step_timeout_ms, "ExtendSession",
      [&](ExtendSessionResponse& r) {
        if (r.status.ok()) {
          graph_version_ = r.new_graph_version;
          for (const auto& node : more.node()) *graph_.add_node() = node;
          if (more.has_versions()) *graph_.mutable_versions() = more.versions();
        }
        return r.status;
      },
      extend_session_atom::value, std::move(request));
}

void StepCanceller::Cancel() {
  std::function<void()> cancel;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cancel = cancel_;
  }
  if (cancel) cancel();
}

bool StepCanceller::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

bool StepCanceller::Install(std::function<void()> cancel) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return false;
  cancel_ = std::move(cancel);
  return true;
}

void StepCanceller::Uninstall() {
  std::lock_guard<std::mutex> lock(mu_);
  cancel_ = nullptr;
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
  return Run(RunOptions(), feeds, fetches, targets, outputs);
}

Status Session::Run(const RunOptions& options, const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                    std::vector<Tensor>* outputs, RunMetadata* metadata) {
  const auto [handle, closed] = State();
  if (handle.empty()) return NoGraph(closed, "Run");
  if (options.inter_op_thread_pool != 0 && options.inter_op_thread_pool != -1) {
    return errors::InvalidArgument("Invalid inter_op_thread_pool: ", options.inter_op_thread_pool,
                                   " (0: the device's threads, -1: the caller's thread)");
  }
  // A master in this process: the step can run on this thread (client/step_caller.h).
  const bool local_master = server_->worker() != nullptr;
  const bool caller_thread_only = local_master && options.inter_op_thread_pool == -1;
  RunStepRequest request;
  request.session_handle = handle;
  request.feeds = feeds;
  request.fetches = fetches;
  request.targets = targets;
  request.timeout_ms = StepTimeoutMs(options.timeout_ms, server_->options().step_timeout_ms);
  request.collect_stats = metadata != nullptr && options.trace_level != RunOptions::NO_TRACE;
  request.output_partition_graphs = metadata != nullptr && options.output_partition_graphs;
  request.on_caller_thread = caller_thread_only;
  const int64_t wait_ms = request.timeout_ms + kClientSlackMs;
  if (options.canceller) {
    // The master finds the step by the request id this call gives it.
    request.request_id = static_cast<int64_t>(RandomId() >> 1) | 1;
    caf::actor to = master();
    auto cancel = [to, session = handle, id = request.request_id] {
      caf::anon_send(to, cancel_step_atom::value, session, id);
    };
    if (!options.canceller->Install(cancel)) return errors::Cancelled("the step was cancelled before it started");
  }
  struct Uninstall {
    StepCanceller* canceller;
    ~Uninstall() {
      if (canceller != nullptr) canceller->Uninstall();
    }
  } uninstall{options.canceller.get()};
  RunStepResponse r;
  TA_RETURN_IF_ERROR(server_->step_caller().Call(master(), std::move(request), wait_ms, &r, local_master,
                                                options.spin_for_reply,
                                                options.run_on_caller_thread || caller_thread_only));
  if (metadata != nullptr) {
    if (r.step_stats) metadata->step_stats = std::move(*r.step_stats);
    metadata->partition_graphs.clear();
    for (const auto& g : r.partition_graphs) metadata->partition_graphs.push_back(*g);
  }
  if (r.status.ok() && outputs != nullptr) *outputs = std::move(r.fetched);
  return r.status;
}

Status Session::PRunSetup(const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets, std::string* handle) {
  const auto [session, closed] = State();
  if (session.empty()) return NoGraph(closed, "PRunSetup");
  return Ask<PartialRunSetupResponse>(
      server_->system(), master(), server_->options().step_timeout_ms, "PartialRunSetup",
      [&](PartialRunSetupResponse& r) {
        if (r.status.ok()) *handle = r.partial_run_handle;
        return r.status;
      },
      partial_setup_atom::value, PartialRunSetupRequest{session, feeds, fetches, targets});
}

Status Session::PRun(const std::string& handle, const std::vector<std::pair<std::string, Tensor>>& feeds,
                     const std::vector<std::string>& fetches, std::vector<Tensor>* outputs) {
  const auto [session, closed] = State();
  if (session.empty()) return NoGraph(closed, "PRun");
  RunStepRequest request;
  request.session_handle = session;
  request.partial_run_handle = handle;
  request.feeds = feeds;
  request.fetches = fetches;
  // The step's own deadline (the setup's) bounds it; this wait only backs it up.
  const int64_t wait_ms = server_->options().step_timeout_ms + kClientSlackMs;
  return Ask<RunStepResponse>(
      server_->system(), master(), wait_ms, "PRun",
      [&](RunStepResponse& r) {
        if (r.status.ok() && outputs != nullptr) *outputs = std::move(r.fetched);
        return r.status;
      },
      run_step_atom::value, std::move(request));
}

Status Session::MakeCallable(const tensorflow::CallableOptions& options, CallableHandle* handle) {
  const auto [session, closed] = State();
  if (session.empty()) return NoGraph(closed, "MakeCallable");
  if (options.tensor_connection_size() > 0 || options.feed_devices_size() > 0 || options.fetch_devices_size() > 0) {
    return errors::Unimplemented("MakeCallable: tensor_connection, feed_devices and fetch_devices are not supported");
  }
  Callable callable;
  callable.feeds.assign(options.feed().begin(), options.feed().end());
  callable.fetches.assign(options.fetch().begin(), options.fetch().end());
  callable.targets.assign(options.target().begin(), options.target().end());
  const tensorflow::RunOptions& run = options.run_options();
  callable.options.trace_level = static_cast<RunOptions::TraceLevel>(run.trace_level());
  callable.options.timeout_ms = run.timeout_in_ms();
  callable.options.inter_op_thread_pool = run.inter_op_thread_pool();
  callable.options.output_partition_graphs = run.output_partition_graphs();
  MakeCallableRequest request{session, callable.feeds, callable.fetches, callable.targets, 0, false};
  return Ask<MakeCallableResponse>(
      server_->system(), master(), server_->options().step_timeout_ms, "MakeCallable",
      [&](MakeCallableResponse& r) {
        if (!r.status.ok()) return r.status;
        std::lock_guard<std::mutex> lock(mu_);
        callables_[r.handle] = std::move(callable);
        *handle = r.handle;
        return Status::OK();
      },
      make_callable_atom::value, std::move(request));
}

Status Session::RunCallable(CallableHandle handle, const std::vector<Tensor>& feeds, std::vector<Tensor>* fetches,
                            RunMetadata* metadata) {
  Callable callable;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = callables_.find(handle);
    if (it == callables_.end()) return errors::InvalidArgument("No such callable handle: ", handle);
    callable = it->second;
  }
  if (feeds.size() != callable.feeds.size()) {
    return errors::InvalidArgument("Invalid number of feed values: expected ", callable.feeds.size(), " but got ",
                                   feeds.size());
  }
  // The master compiled this signature at MakeCallable: the step finds it cached, and runs
  // as any Run does (on this thread where the master is local).
  std::vector<std::pair<std::string, Tensor>> named;
  named.reserve(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) named.emplace_back(callable.feeds[i], feeds[i]);
  return Run(callable.options, named, callable.fetches, callable.targets, fetches, metadata);
}

Status Session::ReleaseCallable(CallableHandle handle) {
  const auto [session, closed] = State();
  if (session.empty()) return NoGraph(closed, "ReleaseCallable");
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (callables_.erase(handle) == 0) return errors::InvalidArgument("No such callable handle: ", handle);
  }
  return Ask<Status>(
      server_->system(), master(), server_->options().step_timeout_ms, "ReleaseCallable", [](Status& s) { return s; },
      release_callable_atom::value, session, handle);
}

Status Session::ListDevices(std::vector<tensorflow::DeviceAttributes>* devices) {
  return Ask<ListDevicesResponse>(
      server_->system(), master(), server_->options().step_timeout_ms, "ListDevices",
      [&](ListDevicesResponse& r) {
        if (!r.status.ok()) return r.status;
        devices->assign(r.local.begin(), r.local.end());
        devices->insert(devices->end(), r.remote.begin(), r.remote.end());
        return Status::OK();
      },
      list_devices_atom::value);
}

Status Session::Close() {
  std::string handle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle_.empty()) return Status::OK();
    handle = std::move(handle_);
    handle_.clear();
    callables_.clear();
    closed_ = true;
  }
  return Ask<Status>(
      server_->system(), master(), server_->options().step_timeout_ms, "CloseSession",
      [](Status& s) { return s; }, close_session_atom::value, handle);
}

Status Session::Reset(const std::vector<std::string>& containers) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    handle_.clear();  // the master closes every session, this one too
    callables_.clear();
    closed_ = true;
  }
  return Ask<Status>(
      server_->system(), master(), server_->options().step_timeout_ms, "Reset", [](Status& s) { return s; },
      reset_atom::value, containers);
}

std::string Session::Inspect() {
  std::string out;
  for (const caf::actor& a : {server_->master(), server_->worker()}) {
    if (!a) continue;  // a remote target: its master's answer covers the node
    Status s = Ask<std::string>(
        server_->system(), a, 5000, "Inspect",
        [&](std::string& text) {
          out += text + "\n";
          return Status::OK();
        },
        inspect_atom::value);
    if (!s.ok()) out += s.ToString() + "\n";
  }
  return out;
}

}  // namespace tensoract
