/// @file
/// QueueRunner: the threads that keep an input pipeline's queue filled (TensorFlow's
/// tf.train.QueueRunner), driven by a QueueRunnerSpec that the input builders
/// (graph/training/input.h) or a TensorFlow graph's queue_runners collection describe.
///
/// Each enqueue op gets a thread that runs it in the session again and again. An enqueue
/// failing with OutOfRange (the epoch counter ran out, or the queue it reads from is closed
/// and empty) ends its thread; when the last one ends, the close op runs, so the consumers
/// drain the queue and then see OutOfRange: the cascade that ends training cleanly after
/// the last epoch. Any other error is reported to the Coordinator, which stops everything.
/// When the coordinator stops, the cancel op runs once, failing enqueues blocked on a full
/// queue, so every thread ends promptly.
///
/// A runner's step runs whole on its own thread (RunOptions::inter_op_thread_pool -1): its
/// kernels (a reader inflating a file, a batch's conversion) never wait in, or hold, the
/// device's threads that the training step's kernels use; the operating system shares the
/// cores between them. (Fashion-MNIST's input pipeline alone: 8-10% less CPU and a third
/// fewer context switches than with its kernels handed to the device's threads.)
///
/// Thread-safety: Start once; Join from one thread (the Coordinator's).
#ifndef TENSORACT_CLIENT_QUEUE_RUNNER_H_
#define TENSORACT_CLIENT_QUEUE_RUNNER_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "client/coordinator.h"
#include "client/session.h"
#include "graph/training/input.h"

namespace tensoract {

/// The threads that run one queue's enqueue ops again and again, then its close op, and
/// its cancel op when the Coordinator stops (tf.compat.v1.train.QueueRunner).
class QueueRunner : public RunnerInterface {
 public:
  /// Starts the runner's threads on `session` (which must outlive it); `coord` must too.
  /// InvalidArgument when `spec` has no enqueue op.
  static StatusOr<std::unique_ptr<QueueRunner>> Start(Session* session, const QueueRunnerSpec& spec,
                                                      Coordinator* coord);
  ~QueueRunner() override;

  Status Join() override;
  bool IsRunning() const override { return live_ > 0; }

 private:
  QueueRunner(Session* session, QueueRunnerSpec spec, Coordinator* coord)
      : session_(session), spec_(std::move(spec)), coord_(coord) {}
  void RunEnqueue(const std::string& op);
  void CancelOnStop();

  Session* session_;
  const QueueRunnerSpec spec_;
  Coordinator* coord_;
  std::atomic<int> live_{0};  // enqueue threads still running
  std::vector<std::thread> threads_;
  std::mutex mu_;
  Status status_;  // the first error of a thread
};

/// Starts every runner in `runners`, registering each with `coord` (which joins them).
Status StartQueueRunners(Session* session, const std::vector<QueueRunnerSpec>& runners, Coordinator* coord);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_QUEUE_RUNNER_H_
