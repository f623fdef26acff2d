#include "kernels/device.h"

#include <unsupported/Eigen/CXX11/Tensor>
#include <unsupported/Eigen/CXX11/ThreadPool>

#include <random>

#include "kernels/denormal.h"
#include "kernels/parallel_team.h"

namespace tensoract {

// The device's threads run kernels only: they flush denormals from their start.
struct KernelThreadEnvironment : Eigen::StlThreadEnvironment {
  EnvThread* CreateThread(std::function<void()> f) {
    return Eigen::StlThreadEnvironment::CreateThread([f = std::move(f)] {
      FlushDenormalsOnThisThread();
      f();
    });
  }
};

// Kernels run on `threads`; the Eigen expressions they evaluate in parallel run on
// `intra_op`, as TensorFlow separates its inter-op and intra-op pools. Eigen's parallelFor
// blocks its caller until the shards are done, and a pool thread queues shards on its own
// queue: with one pool, as many concurrent kernels as threads (two int64 Sums on two
// threads) each waited for shards only they could run, for ever (issue 32's harness).
struct Device::Pool {
  explicit Pool(int n) : threads(n), intra_op(n), eigen(&intra_op, n) {}
  Eigen::ThreadPoolTempl<KernelThreadEnvironment> threads;
  Eigen::ThreadPoolTempl<KernelThreadEnvironment> intra_op;
  Eigen::ThreadPoolDevice eigen;
};

bool IsHostMemoryType(DataType dtype) {
  switch (BaseType(dtype)) {
    case tensorflow::DT_INT32:
    case tensorflow::DT_STRING:
    case tensorflow::DT_RESOURCE:
    case tensorflow::DT_VARIANT:
      return true;
    default:
      return false;
  }
}

Device::Device(std::string name, std::string device_type, int num_threads)
    : allocator_(new CPUAllocator(name)), host_allocator_(allocator_), num_threads_(num_threads < 1 ? 1 : num_threads), resource_mgr_(name),
      pool_(std::make_unique<Pool>(num_threads_)) {
  attributes_.set_name(std::move(name));
  attributes_.set_device_type(std::move(device_type));
  attributes_.set_memory_limit(0);  // host memory: no fixed limit
  // An incarnation distinguishes this device from a restarted one with the same name.
  attributes_.set_incarnation(std::random_device{}() | (static_cast<uint64_t>(std::random_device{}()) << 32));
}

Device::Device(tensorflow::DeviceAttributes attributes, Allocator* allocator, Allocator* host_allocator)
    : attributes_(std::move(attributes)), allocator_(allocator), host_allocator_(host_allocator), num_threads_(1),
      resource_mgr_(attributes_.name()), pool_(std::make_unique<Pool>(1)) {
  attributes_.set_incarnation(std::random_device{}() | (static_cast<uint64_t>(std::random_device{}()) << 32));
}

Device::~Device() = default;

StatusOr<Tensor> Device::CopyOnDevice(const Tensor& src) { return src.DeepCopy(AllocatorFor(src.dtype())); }

std::string Device::DebugString() const {
  std::string out = name() + ": " + std::to_string(num_threads_) + " threads, memory " +
                    AllocatorStatsString(allocator_->GetStats());
  if (!attributes_.physical_device_desc().empty()) out += "; " + attributes_.physical_device_desc();
  return out;
}

void Device::Schedule(std::function<void()> fn) { pool_->threads.Schedule(std::move(fn)); }

const Eigen::ThreadPoolDevice* Device::eigen_cpu_device() const { return &pool_->eigen; }

ParallelTeam* Device::parallel_team() {
  if (num_threads_ < 2) return nullptr;
  std::call_once(team_started_, [this] { team_ = std::make_unique<ParallelTeam>(num_threads_ - 1); });
  return team_.get();
}

}  // namespace tensoract
