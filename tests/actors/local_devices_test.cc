// A worker's devices (actors/local_devices.h): CPUs always; GPUs from the GPU library, which
// a worker loads only where an NVIDIA driver is (kernels/kernel_libraries.h), so a process on
// a machine without one never pays for CUDA's libraries.
#include <dlfcn.h>

#include <catch2/catch.hpp>

#include "actors/local_devices.h"
#include "kernels/kernel_libraries.h"

namespace tensoract {
namespace {

bool GpuLibraryLoaded() {
  void* handle = dlopen("libtensoract_kernels_gpu.so", RTLD_NOW | RTLD_NOLOAD);
  if (handle != nullptr) dlclose(handle);  // drops only the reference RTLD_NOLOAD added
  return handle != nullptr;
}

TEST_CASE("a worker without an NVIDIA driver makes its CPU devices and loads no GPU library") {
  if (NvidiaDriverPresent()) {
    WARN("skipped: this machine has an NVIDIA driver (the GPU tests cover it)");
    return;
  }
  std::string notes;
  auto devices = MakeLocalDevices("/job:localhost/replica:0/task:0", 2, 2, GpuDeviceOptions{}, &notes);
  REQUIRE(devices.size() == 2);
  CHECK(devices[1]->name() == "/job:localhost/replica:0/task:0/device:CPU:1");
  CHECK(notes.empty());
  CHECK_FALSE(GpuLibraryLoaded());
}

TEST_CASE("the GPU library, asked for, loads and gives its device maker (or says the build has none)") {
  std::string why;
  MakeGpuDevicesFn make = LoadGpuKernelLibrary(&why);
  if (make == nullptr) {
    INFO(why);
    CHECK_FALSE(GpuKernelLibraryBuilt());  // a build with CUDA must load it
    CHECK_FALSE(why.empty());
    return;
  }
  CHECK(GpuLibraryLoaded());
  // No GPU wanted: no device, and no CUDA call made.
  GpuDeviceOptions none;
  none.visible_device_list = "none";
  CHECK(make("/job:localhost/replica:0/task:0", none, nullptr).empty());
}

}  // namespace
}  // namespace tensoract
