#include "kernels/gpu/gpu_device.h"

#include <cstdlib>
#include <future>
#include <sstream>

#include "kernels/gpu/gpu_context.h"

namespace tensoract {
namespace gpu {
namespace {

tensorflow::DeviceAttributes GpuAttributes(const std::string& name, const GpuContext& ctx) {
  tensorflow::DeviceAttributes a;
  a.set_name(name);
  a.set_device_type(DEVICE_GPU);
  a.set_memory_limit(ctx.memory_limit());
  const GpuInfo& g = ctx.info();
  a.mutable_locality()->set_bus_id(1);
  a.set_physical_device_desc(StrCat("device: ", g.ordinal, ", name: ", g.name, ", pci bus id: ", g.pci_bus_id,
                                    ", compute capability: ", g.compute_major, ".", g.compute_minor));
  return a;
}

}  // namespace

GpuDevice::GpuDevice(const std::string& name, GpuContext* context)
    : Device(GpuAttributes(name, *context), context->device_allocator(), cpu_allocator()), context_(context) {}

StatusOr<Tensor> GpuDevice::CopyOnDevice(const Tensor& src) {
  if (IsHostMemoryType(src.dtype())) return Device::CopyOnDevice(src);
  TA_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(allocator(), src.dtype(), src.shape()));
  TA_RETURN_IF_ERROR(context_->CopyOnGpu(src, copy));
  return copy;
}

StatusOr<Tensor> GpuDevice::CopyFromHost(const Tensor& host) {
  if (IsHostMemoryType(host.dtype())) return host;
  TA_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(allocator(), host.dtype(), host.shape()));
  TA_RETURN_IF_ERROR(context_->CopyToDevice(host, copy));
  TA_RETURN_IF_ERROR(context_->Synchronize());
  return copy;
}

StatusOr<Tensor> GpuDevice::CopyToHost(const Tensor& t) {
  if (IsHostMemoryType(t.dtype()) || (t.buffer_allocator() && t.buffer_allocator()->IsHostMemory())) return t;
  std::promise<std::pair<Status, Tensor>> copied;
  auto result = copied.get_future();
  context_->CopyToHost(t, [&copied](const Status& s, const Tensor& host) { copied.set_value({s, host}); });
  auto [status, host] = result.get();  // the copy waits for the kernels queued before it
  TA_RETURN_IF_ERROR(status);
  return host;
}

std::vector<std::shared_ptr<Device>> MakeGpuDevices(const std::string& task_name, const GpuDeviceOptions& options,
                                                    std::string* notes) {
  std::vector<std::shared_ptr<Device>> devices;
  if (options.visible_device_list == "none") return devices;
  const auto& gpus = ProbeGpus();
  if (gpus.empty()) return devices;
  std::vector<int> ordinals;
  if (options.visible_device_list.empty()) {
    for (const GpuInfo& g : gpus) ordinals.push_back(g.ordinal);
  } else {
    std::stringstream list(options.visible_device_list);
    for (std::string part; std::getline(list, part, ',');) {
      char* end = nullptr;
      long v = std::strtol(part.c_str(), &end, 10);
      if (part.empty() || *end != '\0' || v < 0) {
        if (notes) *notes += StrCat("visible_device_list: '", part, "' is not a GPU number\n");
        continue;
      }
      ordinals.push_back(static_cast<int>(v));
    }
  }
  int index = 0;
  for (int ordinal : ordinals) {
    auto ctx = GpuContext::Get(ordinal, options);
    if (!ctx.ok()) {
      if (notes) *notes += ctx.status().ToString() + "\n";
      continue;
    }
    // Visible GPUs are numbered from 0 in the order listed, as TensorFlow numbers them.
    devices.push_back(std::make_shared<GpuDevice>(StrCat(task_name, "/device:GPU:", index++), ctx.value()));
  }
  return devices;
}

}  // namespace gpu
}  // namespace tensoract

// What kernel_libraries.cc finds with dlsym (MakeGpuDevicesFn): this library is loaded on
// demand, not linked.
extern "C" __attribute__((visibility("default"))) std::vector<std::shared_ptr<tensoract::Device>>
tensoract_MakeGpuDevices(const std::string& task_name, const tensoract::GpuDeviceOptions& options,
                         std::string* notes) {
  return tensoract::gpu::MakeGpuDevices(task_name, options, notes);
}
