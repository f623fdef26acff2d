#include "client/monitored_session.h"

#include <chrono>
#include <thread>

#include "client/queue_runner.h"
#include "client/training_loop.h"

namespace tensoract {

StatusOr<std::unique_ptr<MonitoredSession>> MonitoredSession::New(Session* session, MonitoredSessionOptions options) {
  std::unique_ptr<MonitoredSession> m(new MonitoredSession(session, std::move(options)));
  for (auto& hook : m->options_.hooks) TA_RETURN_IF_ERROR(hook->Begin());
  TA_RETURN_IF_ERROR(m->Prepare());
  return m;
}

MonitoredSession::~MonitoredSession() {
  if (!closed_) StopRunners().IgnoreError();
}

StatusOr<std::string> MonitoredSession::NotReadyReason(const std::string& ready_op) {
  if (ready_op.empty()) return std::string();
  std::vector<Tensor> out;
  Status s = session_->Run({}, {ready_op}, {}, &out);
  // An uninitialised variable read while checking is "not ready", not an error.
  if (s.code() == error::FAILED_PRECONDITION) return s.message();
  TA_RETURN_IF_ERROR(s);
  const Tensor& r = out[0];
  if (r.dtype() == tensorflow::DT_STRING) {
    std::string names;
    for (int64_t i = 0; i < r.NumElements(); ++i) names += StrCat(i ? ", " : "", r.base<std::string>()[i]);
    return names.empty() ? std::string() : "uninitialized variables: " + names;
  }
  if (r.dtype() == tensorflow::DT_BOOL) {
    int64_t missing = 0;
    for (int64_t i = 0; i < r.NumElements(); ++i) missing += !r.base<bool>()[i];
    return missing == 0 ? std::string() : StrCat(missing, " variables not initialized");
  }
  return errors::InvalidArgument("ready_op '", ready_op, "' gave ", DataTypeString(r.dtype()),
                                 "; expected a string vector of names or a bool vector");
}

Status MonitoredSession::WaitUntilReady(const std::string& op) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.max_wait_ms);
  for (;;) {
    TA_ASSIGN_OR_RETURN(std::string reason, NotReadyReason(op));
    if (reason.empty()) return Status::OK();
    if (std::chrono::steady_clock::now() >= deadline) {
      return errors::DeadlineExceeded("the session was not ready after waiting ", options_.max_wait_ms,
                                      " ms for the chief: ", reason);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(options_.recovery_wait_ms));
  }
}

Status MonitoredSession::Prepare() {
  const Scaffold& scaffold = options_.scaffold;
  std::vector<Tensor> none;
  if (options_.is_chief) {
    bool restored = false;
    if (scaffold.saver != nullptr && !options_.checkpoint_dir.empty()) {
      auto latest = LatestCheckpoint(options_.checkpoint_dir);
      if (latest.ok()) {
        TA_RETURN_IF_ERROR(scaffold.saver->Restore(*session_, latest.value()));
        scaffold.saver->RecoverLastCheckpoints(options_.checkpoint_dir).IgnoreError();
        restored = true;
      }
    }
    if (!restored && !scaffold.init_op.empty()) TA_RETURN_IF_ERROR(session_->Run({}, {}, {scaffold.init_op}, &none));
  } else {
    // What the local init needs, or else everything.
    TA_RETURN_IF_ERROR(WaitUntilReady(scaffold.ready_for_local_init_op.empty() ? scaffold.ready_op
                                                                               : scaffold.ready_for_local_init_op));
  }
  if (!scaffold.local_init_op.empty()) {
    TA_ASSIGN_OR_RETURN(std::string missing, NotReadyReason(scaffold.ready_for_local_init_op));
    if (!missing.empty()) {
      return errors::FailedPrecondition("the model is not ready for local_init_op '", scaffold.local_init_op,
                                        "': ", missing);
    }
    TA_RETURN_IF_ERROR(session_->Run({}, {}, {scaffold.local_init_op}, &none));
  }
  TA_ASSIGN_OR_RETURN(std::string reason, NotReadyReason(scaffold.ready_op));
  if (!reason.empty()) {
    return errors::FailedPrecondition("the model is not ready after ",
                                      options_.is_chief ? "init_op or restore" : "its chief prepared it", ": ", reason);
  }
  coord_ = std::make_unique<Coordinator>();
  stop_ = input_exhausted_ = false;
  TA_RETURN_IF_ERROR(StartQueueRunners(session_, options_.queue_runners, coord_.get()));
  for (auto& hook : options_.hooks) TA_RETURN_IF_ERROR(hook->AfterCreateSession(*session_));
  return Status::OK();
}

Status MonitoredSession::StopRunners() {
  if (!coord_) return Status::OK();
  coord_->RequestStop();
  Status s = coord_->Join();
  coord_.reset();
  return s;
}

bool MonitoredSession::ShouldStop() const { return stop_ || (coord_ && coord_->ShouldStop()); }

Status MonitoredSession::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                             std::vector<Tensor>* outputs) {
  for (;;) {
    SessionRunContext context(session_, &fetches);
    // Every hook's extra fetches and targets go into the one Run, after the caller's.
    std::vector<std::string> all_fetches = fetches, all_targets = targets;
    std::vector<size_t> first(options_.hooks.size()), count(options_.hooks.size());
    for (size_t h = 0; h < options_.hooks.size(); ++h) {
      SessionRunArgs args = options_.hooks[h]->BeforeRun(context);
      first[h] = all_fetches.size();
      count[h] = args.fetches.size();
      all_fetches.insert(all_fetches.end(), args.fetches.begin(), args.fetches.end());
      all_targets.insert(all_targets.end(), args.targets.begin(), args.targets.end());
    }
    std::vector<Tensor> all;
    Status s = session_->Run(feeds, all_fetches, all_targets, &all);
    if (IsRecoverable(s) && recoveries_ < options_.max_recoveries) {
      // A task was lost: a new session, prepared again from the latest checkpoint.
      ++recoveries_;
      StopRunners().IgnoreError();
      TA_RETURN_IF_ERROR(session_->Recreate());
      TA_RETURN_IF_ERROR(Prepare());
      continue;
    }
    if (s.code() == error::OUT_OF_RANGE) {
      input_exhausted_ = true;
      stop_ = true;
      return s;
    }
    TA_RETURN_IF_ERROR(s);
    if (outputs != nullptr) outputs->assign(all.begin(), all.begin() + fetches.size());
    for (size_t h = 0; h < options_.hooks.size(); ++h) {
      SessionRunValues values;
      values.results.assign(all.begin() + first[h], all.begin() + first[h] + count[h]);
      TA_RETURN_IF_ERROR(options_.hooks[h]->AfterRun(context, values));
    }
    if (context.stop_requested()) stop_ = true;
    return Status::OK();
  }
}

Status MonitoredSession::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  Status end;
  for (auto& hook : options_.hooks) {
    Status s = hook->End(*session_);
    if (end.ok()) end = s;
  }
  Status runners = StopRunners();
  TA_RETURN_IF_ERROR(end);
  return runners;
}

}  // namespace tensoract
