#include "kernels/gpu/gpu_context.h"

#include <cstring>
#include <map>

namespace tensoract {
namespace gpu {
namespace {

class DeviceMemory : public SubAllocator {
 public:
  explicit DeviceMemory(int ordinal) : ordinal_(ordinal) {}
  void* Alloc(size_t bytes) override {
    cudaSetDevice(ordinal_);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it
      return nullptr;
    }
    return p;
  }
  void Free(void* p, size_t) override {
    cudaSetDevice(ordinal_);
    cudaFree(p);
  }

 private:
  int ordinal_;
};

class PinnedMemory : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void Free(void* p, size_t) override { cudaFreeHost(p); }
};

// Errors after which the context cannot be used again (CUDA's "sticky" errors).
bool IsSticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

constexpr size_t kPinnedLimit = size_t{4} << 30;
constexpr int64_t kCublasWorkspaceBytes = int64_t{32} << 20;

}  // namespace

Status CudaError(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return Status::OK();
  return errors::Internal(what, ": ", cudaGetErrorName(e), ": ", cudaGetErrorString(e));
}

const std::vector<GpuInfo>& ProbeGpus(std::string* error) {
  struct Probe {
    std::vector<GpuInfo> gpus;
    std::string error;
  };
  static const Probe* const kProbe = [] {
    auto* p = new Probe;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      p->error = StrCat(cudaGetErrorName(e), ": ", cudaGetErrorString(e));
      cudaGetLastError();
      return p;
    }
    for (int i = 0; i < n; ++i) {
      cudaDeviceProp prop;
      if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
      GpuInfo g;
      g.ordinal = i;
      g.name = prop.name;
      g.total_memory = static_cast<int64_t>(prop.totalGlobalMem);
      g.compute_major = prop.major;
      g.compute_minor = prop.minor;
      g.multiprocessors = prop.multiProcessorCount;
      char bus[32] = {0};
      if (cudaDeviceGetPCIBusId(bus, sizeof(bus), i) == cudaSuccess) g.pci_bus_id = bus;
      p->gpus.push_back(g);
    }
    return p;
  }();
  if (error != nullptr) *error = kProbe->error;
  return kProbe->gpus;
}

StatusOr<GpuContext*> GpuContext::Get(int ordinal, const GpuDeviceOptions& options) {
  static std::mutex mu;
  static auto* contexts = new std::map<int, GpuContext*>;  // never destroyed: tensors may outlive main
  std::lock_guard<std::mutex> lock(mu);
  auto it = contexts->find(ordinal);
  if (it != contexts->end()) return it->second;
  const auto& gpus = ProbeGpus();
  const GpuInfo* info = nullptr;
  for (const GpuInfo& g : gpus) {
    if (g.ordinal == ordinal) info = &g;
  }
  if (info == nullptr) return errors::NotFound("there is no GPU ", ordinal, " (CUDA sees ", gpus.size(), ")");
  GpuInfo with_free = *info;
  cudaSetDevice(ordinal);
  size_t free_bytes = 0, total_bytes = 0;
  TA_RETURN_IF_ERROR(CudaError(cudaMemGetInfo(&free_bytes, &total_bytes), StrCat("reading GPU ", ordinal, "'s memory")));
  with_free.free_memory = static_cast<int64_t>(free_bytes);
  size_t limit = static_cast<size_t>(free_bytes * 0.9);
  if (options.memory_limit_bytes > 0) {
    limit = static_cast<size_t>(options.memory_limit_bytes);
  } else if (options.memory_fraction > 0) {
    limit = static_cast<size_t>(total_bytes * options.memory_fraction);
  }
  if (limit > free_bytes) limit = free_bytes;
  auto* ctx = new GpuContext(with_free, limit);
  Status s = ctx->Init();
  if (!s.ok()) return s.WithContext(StrCat("setting up GPU ", ordinal));
  (*contexts)[ordinal] = ctx;
  return ctx;
}

GpuContext::GpuContext(GpuInfo info, size_t memory_limit) : info_(std::move(info)), memory_limit_(memory_limit) {}

Status GpuContext::Init() {
  Activate();
  TA_RETURN_IF_ERROR(CudaError(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking), "compute stream"));
  TA_RETURN_IF_ERROR(CudaError(cudaStreamCreateWithFlags(&h2d_, cudaStreamNonBlocking), "host-to-device stream"));
  TA_RETURN_IF_ERROR(CudaError(cudaStreamCreateWithFlags(&d2h_, cudaStreamNonBlocking), "device-to-host stream"));
  cublasStatus_t cs = cublasCreate(&cublas_);
  if (cs != CUBLAS_STATUS_SUCCESS) return errors::Internal("cublasCreate: ", cublasGetStatusString(cs));
  cublasSetStream(cublas_, compute_);
  BFCAllocator::Options device;
  device.name = StrCat("GPU_", info_.ordinal, "_bfc");
  device.memory_limit = memory_limit_;
  device.initial_region_bytes = std::min<size_t>(memory_limit_, size_t{256} << 20);
  device_allocator_ = std::make_unique<BFCAllocator>(std::make_unique<DeviceMemory>(info_.ordinal), device);
  BFCAllocator::Options pinned;
  pinned.name = StrCat("GPU_", info_.ordinal, "_pinned_host");
  pinned.memory_limit = kPinnedLimit;
  pinned.initial_region_bytes = size_t{16} << 20;
  pinned.host_memory = true;
  pinned_allocator_ = std::make_unique<BFCAllocator>(std::make_unique<PinnedMemory>(), pinned);
  // cuBLAS picks faster GEMM kernels (split-K among them) with a workspace; 32 MiB is what
  // Hopper's kernels want (PyTorch gives it the same).
  auto workspace = Scratch(kCublasWorkspaceBytes);
  if (workspace.ok()) {
    cublas_workspace_ = std::move(workspace).value();
    cublasSetWorkspace(cublas_, cublas_workspace_.data(), kCublasWorkspaceBytes);
  }
  return Status::OK();
}

void GpuContext::Activate() const { cudaSetDevice(info_.ordinal); }

Status GpuContext::health() const {
  std::lock_guard<std::mutex> lock(error_mu_);
  if (sticky_error_.empty()) return Status::OK();
  return errors::FailedPrecondition("GPU ", info_.ordinal, " (", info_.name, ") failed earlier and cannot run more work: ",
                                    sticky_error_);
}

Status GpuContext::CheckLaunch(const std::string& node) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return Status::OK();
  Status s = CudaError(e, StrCat("node '", node, "' on GPU ", info_.ordinal));
  if (IsSticky(e)) {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (sticky_error_.empty()) sticky_error_ = s.message();
  }
  return s;
}

Status GpuContext::OnHost(cudaStream_t stream, std::function<void()> fn) {
  auto* heap = new std::function<void()>(std::move(fn));
  cudaError_t e = cudaLaunchHostFunc(
      stream,
      [](void* arg) {
        auto* f = static_cast<std::function<void()>*>(arg);
        (*f)();
        delete f;
      },
      heap);
  if (e != cudaSuccess) {
    delete heap;
    return CheckLaunch("host callback");
  }
  return Status::OK();
}

Status GpuContext::StreamWait(cudaStream_t waiter, cudaStream_t signaller) {
  cudaEvent_t event;
  TA_RETURN_IF_ERROR(CudaError(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate"));
  cudaError_t e = cudaEventRecord(event, signaller);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(waiter, event, 0);
  cudaEventDestroy(event);  // released once the wait has passed
  return CudaError(e, "ordering two streams");
}

Status GpuContext::CopyToDevice(const Tensor& src, const Tensor& dst) {
  TA_RETURN_IF_ERROR(health());
  const size_t bytes = src.TotalBytes();
  if (bytes == 0) return Status::OK();
  Activate();
  Tensor from = src;
  if (src.data() != nullptr && !(pinned_allocator_.get() == src.buffer_allocator())) {
    // Pageable memory: staged through pinned memory, so the copy is a real DMA that
    // does not block this thread.
    auto staged = Tensor::Allocate(pinned_allocator_.get(), src.dtype(), src.shape());
    if (staged.ok()) {
      std::memcpy(staged->data(), src.data(), bytes);
      from = std::move(staged).value();
    }
  }
  TA_RETURN_IF_ERROR(StreamWait(h2d_, compute_));
  TA_RETURN_IF_ERROR(
      CudaError(cudaMemcpyAsync(dst.data(), from.data(), bytes, cudaMemcpyHostToDevice, h2d_), "copy to the GPU"));
  TA_RETURN_IF_ERROR(StreamWait(compute_, h2d_));
  // The source (or its staging copy) and the destination stay alive until the copy ends.
  return OnHost(h2d_, [from, dst] {});
}

void GpuContext::CopyToHost(const Tensor& src, HostDone done) {
  Status s = health();
  if (!s.ok()) return done(s, Tensor());
  auto host = Tensor::Allocate(pinned_allocator_.get(), src.dtype(), src.shape());
  if (!host.ok()) return done(host.status(), Tensor());
  Tensor out = std::move(host).value();
  const size_t bytes = src.TotalBytes();
  if (bytes == 0) return done(Status::OK(), out);
  Activate();
  s = StreamWait(d2h_, compute_);
  if (s.ok()) s = CudaError(cudaMemcpyAsync(out.data(), src.data(), bytes, cudaMemcpyDeviceToHost, d2h_), "copy from the GPU");
  if (s.ok()) s = OnHost(d2h_, [src, out, done] { done(Status::OK(), out); });
  if (!s.ok()) done(s, Tensor());
}

Status GpuContext::CopyOnGpu(const Tensor& src, const Tensor& dst) {
  TA_RETURN_IF_ERROR(health());
  const size_t bytes = src.TotalBytes();
  if (bytes == 0) return Status::OK();
  Activate();
  return CudaError(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, compute_),
                   "copy within the GPU");
}

Status GpuContext::Synchronize() {
  Activate();
  for (cudaStream_t s : {h2d_, compute_, d2h_}) {
    cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      Status st = CheckLaunch("synchronize");
      return st.ok() ? CudaError(e, "synchronize") : st;
    }
  }
  return health();
}

StatusOr<Tensor> GpuContext::Scratch(int64_t bytes) {
  return Tensor::Allocate(device_allocator_.get(), tensorflow::DT_UINT8, TensorShape({bytes}));
}

}  // namespace gpu
}  // namespace tensoract
