#include "client/session_run_hooks.h"

#include <cmath>
#include <cstdio>

namespace tensoract {
namespace {

StatusOr<int64_t> FetchStep(Session& session, const std::string& global_step) {
  std::vector<Tensor> out;
  TA_RETURN_IF_ERROR(session.Run({}, {global_step}, {}, &out));
  return ScalarAsInt64(out[0]);
}

}  // namespace

StatusOr<int64_t> ScalarAsInt64(const Tensor& t) {
  if (t.NumElements() != 1) return errors::InvalidArgument("expected a scalar step, got shape ", t.shape().DebugString());
  if (t.dtype() == tensorflow::DT_INT64) return t.base<int64_t>()[0];
  if (t.dtype() == tensorflow::DT_INT32) return t.base<int32_t>()[0];
  return errors::InvalidArgument("expected an int32 or int64 step, got ", DataTypeString(t.dtype()));
}

bool StepTimer::ShouldTrigger(int64_t step) const {
  if (last_step_ < 0) return true;
  if (step <= last_step_) return false;
  if (every_steps_ > 0 && step >= last_step_ + every_steps_) return true;
  return every_secs_ > 0 && SecondsSinceLast() >= static_cast<double>(every_secs_);
}

void StepTimer::Triggered(int64_t step) {
  last_step_ = step;
  last_time_ = std::chrono::steady_clock::now();
}

double StepTimer::SecondsSinceLast() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - last_time_).count();
}

Status CheckpointSaverHook::Save(Session& session, int64_t step) {
  if (step == last_saved_) return Status::OK();
  TA_ASSIGN_OR_RETURN(std::string path, saver_->Save(session, dir_ + "/model.ckpt", step));
  saved_.push_back(path);
  last_saved_ = step;
  timer_.Triggered(step);
  return Status::OK();
}

Status CheckpointSaverHook::AfterCreateSession(Session& session) {
  TA_ASSIGN_OR_RETURN(int64_t step, FetchStep(session, global_step_));
  return Save(session, step);
}

Status CheckpointSaverHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  // The step the Run fetched is before its update; the one now in the variable is after.
  TA_ASSIGN_OR_RETURN(int64_t fetched, ScalarAsInt64(values.results[0]));
  if (!timer_.ShouldTrigger(fetched + 1)) return Status::OK();
  TA_ASSIGN_OR_RETURN(int64_t step, FetchStep(context.session(), global_step_));
  return Save(context.session(), step);
}

Status CheckpointSaverHook::End(Session& session) {
  TA_ASSIGN_OR_RETURN(int64_t step, FetchStep(session, global_step_));
  return Save(session, step);
}

Status StepCounterHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  TA_ASSIGN_OR_RETURN(int64_t step, ScalarAsInt64(values.results[0]));
  if (timer_.last_step() < 0) {
    timer_.Triggered(step);
    return Status::OK();
  }
  if (!timer_.ShouldTrigger(step)) return Status::OK();
  const double rate = static_cast<double>(step - timer_.last_step()) / std::max(timer_.SecondsSinceLast(), 1e-9);
  timer_.Triggered(step);
  if (log_) {
    log_(rate);
  } else {
    std::fprintf(stderr, "global_step/sec: %.4g\n", rate);
  }
  return Status::OK();
}

Status StopAtStepHook::AfterCreateSession(Session& session) {
  if (last_step_ >= 0) return Status::OK();
  TA_ASSIGN_OR_RETURN(int64_t step, FetchStep(session, global_step_));
  last_step_ = step + num_steps_;
  return Status::OK();
}

Status StopAtStepHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  TA_ASSIGN_OR_RETURN(int64_t step, ScalarAsInt64(values.results[0]));
  // The fetched step is the one before this Run's update.
  if (step + 1 >= last_step_) context.RequestStop();
  return Status::OK();
}

Status NanTensorHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  const Tensor& loss = values.results[0];
  bool nan = false;
  if (loss.dtype() == tensorflow::DT_FLOAT) {
    for (int64_t i = 0; i < loss.NumElements(); ++i) nan |= std::isnan(loss.base<float>()[i]);
  } else if (loss.dtype() == tensorflow::DT_DOUBLE) {
    for (int64_t i = 0; i < loss.NumElements(); ++i) nan |= std::isnan(loss.base<double>()[i]);
  }
  if (!nan) return Status::OK();
  if (fail_) return errors::InvalidArgument("NaN loss during training (", loss_, ")");
  std::fprintf(stderr, "NaN loss during training (%s); stopping\n", loss_.c_str());
  context.RequestStop();
  return Status::OK();
}

SessionRunArgs LoggingTensorHook::BeforeRun(SessionRunContext&) {
  if (every_ <= 0 || iter_ % every_ != 0) return {};
  return {tensors_, {}};
}

Status LoggingTensorHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  if (every_ <= 0) return errors::InvalidArgument("LoggingTensorHook: every_n_iter must be positive, got ", every_);
  if (iter_++ % every_ != 0) return Status::OK();
  std::string line;
  for (size_t i = 0; i < tensors_.size() && i < values.results.size(); ++i) {
    line += StrCat(i ? ", " : "", tensors_[i], " = ", values.results[i].SummarizeValue(6));
  }
  if (log_) {
    log_(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  return Status::OK();
}

}  // namespace tensoract

namespace tensoract {

Status SummarySaverHook::AfterCreateSession(Session& session) {
  TA_ASSIGN_OR_RETURN(next_step_, FetchStep(session, global_step_));
  return Status::OK();
}

SessionRunArgs SummarySaverHook::BeforeRun(SessionRunContext&) {
  requested_ = timer_.ShouldTrigger(next_step_);
  SessionRunArgs args{{global_step_}, {}};
  if (requested_) args.fetches.push_back(summary_op_);
  return args;
}

Status SummarySaverHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  // The fetched step is the one before this Run's update.
  TA_ASSIGN_OR_RETURN(int64_t step, ScalarAsInt64(values.results[0]));
  if (!started_) {
    started_ = true;
    TA_RETURN_IF_ERROR(writer_->AddSessionLog(tensorflow::SessionLog::START, step));
  }
  if (requested_) {
    if (values.results.size() < 2 || values.results[1].dtype() != tensorflow::DT_STRING ||
        values.results[1].NumElements() != 1) {
      return errors::InvalidArgument("SummarySaverHook: ", summary_op_, " is not a scalar string summary");
    }
    TA_RETURN_IF_ERROR(writer_->AddSummary(values.results[1].base<std::string>()[0], step));
    timer_.Triggered(step);
  }
  next_step_ = step + 1;
  return Status::OK();
}

}  // namespace tensoract
