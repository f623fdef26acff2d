// Kernel libraries loaded on demand. The kernels few graphs need and whose compilation costs
// minutes on 2 cores are shared libraries of their own beside libtensoract_kernels.so
// (libtensoract_kernels_linalg.so, libtensoract_kernels_more_dtypes.so; what each holds is
// in kernels/CMakeLists.txt, which names them). Nothing links them: the registry loads them
// the first time a lookup finds no kernel (kernel_registry.cc) and looks again, so a program
// that never asks for those kernels (the Fashion-MNIST trainer) builds and starts without
// them, and one that does gets them as if they were linked in. An application may also link
// tensoract::kernels_linalg or tensoract::kernels_more_dtypes itself; they are then loaded at
// start.
//
// Thread-safety: LoadKernelLibrariesOnce may be called from any thread; the first call loads
// (registration takes the registry's lock), the others wait for it and return.
#ifndef TENSORACT_KERNELS_KERNEL_LIBRARIES_H_
#define TENSORACT_KERNELS_KERNEL_LIBRARIES_H_

#include <memory>
#include <string>
#include <vector>

namespace tensoract {

class Device;
struct GpuDeviceOptions;

// Loads every on-demand kernel library found beside libtensoract_kernels.so, once per process.
void LoadKernelLibrariesOnce();

// Why libraries could not be loaded ("libtensoract_kernels_linalg.so: <dlerror>", one a
// line), empty when all were. Loads them first if no lookup has yet.
std::string KernelLibraryLoadErrors();

// "\nkernel libraries that could not be loaded:\n  <errors>", or "" when all were: what a
// "no kernel" error appends, since the kernel may exist in a library that did not load.
std::string KernelLibraryLoadNote();

// The GPU device and its kernels (kernels/gpu) are libtensoract_kernels_gpu.so, built where
// CUDA is (TENSORACT_HAVE_CUDA), beside libtensoract_kernels.so and linked by nothing: cuBLAS
// Lt inflates its kernels when it is loaded (~0.3 CPU-seconds and ~200 MB in every process
// that links it, GPU or none). A worker loads it only where an NVIDIA driver is present.
using MakeGpuDevicesFn = std::vector<std::shared_ptr<Device>> (*)(const std::string& task_name,
                                                                  const GpuDeviceOptions& options, std::string* notes);

// True where /dev/nvidiactl or /proc/driver/nvidia exists: a GPU may be there.
bool NvidiaDriverPresent();

// True in a build with CUDA: libtensoract_kernels_gpu.so was built beside this library.
bool GpuKernelLibraryBuilt();

// Loads libtensoract_kernels_gpu.so once (its kernels enter the registry) and returns its
// MakeGpuDevices (kernels/gpu/gpu_device.h); nullptr, with *why saying so, in a build
// without CUDA or where the library does not load.
MakeGpuDevicesFn LoadGpuKernelLibrary(std::string* why);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_KERNEL_LIBRARIES_H_
