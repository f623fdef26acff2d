// ParallelTeam: the threads that join a kernel's parallel loop (CwiseParallelFor) on a CPU
// device, one fewer than the device has, kept awake between loops.
//
// A loop's caller posts it and runs its own share; each helper runs what is left. Between two
// loops a helper polls for the next one for a while before it sleeps, as OpenMP's and TBB's
// workers do: a batch-1 step of a CNN is a chain of ~100 loops tens of microseconds apart,
// and a thread asleep takes 20-50 us to wake on a VM. The device's pool (Device::Schedule)
// hands a loop to whichever of its threads is free, and they take turns, so the share of
// an image each thread computed last layer was often in the other core's cache; the team's
// helper is the same thread every time.
//
// One loop at a time: a caller that finds the team busy (kernels running concurrently, or
// a loop inside a loop) gets false from TryPost and hands its helpers' work to the pool.
#ifndef TENSORACT_KERNELS_PARALLEL_TEAM_H_
#define TENSORACT_KERNELS_PARALLEL_TEAM_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tensoract {

// A spin-wait's pause: yields the core's pipeline to a hyperthread sibling doing the work.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class ParallelTeam {
 public:
  // Starts `helpers` threads (none when 0).
  explicit ParallelTeam(int helpers);
  ~ParallelTeam();
  ParallelTeam(const ParallelTeam&) = delete;
  ParallelTeam& operator=(const ParallelTeam&) = delete;

  int helpers() const { return static_cast<int>(threads_.size()); }

  // Has every helper call `share` once (each claims its own part of the loop: a late one may
  // find none left and return at once), unless another caller's loop holds the team: then
  // false, and nothing runs. After true, the caller must call Done() once its loop is over
  // (every part finished): `share` must not touch what the loop's caller owns after that,
  // as a helper may start it late.
  bool TryPost(std::function<void()> share);
  void Done();

 private:
  void Work();

  std::atomic<bool> busy_{false};
  std::atomic<uint64_t> posted_{0};  // loops posted: a helper's cue
  std::mutex mu_;
  std::condition_variable wake_;
  std::function<void()> share_;  // the latest loop's, under mu_
  int sleeping_ = 0;             // under mu_
  bool stop_ = false;            // under mu_
  std::vector<std::thread> threads_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_PARALLEL_TEAM_H_
