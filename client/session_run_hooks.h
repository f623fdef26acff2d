/// @file
/// SessionRunHook: code a MonitoredSession (client/monitored_session.h) calls around every
/// step, with TensorFlow's calls, and the standard hooks.
///
/// @code
///   Begin()                          once, before the session is created
///   AfterCreateSession(session)      after every creation (restore or init, local init)
///   BeforeRun(context) -> args       before each Run: extra fetches and targets to run with it
///   AfterRun(context, values)        after each Run: the extra fetches' values
///   End(session)                     once, when the MonitoredSession closes normally
/// @endcode
///
/// A hook stops training with context.RequestStop(); AfterRun returning an error fails the
/// Run with it (NanTensorHook's "NaN loss during training").
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

/// What the caller asked a MonitoredSession::Run for, and a way to stop after it.
class SessionRunContext {
 public:
  /// The context of one Run on `session` whose caller fetches `fetches`; both must outlive it
  /// (MonitoredSession::Run makes one per call).
  SessionRunContext(Session* session, const std::vector<std::string>* fetches) : session_(session), fetches_(fetches) {}
  /// The session the Run goes to, on which a hook may run steps of its own (to read the
  /// global step, to save a checkpoint).
  Session& session() const { return *session_; }
  /// The fetches the caller passed to MonitoredSession::Run, without any hook's.
  const std::vector<std::string>& original_fetches() const { return *fetches_; }
  /// Asks the MonitoredSession to stop after this Run: its ShouldStop() then returns true.
  void RequestStop() { stop_requested_ = true; }
  /// True once a hook called RequestStop() during this Run.
  bool stop_requested() const { return stop_requested_; }

 private:
  Session* session_;
  const std::vector<std::string>* fetches_;
  bool stop_requested_ = false;
};

/// What a hook adds to a Run.
struct SessionRunArgs {
  /// Tensors ("node:port") to fetch in the same step, after the caller's fetches; their values
  /// come back to the hook's AfterRun in SessionRunValues::results, in this order.
  std::vector<std::string> fetches;
  /// Nodes to run in the same step for their effects, fetching nothing.
  std::vector<std::string> targets;
};

/// The values of a hook's extra fetches, in its order.
struct SessionRunValues {
  /// One tensor per name in the SessionRunArgs::fetches the hook's BeforeRun returned.
  std::vector<Tensor> results;
};

/// Code a MonitoredSession calls around every step (TensorFlow's tf.train.SessionRunHook):
/// override the calls a hook needs; each default does nothing. The order of the calls is in
/// session_run_hooks.h's description.
class SessionRunHook {
 public:
  virtual ~SessionRunHook() = default;
  /// Called once by MonitoredSession::New, before the session is prepared (restored or
  /// initialised); an error fails MonitoredSession::New.
  virtual Status Begin() { return Status::OK(); }
  /// Called each time the session has been prepared (variables restored or initialised, the
  /// local init op run, queue runners started): once at first and again after every
  /// recovery. An error fails the preparation.
  virtual Status AfterCreateSession(Session&) { return Status::OK(); }
  /// Called before each MonitoredSession::Run: the tensors to fetch and nodes to run in the
  /// same step, added after the caller's. The default adds nothing.
  virtual SessionRunArgs BeforeRun(SessionRunContext&) { return {}; }
  /// Called after each successful Run with the values of this hook's BeforeRun fetches; it may
  /// call SessionRunContext::RequestStop(). An error fails the Run with it (the hooks after
  /// this one are then not called).
  virtual Status AfterRun(SessionRunContext&, const SessionRunValues&) { return Status::OK(); }
  /// Called once by MonitoredSession::Close, before the queue runners stop. Every hook's End is
  /// called; Close returns the first error.
  virtual Status End(Session&) { return Status::OK(); }
};

/// "Every N steps or every T seconds", as TensorFlow's SecondOrStepTimer counts.
class StepTimer {
 public:
  /// A timer due every `every_steps` steps or every `every_secs` seconds, whichever comes
  /// first; 0 turns that criterion off.
  StepTimer(int64_t every_steps, int64_t every_secs) : every_steps_(every_steps), every_secs_(every_secs) {}
  /// True when `step` is due: the timer never triggered, or `step` is past last_step() and at
  /// least every_steps steps or every_secs seconds have gone by since it.
  bool ShouldTrigger(int64_t step) const;
  /// Records that the timer fired at `step`, now: both counts start again from here.
  void Triggered(int64_t step);
  /// The step of the last Triggered() call; -1 before the first.
  int64_t last_step() const { return last_step_; }
  /// Seconds (steady clock) since the last Triggered() call; meaningless before the first.
  double SecondsSinceLast() const;

 private:
  int64_t every_steps_, every_secs_;
  int64_t last_step_ = -1;
  std::chrono::steady_clock::time_point last_time_;
};

/// Saves a checkpoint after the session is created, every N steps or T seconds, and at the
/// end, under `checkpoint_dir/model.ckpt-<global step>`. `global_step`: the tensor holding it.
class CheckpointSaverHook : public SessionRunHook {
 public:
  /// Saves through `saver` (which must outlive the hook) into `checkpoint_dir`, every
  /// `every_steps` global steps or `every_secs` seconds (0 turns that trigger off), reading
  /// the step from the tensor `global_step`. A step already saved is not saved again.
  CheckpointSaverHook(std::string checkpoint_dir, Saver* saver, std::string global_step, int64_t every_steps,
                      int64_t every_secs = 0)
      : dir_(std::move(checkpoint_dir)), saver_(saver), global_step_(std::move(global_step)),
        timer_(every_steps, every_secs) {}
  Status AfterCreateSession(Session& session) override;
  SessionRunArgs BeforeRun(SessionRunContext&) override { return {{global_step_}, {}}; }
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(Session& session) override;
  /// The prefixes of the checkpoints this hook saved, oldest first (Saver::Save's results).
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

/// Reports global steps per second every N steps to `log` (stderr when empty).
class StepCounterHook : public SessionRunHook {
 public:
  /// Reads the step from the tensor `global_step` at every Run and, every `every_steps` steps,
  /// passes the rate since the last report to `log`, or prints `global_step/sec: <rate>` on
  /// stderr when `log` is null. The first Run only starts the count.
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

/// Requests a stop once the global step reaches last_step (or num_steps past where it was
/// when the session was created).
class StopAtStepHook : public SessionRunHook {
 public:
  /// Stops `num_steps` global steps after the step the tensor `global_step` held when the
  /// session was first created (a recovery does not restart the count).
  static StopAtStepHook NumSteps(std::string global_step, int64_t num_steps) {
    return StopAtStepHook(std::move(global_step), num_steps, -1);
  }
  /// Stops after the Run that takes the global step (the tensor `global_step`) to `last_step`.
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

/// Fails the Run (fail_on_nan) or stops training when the loss is NaN.
class NanTensorHook : public SessionRunHook {
 public:
  /// Fetches the tensor `loss` at every Run; when any element of a float or double loss is NaN,
  /// fails the Run with InvalidArgument "NaN loss during training" (`fail_on_nan`), or else
  /// prints that on stderr and requests a stop. Losses of other dtypes never trigger it.
  explicit NanTensorHook(std::string loss, bool fail_on_nan = true) : loss_(std::move(loss)), fail_(fail_on_nan) {}
  SessionRunArgs BeforeRun(SessionRunContext&) override { return {{loss_}, {}}; }
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;

 private:
  std::string loss_;
  bool fail_;
};

/// Logs the values of some tensors every N steps ("name = value, ..."), to `log` or stderr.
class LoggingTensorHook : public SessionRunHook {
 public:
  /// Fetches `tensors` at the first Run and every `every_n_iter`-th one after it (counting
  /// MonitoredSession::Run calls, not global steps; not positive: each Run fails with
  /// InvalidArgument) and logs them as one line, at most 6 values of each
  /// (Tensor::SummarizeValue), to `log`, or stderr when null.
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

/// A scalar's value as int64 (global steps are int64 or int32). InvalidArgument when `t`
/// holds other than one element, or is of another dtype.
StatusOr<int64_t> ScalarAsInt64(const Tensor& t);

/// Writes the output of `summary_op` (a serialized Summary, ops::MergeSummary's) to
/// `writer` every N steps or T seconds, under the global step the same Run fetched, and a
/// SessionLog START when the session is first run (TensorBoard then drops the events of an
/// earlier run past that step). TensorFlow's SummarySaverHook.
class SummarySaverHook : public SessionRunHook {
 public:
  /// Writes to `writer` (which must outlive the hook) every `every_steps` global steps or
  /// `every_secs` seconds (0 turns that trigger off); `summary_op` must be a scalar string
  /// tensor (else the Run fails with InvalidArgument), `global_step` the step's tensor.
  SummarySaverHook(FileWriter* writer, std::string summary_op, std::string global_step, int64_t every_steps,
                   int64_t every_secs = 0)
      : writer_(writer), summary_op_(std::move(summary_op)), global_step_(std::move(global_step)),
        timer_(every_steps, every_secs) {}
  Status AfterCreateSession(Session& session) override;
  SessionRunArgs BeforeRun(SessionRunContext&) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  /// Flushes `writer`, so that every event written is on disk.
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
