#include "actors/local_devices.h"

#include <algorithm>

#include "base/status.h"
#include "kernels/kernel_libraries.h"

namespace tensoract {

std::vector<std::shared_ptr<Device>> MakeLocalDevices(const std::string& task_name, int cpu_threads,
                                                      int num_cpu_devices, const GpuDeviceOptions& gpu,
                                                      std::string* notes) {
  std::vector<std::shared_ptr<Device>> devices;
  const int n = std::max(1, num_cpu_devices);
  for (int i = 0; i < n; ++i) {
    // Threads are shared out: with more devices than threads, each still gets one.
    int threads = std::max(1, cpu_threads / n + (i < cpu_threads % n ? 1 : 0));
    devices.push_back(std::make_shared<Device>(StrCat(task_name, "/device:CPU:", i), DEVICE_CPU, threads));
  }
  // No driver, no GPU: the GPU library (and CUDA's) is not even loaded (kernel_libraries.h).
  if (gpu.visible_device_list != "none" && GpuKernelLibraryBuilt() && NvidiaDriverPresent()) {
    std::string why;
    if (MakeGpuDevicesFn make = LoadGpuKernelLibrary(&why)) {
      for (auto& device : make(task_name, gpu, notes)) devices.push_back(std::move(device));
    } else if (notes != nullptr) {
      *notes += "no GPU device: " + why + "\n";
    }
  }
  return devices;
}

}  // namespace tensoract
