/// @file
/// TrainingLoop: a training loop that survives the loss of a task, as TensorFlow's
/// MonitoredSession does for 1.x distributed training.
///
/// @code
///   TrainingLoop loop(*session, saver, {.checkpoint_dir = "train", .save_every_steps = 100,
///                                       .init_op = "init"});
///   TA_RETURN_IF_ERROR(loop.Start());            // latest checkpoint, or the init op
///   while (loop.step() < 10000) {
///     TA_RETURN_IF_ERROR(loop.Step([&](Session& s, int64_t step) {
///       return s.Run({{"x", Batch(step)}}, {}, {"train"}, nullptr);
///     }));
///   }
/// @endcode
///
/// Step runs the caller's step function for the current step number. When it fails with
/// Unavailable or Aborted (a task was killed, froze, or restarted and lost its variables;
/// the master itself restarted and lost the session), the loop waits for the cluster to
/// answer again, creates the session anew (Session::Recreate), restores the latest
/// checkpoint (or runs the init op when there is none) and runs the step function again for
/// the restored step number: at most the steps since the last checkpoint are lost, and since the function
/// gets the step number, a deterministic input pipeline replays exactly those steps. Any
/// other error is returned as is. A checkpoint is written after every save_every_steps
/// steps, or when save_every_seconds have passed since the last one.
///
/// Thread-safety: one thread drives a loop.
#ifndef TENSORACT_CLIENT_TRAINING_LOOP_H_
#define TENSORACT_CLIENT_TRAINING_LOOP_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "client/saver.h"
#include "client/session.h"

namespace tensoract {

/// Where a TrainingLoop checkpoints, how often, and how long it tries to recover.
struct TrainingLoopOptions {
  std::string checkpoint_dir;          ///< checkpoints are `<dir>/model.ckpt-<step>`
  int64_t save_every_steps = 100;      ///< 0: not by steps
  int64_t save_every_seconds = 0;      ///< 0: not by time
  std::string init_op;                 ///< run when there is no checkpoint to restore
  /// How long a recovery may wait for the cluster, in milliseconds, before giving up
  /// (Unavailable).
  int64_t recovery_deadline_ms = 60 * 1000;
  /// How long a recovery waits between two attempts to recreate the session and restore,
  /// in milliseconds.
  int64_t retry_interval_ms = 250;
};

/// A training loop that checkpoints as it goes and, when a task is lost (Unavailable or
/// Aborted), recreates the session, restores the latest checkpoint and goes on from there.
class TrainingLoop {
 public:
  /// A loop running steps in `session` and checkpointing with `saver`; both must outlive it.
  TrainingLoop(Session& session, Saver& saver, TrainingLoopOptions options)
      : session_(session), saver_(saver), options_(std::move(options)) {}

  /// Restores the latest checkpoint of checkpoint_dir, or runs init_op when there is none.
  /// InvalidArgument without a checkpoint_dir; FailedPrecondition with neither a checkpoint
  /// nor an init_op.
  Status Start();
  /// Runs `step_fn` for step(), then counts the step and saves a checkpoint when one is due.
  /// On Unavailable or Aborted it recovers and runs `step_fn` again for the restored step;
  /// any other error is returned as is.
  Status Step(const std::function<Status(Session&, int64_t step)>& step_fn);

  int64_t step() const { return step_; }                 ///< steps done (restored ones included)
  int recoveries() const { return recoveries_; }        ///< how often a failure was recovered from
  /// The step of the last checkpoint saved or restored; -1 when there is none.
  int64_t last_saved_step() const { return last_saved_step_; }

 private:
  // Restore-or-init, retried until the cluster answers or the deadline passes.
  Status Recover(const Status& why);
  Status RestoreOrInit();
  Status MaybeSave();

  Session& session_;
  Saver& saver_;
  TrainingLoopOptions options_;
  int64_t step_ = 0;
  int64_t last_saved_step_ = -1;
  std::chrono::steady_clock::time_point last_save_time_ = std::chrono::steady_clock::now();
  int recoveries_ = 0;
};

/// Whether `s` is the kind of failure a TrainingLoop recovers from: Unavailable or Aborted.
bool IsRecoverable(const Status& s);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_TRAINING_LOOP_H_
