// GpuDevice: /device:GPU:N of a task, over the process's GpuContext for CUDA GPU N.
//
// Its allocator is the GPU's BFC allocator; tensors of the host-memory types go to the
// host (IsHostMemoryType). DeviceAttributes carry the memory limit and, in
// physical_device_desc, TensorFlow's description ("device: 0, name: NVIDIA H100 80GB
// HBM3, pci bus id: 0000:00:05.0, compute capability: 9.0").
//
// MakeGpuDevices is what a worker calls: one device per visible GPU, none (and no CUDA
// work beyond the probe) where there is no driver or no GPU.
#ifndef TENSORACT_KERNELS_GPU_GPU_DEVICE_H_
#define TENSORACT_KERNELS_GPU_GPU_DEVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "kernels/device.h"
#include "kernels/op_kernel.h"

namespace tensoract {
namespace gpu {

class GpuContext;

class GpuDevice : public Device {
 public:
  GpuDevice(const std::string& name, GpuContext* context);
  GpuContext* context() const { return context_; }
  StatusOr<Tensor> CopyOnDevice(const Tensor& src) override;
  StatusOr<Tensor> CopyFromHost(const Tensor& host) override;
  StatusOr<Tensor> CopyToHost(const Tensor& t) override;

 private:
  GpuContext* context_;
};

// The GPU a kernel runs on (its device must be a GpuDevice: GPU kernels are registered
// for DEVICE_GPU only).
inline GpuContext* ContextOf(OpKernelContext* ctx) { return static_cast<GpuDevice*>(ctx->device())->context(); }

// "/device:GPU:i" devices of `task_name` for the GPUs `options` makes visible. A GPU that
// cannot be set up is left out with a line in *notes (if given) saying why.
std::vector<std::shared_ptr<Device>> MakeGpuDevices(const std::string& task_name, const GpuDeviceOptions& options,
                                                    std::string* notes = nullptr);

}  // namespace gpu
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_GPU_GPU_DEVICE_H_
