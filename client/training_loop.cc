#include "client/training_loop.h"

#include <cstdio>
#include <cstdlib>
#include <thread>

namespace tensoract {

bool IsRecoverable(const Status& s) { return s.code() == error::UNAVAILABLE || s.code() == error::ABORTED; }

namespace {

// The step number a checkpoint prefix ends with ("dir/model.ckpt-120" -> 120), or 0.
int64_t StepOf(const std::string& prefix) {
  size_t dash = prefix.rfind('-');
  if (dash == std::string::npos) return 0;
  return std::strtoll(prefix.c_str() + dash + 1, nullptr, 10);
}

}  // namespace

Status TrainingLoop::RestoreOrInit() {
  auto latest = LatestCheckpoint(options_.checkpoint_dir);
  if (latest.ok()) {
    TA_RETURN_IF_ERROR(saver_.Restore(session_, *latest));
    step_ = StepOf(*latest);
    last_saved_step_ = step_;
    return Status::OK();
  }
  if (options_.init_op.empty()) {
    return errors::FailedPrecondition("no checkpoint in '", options_.checkpoint_dir,
                                      "' and no init_op to start from");
  }
  TA_RETURN_IF_ERROR(session_.Run({}, {}, {options_.init_op}, nullptr));
  step_ = 0;
  return Status::OK();
}

Status TrainingLoop::Start() {
  if (options_.checkpoint_dir.empty()) return errors::InvalidArgument("TrainingLoop needs a checkpoint_dir");
  Status s = RestoreOrInit();
  if (IsRecoverable(s)) return Recover(s);
  last_save_time_ = std::chrono::steady_clock::now();
  return s;
}

Status TrainingLoop::Recover(const Status& why) {
  std::fprintf(stderr, "TrainingLoop: step %lld failed (%s); restoring the latest checkpoint\n",
               static_cast<long long>(step_), why.ToString().c_str());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.recovery_deadline_ms);
  Status last = why;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(options_.retry_interval_ms));
    // A new session each time, as TensorFlow's MonitoredSession: a master that restarted
    // knows the old one no more (and one that did not just registers its graphs again).
    last = session_.Recreate();
    if (last.ok()) last = RestoreOrInit();
    if (last.ok()) {
      ++recoveries_;
      std::fprintf(stderr, "TrainingLoop: recovered at step %lld\n", static_cast<long long>(step_));
      return Status::OK();
    }
    if (!IsRecoverable(last)) return last;
  }
  return errors::Unavailable("TrainingLoop: the cluster did not come back within ", options_.recovery_deadline_ms,
                             " ms; last error: ", last.message());
}

Status TrainingLoop::MaybeSave() {
  bool by_steps = options_.save_every_steps > 0 && step_ % options_.save_every_steps == 0;
  bool by_time = options_.save_every_seconds > 0 &&
                 std::chrono::steady_clock::now() - last_save_time_ >= std::chrono::seconds(options_.save_every_seconds);
  if (!by_steps && !by_time) return Status::OK();
  auto saved = saver_.Save(session_, options_.checkpoint_dir + "/model.ckpt", step_);
  if (!saved.ok()) return saved.status();
  last_saved_step_ = step_;
  last_save_time_ = std::chrono::steady_clock::now();
  return Status::OK();
}

Status TrainingLoop::Step(const std::function<Status(Session&, int64_t step)>& step_fn) {
  for (;;) {
    Status s = step_fn(session_, step_);
    if (s.ok()) {
      ++step_;
      s = MaybeSave();
      if (s.ok()) return s;
    }
    if (!IsRecoverable(s)) return s;
    TA_RETURN_IF_ERROR(Recover(s));
  }
}

}  // namespace tensoract
