// The CPU device's kernel threads.
//
// A FIFO task queue served by a fixed set of threads. A thread that runs out of work polls
// the queue for a while (kernel_thread_pool.cc says how long) before it sleeps, and at most
// one thread of a pool polls at a time: a training step hands its threads a kernel every
// few hundred microseconds, and a thread that went to sleep in between costs a futex
// wake-up per kernel and, on a VM, a halted virtual CPU the hypervisor gives away and
// hands back late (OpenMP, under PyTorch and MKL, polls for the same reason).
//
// Thread-safety: every method may be called from any thread.
#ifndef TENSORACT_KERNELS_KERNEL_THREAD_POOL_H_
#define TENSORACT_KERNELS_KERNEL_THREAD_POOL_H_

#include <memory>

namespace Eigen {
class ThreadPoolInterface;
}  // namespace Eigen

namespace tensoract {

// `num_threads` threads (at least 1) that start with denormals flushed to zero. Destroying
// the pool runs the tasks still queued, then joins the threads.
std::unique_ptr<Eigen::ThreadPoolInterface> NewKernelThreadPool(int num_threads);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_KERNEL_THREAD_POOL_H_
