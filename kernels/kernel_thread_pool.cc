#define EIGEN_USE_THREADS
#include "kernels/kernel_thread_pool.h"

#include <unsupported/Eigen/CXX11/ThreadPool>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "kernels/denormal.h"

namespace tensoract {
namespace {

// How long an idle thread polls before it sleeps. Gaps between a step's parallel kernels are
// tens to hundreds of microseconds; a millisecond covers them and costs one virtual CPU a
// millisecond after the last kernel. TENSORACT_KERNEL_SPIN_US overrides it (0: sleep at once).
std::chrono::microseconds SpinTime() {
  static const std::chrono::microseconds spin = [] {
    const char* env = std::getenv("TENSORACT_KERNEL_SPIN_US");
    return std::chrono::microseconds(env != nullptr ? std::atoll(env) : 1000);
  }();
  return spin;
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();  // leaves the core's pipeline to a hyperthread sibling doing the work
#endif
}

class KernelThreadPool final : public Eigen::ThreadPoolInterface {
 public:
  explicit KernelThreadPool(int num_threads) {
    for (int i = 0; i < num_threads; ++i) threads_.emplace_back([this, i] { Loop(i); });
  }

  ~KernelThreadPool() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void Schedule(std::function<void()> fn) override {
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(fn));
      queued_.store(queue_.size(), std::memory_order_release);
      // A polling thread takes one task; more need sleepers woken.
      wake = sleepers_ > 0 && queue_.size() > static_cast<size_t>(polling_);
    }
    if (wake) cv_.notify_one();
  }

  int NumThreads() const override { return static_cast<int>(threads_.size()); }

  int CurrentThreadId() const override { return current_pool_ == this ? current_id_ : -1; }

 private:
  void Loop(int id) {
    FlushDenormalsOnThisThread();
    current_pool_ = this;
    current_id_ = id;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (!queue_.empty()) {
        std::function<void()> task = std::move(queue_.front());
        queue_.pop_front();
        queued_.store(queue_.size(), std::memory_order_release);
        lock.unlock();
        task();
        task = nullptr;  // its captures die outside the lock
        lock.lock();
        continue;
      }
      if (stopping_) return;
      if (polling_ == 0 && SpinTime().count() > 0) {
        ++polling_;
        lock.unlock();
        Poll();
        lock.lock();
        --polling_;
        continue;  // the queue or stopping_ may have changed
      }
      ++sleepers_;
      cv_.wait(lock);
      --sleepers_;
    }
  }

  // Returns when a task is queued, the pool is stopping, or SpinTime() has passed.
  void Poll() {
    const auto deadline = std::chrono::steady_clock::now() + SpinTime();
    for (int i = 1; queued_.load(std::memory_order_acquire) == 0; ++i) {
      CpuRelax();
      if (i % 64 == 0) {
        if (std::chrono::steady_clock::now() > deadline) return;
        if (stopping_.load(std::memory_order_relaxed)) return;
        // Gives the CPU to any other runnable thread (a kernel, an actor) on this one.
        std::this_thread::yield();
      }
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  std::atomic<size_t> queued_{0};            // queue_.size(), for polling without mu_
  std::atomic<bool> stopping_{false};  // set under mu_, so a sleeper cannot miss it
  int polling_ = 0;        // guarded by mu_
  int sleepers_ = 0;       // guarded by mu_
  std::vector<std::thread> threads_;
  static thread_local const KernelThreadPool* current_pool_;
  static thread_local int current_id_;
};

thread_local const KernelThreadPool* KernelThreadPool::current_pool_ = nullptr;
thread_local int KernelThreadPool::current_id_ = -1;

}  // namespace

std::unique_ptr<Eigen::ThreadPoolInterface> NewKernelThreadPool(int num_threads) {
  return std::make_unique<KernelThreadPool>(num_threads < 1 ? 1 : num_threads);
}

}  // namespace tensoract
