#include "kernels/cancellation.h"

#include <utility>
#include <vector>

namespace tensoract {

bool CancellationManager::Register(Token* token, std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return false;
  *token = next_++;
  callbacks_.emplace(*token, std::move(callback));
  return true;
}

bool CancellationManager::Deregister(Token token) {
  std::lock_guard<std::mutex> lock(mu_);
  return callbacks_.erase(token) > 0;
}

void CancellationManager::StartCancel() {
  std::map<Token, std::function<void()>> to_run;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    to_run.swap(callbacks_);
  }
  for (auto& entry : to_run) entry.second();
}

bool CancellationManager::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

}  // namespace tensoract
