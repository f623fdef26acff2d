/// @file
/// Coordinator: stops a group of threads together and reports why (TensorFlow's
/// tf.train.Coordinator and its C++ counterpart).
///
/// @code
///   Coordinator coord;
///   coord.RegisterRunner(std::move(queue_runner));  // started already (client/queue_runner.h)
///   while (!coord.ShouldStop()) {
///     Status s = session->Run({}, {}, {"train"}, &out);
///     if (!s.ok()) coord.RequestStop(s);             // OutOfRange: the input ended, a clean stop
///   }
///   coord.RequestStop();
///   Status first_error = coord.Join();
/// @endcode
///
/// The first RequestStop wins: its status is what Join reports, unless it is OutOfRange
/// (the end of the input, which ends training normally) or OK. Runners stop when they see
/// ShouldStop or when their session fails them (a queue runner's cancel op releases
/// enqueues blocked on a full queue).
///
/// Thread-safety: every method may be called from any
/// thread; Join from one.
#ifndef TENSORACT_CLIENT_COORDINATOR_H_
#define TENSORACT_CLIENT_COORDINATOR_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "base/status.h"

namespace tensoract {

/// Something with threads a Coordinator joins.
class RunnerInterface {
 public:
  virtual ~RunnerInterface() = default;
  /// Waits for the runner's threads to end; the first error they hit.
  virtual Status Join() = 0;
  /// Whether any of the runner's threads is still running.
  virtual bool IsRunning() const = 0;
};

/// Stops a group of threads together and keeps the first error that stopped them
/// (tf.train.Coordinator).
class Coordinator {
 public:
  Coordinator() = default;
  ~Coordinator();  ///< requests a stop and joins what is still registered

  /// Asks every thread to stop. `why`: the error that made it necessary (recorded if it is
  /// the first and not OK or OutOfRange).
  void RequestStop(const Status& why = Status::OK());
  /// Whether a stop has been requested.
  bool ShouldStop() const;
  /// Whether a stop was requested within `timeout`.
  bool WaitForStop(std::chrono::milliseconds timeout) const;
  /// Records an error without being the one that stops (a runner's, for Join to report).
  /// OK and OutOfRange are not recorded, nor anything after the first error.
  void ReportStatus(const Status& status);
  /// The first error recorded so far; OK when none.
  Status status() const;

  /// Hands `runner` (started already) to the coordinator, which joins it in Join.
  void RegisterRunner(std::unique_ptr<RunnerInterface> runner);
  /// Waits for every registered runner and returns the first error recorded (by
  /// RequestStop, ReportStatus or a runner's Join). FailedPrecondition when no stop was
  /// requested (TensorFlow's C++ rule: the runners might never end).
  Status Join();

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable stopped_;
  bool stop_ = false;
  Status status_;
  std::vector<std::unique_ptr<RunnerInterface>> runners_;
};

/// True for OK and for the status that ends an input cleanly: OutOfRange.
inline bool IsCleanStop(const Status& s) { return s.ok() || s.code() == error::OUT_OF_RANGE; }

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_COORDINATOR_H_
