#include "actors/session.h"

#include <chrono>
#include <thread>

#include <caf/all.hpp>

#include "actors/master.h"
#include "actors/messages.h"
#include "actors/worker.h"

namespace tensoract {
namespace {

int ThreadsFor(const SessionOptions& options) {
  if (options.num_threads > 0) return options.num_threads;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 2 : static_cast<int>(n);
}

// Client-side waits get this much beyond the step's own deadline, so the runtime's
// clearer error arrives first.
constexpr int64_t kClientSlackMs = 10 * 1000;

}  // namespace

struct Session::OwnedSystem {
  explicit OwnedSystem(int threads) : config(MakeConfig(threads)), system(config) {}
  static caf::actor_system_config MakeConfig(int threads) {
    caf::actor_system_config cfg;
    // CAF's default is 4 threads; more threads than cores only adds wake-ups (DESIGN.md).
    cfg.set("scheduler.max-threads", static_cast<size_t>(threads));
    return cfg;
  }
  caf::actor_system_config config;
  caf::actor_system system;
};

StatusOr<std::unique_ptr<Session>> Session::New(const SessionOptions& options) {
  auto owned = std::make_unique<OwnedSystem>(ThreadsFor(options));
  caf::actor_system& system = owned->system;
  return std::unique_ptr<Session>(new Session(system, std::move(owned), options));
}

StatusOr<std::unique_ptr<Session>> Session::New(caf::actor_system& system, const SessionOptions& options) {
  return std::unique_ptr<Session>(new Session(system, nullptr, options));
}

Session::Session(caf::actor_system& system, std::unique_ptr<OwnedSystem> owned, const SessionOptions& options)
    : owned_(std::move(owned)), system_(system), options_(options) {
  WorkerOptions worker_options;
  worker_options.cpu_threads = ThreadsFor(options);
  worker_options.default_step_timeout_ms = options.step_timeout_ms;
  worker_ = SpawnWorker(system_, worker_options);
  MasterOptions master_options;
  master_options.default_step_timeout_ms = options.step_timeout_ms;
  master_ = SpawnMaster(system_, worker_, master_options);
}

Session::~Session() {
  Close();
  caf::anon_send_exit(master_, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(worker_, caf::exit_reason::user_shutdown);
  // An owned actor system waits for every actor to finish when it is destroyed (owned_).
}

Status Session::Create(const tensorflow::GraphDef& graph) {
  if (!handle_.empty()) {
    return errors::AlreadyExists("this session already has a graph (session '", handle_, "'); make a new session");
  }
  caf::scoped_actor self{system_};
  Status status;
  auto request = CreateSessionRequest{std::make_shared<const tensorflow::GraphDef>(graph)};
  self->request(master_, std::chrono::milliseconds(options_.step_timeout_ms), create_session_atom::value,
                std::move(request))
      .receive(
          [&](CreateSessionResponse& response) {
            status = response.status;
            handle_ = response.session_handle;
          },
          [&](caf::error& error) { status = FromCafError(error, "CreateSession"); });
  return status;
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
  return Run(RunOptions(), feeds, fetches, targets, outputs);
}

Status Session::Run(const RunOptions& options, const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                    std::vector<Tensor>* outputs) {
  if (handle_.empty()) return errors::FailedPrecondition("Session::Run before Session::Create gave it a graph");
  RunStepRequest request;
  request.session_handle = handle_;
  request.feeds = feeds;
  request.fetches = fetches;
  request.targets = targets;
  request.timeout_ms = options.timeout_ms > 0 ? options.timeout_ms : options_.step_timeout_ms;
  const auto deadline = std::chrono::milliseconds(request.timeout_ms + kClientSlackMs);
  caf::scoped_actor self{system_};
  Status status;
  self->request(master_, deadline, run_step_atom::value, std::move(request))
      .receive(
          [&](RunStepResponse& response) {
            status = response.status;
            if (status.ok() && outputs != nullptr) *outputs = std::move(response.fetched);
          },
          [&](caf::error& error) { status = FromCafError(error, "RunStep"); });
  return status;
}

Status Session::Close() {
  if (handle_.empty()) return Status::OK();
  caf::scoped_actor self{system_};
  Status status;
  self->request(master_, std::chrono::milliseconds(options_.step_timeout_ms), close_session_atom::value, handle_)
      .receive([&](Status& s) { status = s; }, [&](caf::error& error) { status = FromCafError(error, "CloseSession"); });
  handle_.clear();
  return status;
}

std::string Session::Inspect() {
  caf::scoped_actor self{system_};
  std::string out;
  for (const caf::actor& a : {master_, worker_}) {
    self->request(a, std::chrono::seconds(5), inspect_atom::value)
        .receive([&](std::string& s) { out += s + "\n"; },
                 [&](caf::error& error) { out += FromCafError(error, "Inspect").ToString() + "\n"; });
  }
  return out;
}

}  // namespace tensoract
