#include "client/coordinator.h"

namespace tensoract {

Coordinator::~Coordinator() {
  RequestStop();
  Join().IgnoreError();
}

void Coordinator::RequestStop(const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) return;
  if (!IsCleanStop(why) && status_.ok()) status_ = why;
  stop_ = true;
  stopped_.notify_all();
}

bool Coordinator::ShouldStop() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

bool Coordinator::WaitForStop(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return stopped_.wait_for(lock, timeout, [this] { return stop_; });
}

void Coordinator::ReportStatus(const Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!IsCleanStop(status) && status_.ok()) status_ = status;
}

Status Coordinator::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void Coordinator::RegisterRunner(std::unique_ptr<RunnerInterface> runner) {
  std::lock_guard<std::mutex> lock(mu_);
  runners_.push_back(std::move(runner));
}

Status Coordinator::Join() {
  if (!ShouldStop()) {
    return errors::FailedPrecondition("Joining a coordinator without requesting it to stop (RequestStop first: its "
                                      "runners may never end on their own)");
  }
  std::vector<std::unique_ptr<RunnerInterface>> runners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    runners.swap(runners_);
  }
  for (auto& runner : runners) ReportStatus(runner->Join());
  return status();
}

}  // namespace tensoract
