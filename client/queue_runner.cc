#include "client/queue_runner.h"

#include <chrono>

namespace tensoract {

StatusOr<std::unique_ptr<QueueRunner>> QueueRunner::Start(Session* session, const QueueRunnerSpec& spec,
                                                          Coordinator* coord) {
  if (spec.enqueue_op_names.empty()) {
    return errors::InvalidArgument("the queue runner of '", spec.queue_name, "' has no enqueue op");
  }
  std::unique_ptr<QueueRunner> runner(new QueueRunner(session, spec, coord));
  runner->live_ = static_cast<int>(spec.enqueue_op_names.size());
  for (const std::string& op : spec.enqueue_op_names) {
    runner->threads_.emplace_back([r = runner.get(), op] { r->RunEnqueue(op); });
  }
  runner->threads_.emplace_back([r = runner.get()] { r->CancelOnStop(); });
  return runner;
}

QueueRunner::~QueueRunner() {
  coord_->RequestStop();
  Join().IgnoreError();
}

void QueueRunner::RunEnqueue(const std::string& op) {
  std::vector<Tensor> none;
  RunOptions options;
  options.spin_for_reply = false;  // an enqueue into a full queue waits for the consumer
  options.inter_op_thread_pool = -1;  // the whole step on this thread (see the header)
  while (!coord_->ShouldStop()) {
    Status s = session_->Run(options, {}, {}, {op}, &none);
    if (s.ok()) continue;
    if (s.code() == error::OUT_OF_RANGE) {
      // This thread's input is exhausted; the last one to see it closes the queue.
      if (--live_ == 0 && !spec_.close_op_name.empty()) {
        session_->Run({}, {}, {spec_.close_op_name}, &none).IgnoreError();
      }
      return;
    }
    // A stop already requested explains the failure (our cancel op, a closed session).
    if (!coord_->ShouldStop()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (status_.ok()) status_ = s;
      }
      coord_->RequestStop(s);
    }
    break;
  }
  --live_;
}

void QueueRunner::CancelOnStop() {
  while (!coord_->WaitForStop(std::chrono::milliseconds(50))) {
    if (live_ == 0) return;  // every enqueue ended on its own
  }
  if (live_ > 0 && !spec_.cancel_op_name.empty()) {
    std::vector<Tensor> none;
    session_->Run({}, {}, {spec_.cancel_op_name}, &none).IgnoreError();
  }
}

Status QueueRunner::Join() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

Status StartQueueRunners(Session* session, const std::vector<QueueRunnerSpec>& runners, Coordinator* coord) {
  for (const QueueRunnerSpec& spec : runners) {
    TA_ASSIGN_OR_RETURN(std::unique_ptr<QueueRunner> runner, QueueRunner::Start(session, spec, coord));
    coord->RegisterRunner(std::move(runner));
  }
  return Status::OK();
}

}  // namespace tensoract
