// Device: one place kernels run, with its allocator and its threads.
//
// A GPU device (kernels/gpu/gpu_device.h) is a Device whose allocator hands out GPU memory;
// its kernels enqueue work on CUDA streams. Tensors of the host-memory types
// (IsHostMemoryType: int32 shapes and indices, strings, resource handles) stay in host
// memory on every device, as TensorFlow keeps them, so kernels read shapes and axes on the
// host and a GPU never receives or sends them through a copy.
//
// A CPU device owns a thread pool sized from its share of the machine's cores. Kernels
// that are expensive run on that pool (the executor sends them there through the device
// actor); a kernel may also spread its own work over the pool through the Eigen device.
// The device actor (actors/device_actor.h) owns a Device and is its only user besides the
// kernels it launches.
//
// Thread-safety: every method may be called from any thread.
#ifndef TENSORACT_KERNELS_DEVICE_H_
#define TENSORACT_KERNELS_DEVICE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "kernels/allocator.h"
#include "kernels/queue.h"
#include "kernels/resource_mgr.h"
#include "kernels/tensor.h"
#include "messages/device_attributes.pb.h"

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace tensoract {

class ParallelTeam;

constexpr char DEVICE_CPU[] = "CPU";
constexpr char DEVICE_GPU[] = "GPU";

// int32, string, resource and variant tensors live in host memory on every device.
bool IsHostMemoryType(DataType dtype);

// Which GPUs a worker makes devices for, and how much of each it may use.
struct GpuDeviceOptions {
  // TensorFlow's visible_device_list: "" every GPU, "0,2" those (CUDA ordinals), "none"
  // no GPU device at all.
  std::string visible_device_list;
  // The share of each GPU's memory the process may take (0: 0.9 of what is free when the
  // device is first made), or an absolute limit in bytes (wins when both are set).
  double memory_fraction = 0;
  int64_t memory_limit_bytes = 0;
};

class Device {
 public:
  // `name` is a full device name: "/job:localhost/replica:0/task:0/device:CPU:0".
  Device(std::string name, std::string device_type, int num_threads);
  virtual ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const std::string& name() const { return attributes_.name(); }
  const std::string& device_type() const { return attributes_.device_type(); }
  const tensorflow::DeviceAttributes& attributes() const { return attributes_; }
  // Device memory (host memory on a CPU).
  Allocator* allocator() { return allocator_; }
  // Where tensors of host-memory types go (IsHostMemoryType); allocator() on a CPU.
  Allocator* host_allocator() { return host_allocator_; }
  Allocator* AllocatorFor(DataType dtype) { return IsHostMemoryType(dtype) ? host_allocator_ : allocator_; }
  // A new tensor on this device holding `src`'s elements (`src` is on this device too):
  // a host copy on a CPU, a copy on the compute stream on a GPU. ResourceExhausted when
  // memory runs out.
  virtual StatusOr<Tensor> CopyOnDevice(const Tensor& src);
  // `host` (in host memory) as a tensor of this device: `host` itself on a CPU and for the
  // host-memory types; on a GPU a copy in its memory, complete when this returns (for
  // constants, made once when a graph is registered).
  virtual StatusOr<Tensor> CopyFromHost(const Tensor& host) { return host; }
  // `t` (on this device) in host memory: `t` itself on a CPU and for the host-memory
  // types; on a GPU a copy, complete when this returns (eager values read by the caller).
  virtual StatusOr<Tensor> CopyToHost(const Tensor& t) { return t; }
  // Variables and other state that outlive steps; shared by every session on the worker.
  ResourceMgr* resource_manager() { return &resource_mgr_; }
  int num_threads() const { return num_threads_; }
  // How queue kernels make their queues (kernels/queue.h): the worker that runs this
  // device's steps installs its queue actors' maker before its first step; empty outside
  // a worker.
  void set_queue_maker(QueueMaker maker) { queue_maker_ = std::move(maker); }
  const QueueMaker& queue_maker() const { return queue_maker_; }

  // "<name>: 2 threads, memory in use 0 B, peak 0 B, 0 allocations" (and the limit, the
  // largest free block and the physical device where there are), for inspection.
  std::string DebugString() const;

  // Runs `fn` on one of the device's threads. Never blocks.
  void Schedule(std::function<void()> fn);
  // For kernels that parallelise inside one op with Eigen.
  const Eigen::ThreadPoolDevice* eigen_cpu_device() const;
  // The threads that join a kernel's parallel loop (CwiseParallelFor): num_threads() - 1 of
  // them, started at the first call; null with one thread.
  ParallelTeam* parallel_team();

 protected:
  // For devices with their own memory: `allocator` for device memory, `host_allocator`
  // for the host-memory types; both outlive the device. `attributes` has name and type.
  Device(tensorflow::DeviceAttributes attributes, Allocator* allocator, Allocator* host_allocator);

 private:
  struct Pool;
  tensorflow::DeviceAttributes attributes_;
  // Never deleted: a fetched tensor may outlive its device (and its session) and must
  // still be able to give its memory back. One small object per device ever made.
  Allocator* allocator_;
  Allocator* host_allocator_;
  int num_threads_;
  ResourceMgr resource_mgr_;
  QueueMaker queue_maker_;
  std::unique_ptr<Pool> pool_;
  std::once_flag team_started_;
  std::unique_ptr<ParallelTeam> team_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_DEVICE_H_
