// SessionRunHook: code a MonitoredSession (client/monitored_session.h) calls around every
// step, with TensorFlow's calls, and the standard hooks.
//
//   Begin()                          once, before the session is created
//   AfterCreateSession(session)      after every creation (restore or init, local init)
//   BeforeRun(context) -> args       before each Run: extra fetches and targets to run with it
//   AfterRun(context, values)        after each Run: the extra fetches' values
//   End(session)                     once, when the MonitoredSession closes normally
//
// A hook stops training with context.RequestStop(); AfterRun returning an error fails the
// Run with it (NanTensorHook's "NaN loss during training").
#ifndef TENSORACT_CLIENT_SESSION_RUN_HOOKS_H_
#define TENSORACT_CLIENT_SESSION_RUN_HOOKS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "client/file_writer.h"
#include "client/saver.h"
#include "client/session.h"

namespace tensoract {

// What the caller asked a MonitoredSession::Run for, and a way to stop after it.
class SessionRunContext {
 public:
  SessionRunContext(Session* session, const std::vector<std::string>* fetches) : session_(session), fetches_(fetches) {}
  Session& session() const { return *session_; }
  const std::vector<std::string>& original_fetches() const { return *fetches_; }
  void RequestStop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

 private:
  Session* session_;
  const std::vector<std::string>* fetches_;
  bool stop_requested_ = false;
};

// What a hook adds to a Run.
struct SessionRunArgs {
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

// The values of a hook's extra fetches, in its order.
struct SessionRunValues {
  std::vector<Tensor> results;
};

class SessionRunHook {
 public:
  virtual ~SessionRunHook() = default;
  virtual Status Begin() { return Status::OK(); }
  virtual Status AfterCreateSession(Session&) { return Status::OK(); }
  virtual SessionRunArgs BeforeRun(SessionRunContext&) { return {}; }
  virtual Status AfterRun(SessionRunContext&, const SessionRunValues&) { return Status::OK(); }
  virtual Status End(Session&) { return Status::OK(); }
};

// "Every N steps or every T seconds", as TensorFlow's SecondOrStepTimer counts.
class StepTimer {
 public:
  StepTimer(int64_t every_steps, int64_t every_secs) : every_steps_(every_steps), every_secs_(every_secs) {}
  bool ShouldTrigger(int64_t step) const;
  void Triggered(int64_t step);
  int64_t last_step() const { return last_step_; }
  double SecondsSinceLast() const;

 private:
  int64_t every_steps_, every_secs_;
  int64_t last_step_ = -1;
  std::chrono::steady_clock::time_point last_time_;
};

// Saves a checkpoint after the session is created, every N steps or T seconds, and at the
// end, under checkpoint_dir/model.ckpt-<global step>. `global_step`: the tensor holding it.
class CheckpointSaverHook : public SessionRunHook {
 public:
  CheckpointSaverHook(std::string checkpoint_dir, Saver* saver, std::string global_step, int64_t every_steps,
                      int64_t every_secs = 0)
      : dir_(std::move(checkpoint_dir)), saver_(saver), global_step_(std::move(global_step)),
        timer_(every_steps, every_secs) {}
  Status AfterCreateSession(Session& session) override;
  SessionRunArgs BeforeRun(SessionRunContext&) override { return {{global_step_}, {}}; }
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(Session& session) override;
  const std::vector<std::string>& saved() const { return saved_; }

 private:
  Status Save(Session& session, int64_t step);
  std::string dir_;
  Saver* saver_;
  std::string global_step_;
  StepTimer timer_;
  int64_t last_saved_ = -1;
  std::vector<std::string> saved_;
};

// Reports global steps per second every N steps to `log` (stderr when empty).
class StepCounterHook : public SessionRunHook {
 public:
  StepCounterHook(std::string global_step, int64_t every_steps,
                  std::function<void(double steps_per_sec)> log = nullptr)
      : global_step_(std::move(global_step)), timer_(every_steps, 0), log_(std::move(log)) {}
  SessionRunArgs BeforeRun(SessionRunContext&) override { return {{global_step_}, {}}; }
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;

 private:
  std::string global_step_;
  StepTimer timer_;
  std::function<void(double)> log_;
};

// Requests a stop once the global step reaches last_step (or num_steps past where it was
// when the session was created).
class StopAtStepHook : public SessionRunHook {
 public:
  static StopAtStepHook NumSteps(std::string global_step, int64_t num_steps) {
    return StopAtStepHook(std::move(global_step), num_steps, -1);
  }
  static StopAtStepHook LastStep(std::string global_step, int64_t last_step) {
    return StopAtStepHook(std::move(global_step), -1, last_step);
  }
  Status AfterCreateSession(Session& session) override;
  SessionRunArgs BeforeRun(SessionRunContext&) override { return {{global_step_}, {}}; }
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;

 private:
  StopAtStepHook(std::string global_step, int64_t num_steps, int64_t last_step)
      : global_step_(std::move(global_step)), num_steps_(num_steps), last_step_(last_step) {}
  std::string global_step_;
  int64_t num_steps_, last_step_;
};

// Fails the Run (fail_on_nan) or stops training when the loss is NaN.
class NanTensorHook : public SessionRunHook {
 public:
  explicit NanTensorHook(std::string loss, bool fail_on_nan = true) : loss_(std::move(loss)), fail_(fail_on_nan) {}
  SessionRunArgs BeforeRun(SessionRunContext&) override { return {{loss_}, {}}; }
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;

 private:
  std::string loss_;
  bool fail_;
};

// Logs the values of some tensors every N steps ("name = value, ..."), to `log` or stderr.
class LoggingTensorHook : public SessionRunHook {
 public:
  LoggingTensorHook(std::vector<std::string> tensors, int64_t every_n_iter,
                    std::function<void(const std::string&)> log = nullptr)
      : tensors_(std::move(tensors)), every_(every_n_iter), log_(std::move(log)) {}
  SessionRunArgs BeforeRun(SessionRunContext&) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;

 private:
  std::vector<std::string> tensors_;
  int64_t every_;
  int64_t iter_ = 0;
  std::function<void(const std::string&)> log_;
};

// A scalar's value as int64 (global steps are int64 or int32).
StatusOr<int64_t> ScalarAsInt64(const Tensor& t);

// Writes the output of `summary_op` (a serialized Summary, ops::MergeSummary's) to
// `writer` every N steps or T seconds, under the global step the same Run fetched, and a
// SessionLog START when the session is first run (TensorBoard then drops the events of an
// earlier run past that step). TensorFlow's SummarySaverHook.
class SummarySaverHook : public SessionRunHook {
 public:
  SummarySaverHook(FileWriter* writer, std::string summary_op, std::string global_step, int64_t every_steps,
                   int64_t every_secs = 0)
      : writer_(writer), summary_op_(std::move(summary_op)), global_step_(std::move(global_step)),
        timer_(every_steps, every_secs) {}
  Status AfterCreateSession(Session& session) override;
  SessionRunArgs BeforeRun(SessionRunContext&) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(Session&) override { return writer_->Flush(); }

 private:
  FileWriter* writer_;
  std::string summary_op_, global_step_;
  StepTimer timer_;
  int64_t next_step_ = -1;  // the global step the next Run will see
  bool started_ = false, requested_ = false;
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_SESSION_RUN_HOOKS_H_
