#include "kernels/parallel_team.h"

#include <chrono>

#include "kernels/denormal.h"

namespace tensoract {
namespace {

// How long a helper polls for the next loop before it sleeps. EfficientNetB0 in bfloat16 at
// batch 1 on two threads: medians 6.6-8.1 ms against 7.7-10.9 with the pool's threads (four
// alternations, a Zen 4); MLP training at batch 512, 404-411 against 345-378 steps/s: a
// helper polling beside kernels the executor runs on both cores did not cost them.
constexpr auto kPollBeforeSleep = std::chrono::microseconds(300);
// After this much of it, a poll also yields the core to whatever else the machine has ready
// to run there (another process's kernels: a cluster lab of workers on two cores).
constexpr auto kPollWithoutYield = std::chrono::microseconds(50);

}  // namespace

ParallelTeam::ParallelTeam(int helpers) {
  for (int i = 0; i < helpers; ++i) threads_.emplace_back([this] { Work(); });
}

ParallelTeam::~ParallelTeam() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool ParallelTeam::TryPost(std::function<void()> share) {
  if (threads_.empty() || busy_.exchange(true, std::memory_order_acquire)) return false;
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    share_ = std::move(share);
    posted_.fetch_add(1, std::memory_order_release);
    wake = sleeping_ > 0;
  }
  if (wake) wake_.notify_all();
  return true;
}

void ParallelTeam::Done() { busy_.store(false, std::memory_order_release); }

void ParallelTeam::Work() {
  FlushDenormalsOnThisThread();  // it runs kernels' code, as the pool's threads do
  uint64_t seen = 0;
  for (;;) {
    // Poll, then sleep, until a loop newer than the last one run is posted.
    const auto start = std::chrono::steady_clock::now();
    bool yielding = false;
    for (int i = 1; posted_.load(std::memory_order_acquire) == seen; ++i) {
      if (yielding) {
        std::this_thread::yield();
      } else {
        CpuRelax();
      }
      if (yielding || i % 64 == 0) {  // a yield is a system call: the clock costs little beside it
        const auto polled = std::chrono::steady_clock::now() - start;
        if (polled > kPollBeforeSleep) break;
        yielding = polled > kPollWithoutYield;
      }
    }
    std::function<void()> share;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (posted_.load(std::memory_order_relaxed) == seen && !stop_) {
        ++sleeping_;
        wake_.wait(lock, [&] { return posted_.load(std::memory_order_relaxed) != seen || stop_; });
        --sleeping_;
      }
      if (stop_) return;
      seen = posted_.load(std::memory_order_relaxed);
      share = share_;
    }
    share();
  }
}

}  // namespace tensoract
