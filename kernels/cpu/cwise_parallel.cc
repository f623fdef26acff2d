// CwiseParallelFor: the element-wise kernels' split of large tensors over the device's threads.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/parallel_team.h"

namespace tensoract {
namespace {

// Below this much work (elements times cycles each) a thread hop costs more than it saves.
constexpr int64_t kMinParallelCost = 64 * 1024;
// Per chunk, so a chunk is worth handing to another thread.
constexpr int64_t kMinChunkCost = 16 * 1024;

// How long the calling thread polls for the helpers' last chunk before it sleeps. The
// chunks are even, so the helpers usually finish within microseconds of the caller; a
// futex sleep and wake-up costs tens of microseconds on a VM, several times per training
// step, where OpenMP-based peers spin. (MLP training at batch 512 on two dedicated cores:
// 294 -> 328 steps/s, medians of 4 alternations. Every idle pool thread polling for 1 ms
// as well lost: 226, pollers took CPUs the step's working threads needed; the device's
// team, one helper fewer than the cores, polls between loops and gains: ParallelTeam.)
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(100);

// Shared with the helpers (the team's or the pool's), which may start after the kernel has
// returned (they then find no chunk left and touch nothing else).
struct Work {
  const FunctionRef<void(int64_t, int64_t)>* fn = nullptr;
  int64_t n = 0, chunk = 0, chunks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex mu;  // only for the caller's sleep once it stops polling
  std::condition_variable cv;

  // Runs chunks until none is left unclaimed.
  void RunChunks() {
    for (int64_t c; (c = next.fetch_add(1)) < chunks;) {
      const int64_t b = c * chunk;
      (*fn)(b, std::min(n, b + chunk));
      if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) {
        // Taking the lock orders this notify after a caller's check of `done` under it.
        std::lock_guard<std::mutex> lock(mu);
        cv.notify_all();
      }
    }
  }

  bool Finished() const { return done.load(std::memory_order_acquire) == chunks; }

  // Returns once every chunk is done: polls for kSpinBeforeSleep, then sleeps.
  void Wait() {
    const auto deadline = std::chrono::steady_clock::now() + kSpinBeforeSleep;
    for (int i = 1; !Finished(); ++i) {
      CpuRelax();
      if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return Finished(); });
        return;
      }
    }
  }
};

}  // namespace

void CwiseParallelFor(OpKernelContext* ctx, int64_t n, int64_t cost_per_element,
                      FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  Device* device = ctx->device();
  const int64_t cost = std::max<int64_t>(cost_per_element, 1);
  const int threads = device == nullptr ? 1 : device->num_threads();
  if (threads <= 1 || n * cost < kMinParallelCost) {
    fn(0, n);
    return;
  }
  // A few chunks per thread, so an uneven start (a busy thread) still balances.
  const int64_t max_chunks = std::max<int64_t>(1, n * cost / kMinChunkCost);
  const int64_t chunks = std::min<int64_t>(max_chunks, 4 * threads);
  auto work = std::make_shared<Work>();
  work->fn = &fn;
  work->n = n;
  work->chunk = (n + chunks - 1) / chunks;
  work->chunks = (n + work->chunk - 1) / work->chunk;
  // The device's team when no other loop holds it, else its pool's threads.
  ParallelTeam* team = device->parallel_team();
  const bool posted = team != nullptr && team->TryPost([work] { work->RunChunks(); });
  if (!posted) {
    const int helpers = static_cast<int>(std::min<int64_t>(threads, work->chunks) - 1);
    for (int i = 0; i < helpers; ++i) device->Schedule([work] { work->RunChunks(); });
  }
  work->RunChunks();
  work->Wait();
  if (posted) team->Done();
}

std::string CwiseNodeContext(const OpKernel& kernel) {
  return StrCat("node '", kernel.name(), "' (op '", kernel.type_string(), "')");
}

Status SimpleBinaryOutput(OpKernelContext* ctx, const OpKernel& kernel, Tensor** out) {
  const Tensor& a = ctx->input(0);
  const Tensor& b = ctx->input(1);
  if (a.NumElements() != b.NumElements()) {
    return errors::InvalidArgument(CwiseNodeContext(kernel),
                                   ": The two arguments to a cwise op must have same number of elements, got ",
                                   a.NumElements(), " and ", b.NumElements());
  }
  return ctx->forward_input_or_allocate_output({0, 1}, 0, a.shape(), out);
}

}  // namespace tensoract
