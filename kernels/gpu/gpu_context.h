// GpuContext: one CUDA GPU as the runtime uses it, shared by every device object that
// names it in the process (a worker per session makes its own GpuDevice; all of them run
// on the GPU's one context).
//
// It owns three CUDA streams: compute (every kernel, in launch order), host-to-device and
// device-to-host copies; a cuBLAS handle bound to the compute stream; and two BFC
// allocators: the GPU's memory (grown by regions up to the process's limit) and pinned
// host memory for copies. Kernels enqueue on the compute stream and return: the executor
// sees a GPU kernel finish when it has been launched, and stream order makes its outputs
// ready for the kernels launched after it. Only a copy to the host must be waited for;
// CopyToHost calls back (from CUDA's callback thread) when the bytes are there, and the
// caller turns that into a message (the GPU _Send does).
//
// Ordering between streams uses events: a copy to the GPU first waits for the compute
// stream (its destination may be memory a queued kernel still reads: freed chunks are
// reused at once), and the compute stream waits for the copy; a copy to the host waits
// for the compute stream. The tensors a copy reads or writes are held until it finishes.
//
// Errors: a failed launch or copy is a Status naming what failed and CUDA's words; a
// sticky error (the context is broken) marks the GPU failed, and every later step on it
// fails at once instead of waiting for callbacks that never come.
//
// Thread-safety: every method may be called from any thread.
#ifndef TENSORACT_KERNELS_GPU_GPU_CONTEXT_H_
#define TENSORACT_KERNELS_GPU_GPU_CONTEXT_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/bfc_allocator.h"
#include "kernels/device.h"
#include "kernels/tensor.h"

namespace tensoract {
namespace gpu {

// What the probe read of one GPU.
struct GpuInfo {
  int ordinal = 0;
  std::string name;
  int64_t total_memory = 0;
  int64_t free_memory = 0;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::string pci_bus_id;
};

// The GPUs CUDA sees, read once per process; empty without a driver or a GPU (and then
// nothing else of CUDA is touched). `error` gets CUDA's reason for none, if any.
const std::vector<GpuInfo>& ProbeGpus(std::string* error = nullptr);

// A Status for a CUDA error: Internal "<what>: <CUDA's name>: <CUDA's words>".
Status CudaError(cudaError_t e, const std::string& what);

class GpuContext {
 public:
  // The process's context for GPU `ordinal`, made on first use with `options`' memory
  // limit (later calls get the same context whatever their options).
  static StatusOr<GpuContext*> Get(int ordinal, const GpuDeviceOptions& options);

  const GpuInfo& info() const { return info_; }
  cudaStream_t compute_stream() const { return compute_; }
  Allocator* device_allocator() { return device_allocator_.get(); }
  int64_t memory_limit() const { return static_cast<int64_t>(memory_limit_); }
  Allocator* pinned_allocator() { return pinned_allocator_.get(); }

  // Makes this GPU current on the calling thread (CUDA's runtime keeps it per thread).
  void Activate() const;

  // After launching kernels for `node`: the launch error, if any, as a Status naming the
  // node (and marking the GPU failed when the error is sticky).
  Status CheckLaunch(const std::string& node);
  // FailedPrecondition naming the first sticky error once the GPU has one, else OK.
  Status health() const;

  // cuBLAS calls go through here: the handle is not for two threads at once.
  template <class Fn>
  Status WithCublas(const std::string& node, Fn&& fn) {
    std::lock_guard<std::mutex> lock(cublas_mu_);
    Activate();
    cublasStatus_t s = fn(cublas_);
    if (s != CUBLAS_STATUS_SUCCESS) {
      return errors::Internal("node '", node, "': cuBLAS failed: ", cublasGetStatusString(s));
    }
    return CheckLaunch(node);
  }

  // Copies host memory into `dst` (a tensor of this GPU, same size) on the copy stream;
  // kernels launched after this returns see the bytes. `src` is held until the copy ends;
  // pageable memory is staged through pinned memory first.
  Status CopyToDevice(const Tensor& src, const Tensor& dst);
  // Copies `src` (on this GPU) to a new pinned host tensor and calls `done` with it, from
  // CUDA's callback thread, once the bytes are there (or with the error).
  using HostDone = std::function<void(const Status&, const Tensor&)>;
  void CopyToHost(const Tensor& src, HostDone done);
  // A copy within the GPU on the compute stream.
  Status CopyOnGpu(const Tensor& src, const Tensor& dst);
  // Blocks until everything queued on every stream has run (tests, constants at
  // registration, shutdown); the Status of the first failure.
  Status Synchronize();

  // Scratch device memory for one kernel (cuBLAS workspaces, staging): a tensor of
  // `bytes` bytes, freed when the last reference goes.
  StatusOr<Tensor> Scratch(int64_t bytes);

 private:
  GpuContext(GpuInfo info, size_t memory_limit);
  Status Init();
  // Runs `fn` on `stream`'s host-callback thread after everything queued before it.
  Status OnHost(cudaStream_t stream, std::function<void()> fn);
  // `waiter` waits for what is queued on `signaller` now.
  Status StreamWait(cudaStream_t waiter, cudaStream_t signaller);

  GpuInfo info_;
  size_t memory_limit_;
  cudaStream_t compute_ = nullptr, h2d_ = nullptr, d2h_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  Tensor cublas_workspace_;
  std::mutex cublas_mu_;
  std::unique_ptr<BFCAllocator> device_allocator_, pinned_allocator_;
  mutable std::mutex error_mu_;
  std::string sticky_error_;  // empty while the GPU is healthy
};

}  // namespace gpu
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_GPU_GPU_CONTEXT_H_
