/// @file
/// MonitoredSession: a session that prepares itself, runs hooks around every step, keeps its
/// input pipeline's queue runners going, and ends cleanly (TensorFlow 1's
/// tf.train.MonitoredSession / MonitoredTrainingSession).
///
/// @code
///   MonitoredSessionOptions options;
///   options.is_chief = task == 0;
///   options.checkpoint_dir = "train";
///   options.scaffold = {.init_op = "init", .local_init_op = "local_init", .ready_op = "ready",
///                       .saver = &saver};
///   options.queue_runners = pipeline.queue_runners;
///   options.hooks = {std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep("global_step", 10000))};
///   TA_ASSIGN_OR_RETURN(auto monitored, MonitoredSession::New(session.get(), options));
///   while (!monitored->ShouldStop()) monitored->Run({}, {"loss"}, {"train"}, &out);  // OutOfRange ends it
///   TA_RETURN_IF_ERROR(monitored->Close());
/// @endcode
///
/// Creation, as TensorFlow's SessionManager does it:
/// - chief: restores the latest checkpoint of checkpoint_dir, or runs init_op when
///   there is none; then the local init op; then checks ready_op.
/// - non-chief: waits (polling every recovery_wait_ms, up to max_wait_ms) until
///   ready_for_local_init_op says the chief has restored or initialised what
///   the local init needs (without one: until ready_op is ready), then runs the
///   local init op, then checks ready_op.
///
/// A local init op runs only once ready_for_local_init_op is ready, for the chief too
/// (FailedPrecondition naming what is missing otherwise).
/// ready_op is a fetch: a string vector of the uninitialised variables' names
/// (ReportUninitializedVariables; empty means ready), or a bool vector (all true means
/// ready). Then the queue runners start under the session's Coordinator, and every hook's
/// AfterCreateSession runs.
///
/// Run runs the caller's fetches and targets with every hook's extra ones. When it fails
/// with OutOfRange (the input pipeline is exhausted) or a hook requested a stop, ShouldStop
/// becomes true; OutOfRange is returned to the caller but is not an error for Close. When it
/// fails with Unavailable or Aborted (a task was lost), the session is recreated (Session::
/// Recreate), prepared again (restoring the latest checkpoint) and its queue runners
/// restarted, and the Run is retried, as TensorFlow's _RecoverableSession does.
///
/// Thread-safety: one thread drives it.
#ifndef TENSORACT_CLIENT_MONITORED_SESSION_H_
#define TENSORACT_CLIENT_MONITORED_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "client/coordinator.h"
#include "client/saver.h"
#include "client/session.h"
#include "client/session_run_hooks.h"
#include "graph/training/input.h"

namespace tensoract {

/// How a session is prepared (TensorFlow's Scaffold), by node names.
struct Scaffold {
  std::string init_op;        ///< run by the chief when there is no checkpoint to restore
  std::string local_init_op;  ///< run by every session after it is ready (local variables)
  std::string ready_op;       ///< see monitored_session.h; empty: always ready
  /// What must be ready before local_init_op may run (TensorFlow's: the uninitialised
  /// global variables, while ready_op also covers the local ones the local init makes);
  /// empty: no condition (then a non-chief waits for ready_op before its local init).
  std::string ready_for_local_init_op;
  Saver* saver = nullptr;     ///< restores checkpoints (chief); none: always init_op
};

/// What a MonitoredSession prepares, runs around each step and recovers from.
struct MonitoredSessionOptions {
  /// Whether this task initialises or restores the model (TensorFlow's chief); the others
  /// wait until the chief has.
  bool is_chief = true;
  std::string checkpoint_dir;  ///< where the chief restores from ("" : never restores)
  /// How the session is prepared.
  Scaffold scaffold;
  /// Hooks called at New (Begin, then AfterCreateSession once prepared), around every Run
  /// (BeforeRun adds fetches and targets, AfterRun sees their values) and at Close (End).
  std::vector<std::shared_ptr<SessionRunHook>> hooks;
  /// The input pipeline's queue runners, started under coordinator() once the session is
  /// ready, and restarted after a recovery.
  std::vector<QueueRunnerSpec> queue_runners;
  int64_t recovery_wait_ms = 200;  ///< a non-chief's poll interval while the chief prepares
  /// How long a non-chief waits for the chief, in milliseconds, before DeadlineExceeded.
  int64_t max_wait_ms = 120 * 1000;
  int max_recoveries = 10;  ///< Unavailable/Aborted recoveries before giving up
};

/// A Session wrapper that prepares the model, runs hooks around every step, keeps the
/// queue runners going and recovers from lost tasks (tf.compat.v1.train.MonitoredSession).
class MonitoredSession {
 public:
  /// Prepares `session` (which must outlive this and hold the graph) as monitored_session.h
  /// describes, after calling every hook's Begin.
  static StatusOr<std::unique_ptr<MonitoredSession>> New(Session* session, MonitoredSessionOptions options);
  ~MonitoredSession();

  /// Runs `fetches` and `targets` with `feeds`, together with the hooks' extra fetches and
  /// targets, and puts the caller's fetched values in `outputs` (may be null). OutOfRange
  /// (the input is exhausted) ends the session; Unavailable or Aborted recreates and
  /// prepares it again and retries, up to max_recoveries times in all.
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, std::vector<Tensor>* outputs);
  /// Whether training should end: a Run hit OutOfRange, a hook requested a stop, or the
  /// coordinator was asked to stop.
  bool ShouldStop() const;
  /// Ends the hooks (each hook's End), stops and joins the queue runners. OK after an
  /// OutOfRange end; the first error of a hook's End or a runner otherwise. Later calls: OK.
  Status Close();

  /// The coordinator of the queue runners while the session is prepared: replaced at each
  /// recovery, null before the first Run prepares the session and after Close.
  Coordinator* coordinator() { return coord_.get(); }
  /// The wrapped session, to run without the hooks or recovery.
  Session& raw_session() { return *session_; }
  /// How many times Run recovered from Unavailable or Aborted.
  int recoveries() const { return recoveries_; }

 private:
  MonitoredSession(Session* session, MonitoredSessionOptions options)
      : session_(session), options_(std::move(options)) {}
  Status Prepare();  // restore-or-init / wait, local init, runners, AfterCreateSession
  Status WaitUntilReady(const std::string& op);
  StatusOr<std::string> NotReadyReason(const std::string& op);  // "" when ready (or no op)
  Status StopRunners();

  Session* session_;
  MonitoredSessionOptions options_;
  std::unique_ptr<Coordinator> coord_;
  bool stop_ = false;
  bool input_exhausted_ = false;
  bool closed_ = false;
  int recoveries_ = 0;
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_MONITORED_SESSION_H_
