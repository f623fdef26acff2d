// The devices of one task: its CPU devices, sharing the task's threads, and one GPU device
// per visible GPU (in builds with CUDA; none where CUDA finds no GPU).
//
// A worker makes its own unless it is handed some: a LocalServer makes them and gives them
// both to its worker and to an eager context (client/eager_context.h), so that ops run
// eagerly and graphs run by the worker share the same devices, allocators and variables.
#ifndef TENSORACT_ACTORS_LOCAL_DEVICES_H_
#define TENSORACT_ACTORS_LOCAL_DEVICES_H_

#include <memory>
#include <string>
#include <vector>

#include "kernels/device.h"

namespace tensoract {

// "<task_name>/device:CPU:0" ... "/device:CPU:<num_cpu_devices-1>" sharing `cpu_threads`
// (each gets one at least), then "/device:GPU:0" ... for the GPUs `gpu` makes visible.
// What CUDA said about GPUs it could not use is appended to `notes`.
std::vector<std::shared_ptr<Device>> MakeLocalDevices(const std::string& task_name, int cpu_threads,
                                                      int num_cpu_devices, const GpuDeviceOptions& gpu,
                                                      std::string* notes);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_LOCAL_DEVICES_H_
