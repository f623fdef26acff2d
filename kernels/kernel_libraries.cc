#include "kernels/kernel_libraries.h"

#include <dlfcn.h>
#include <unistd.h>

#include <mutex>

namespace tensoract {
namespace {

// Named by kernels/CMakeLists.txt, which builds each into the folder of
// libtensoract_kernels.so and installs it beside it.
constexpr const char* kOnDemandLibraries[] = {TENSORACT_ON_DEMAND_KERNEL_LIBRARIES};

struct KernelLibraryLoadState {
  std::once_flag once;
  std::string errors;
};

KernelLibraryLoadState& OnDemandLoadState() {
  static KernelLibraryLoadState* const state = new KernelLibraryLoadState;  // never destroyed: lookups may run at exit
  return *state;
}

// The folder holding this library (libtensoract_kernels.so), with its trailing '/'; empty
// when the loader cannot say, and then the dynamic linker's search path decides.
std::string ThisLibraryFolder() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&LoadKernelLibrariesOnce), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

void LoadKernelLibrariesOnce() {
  KernelLibraryLoadState& state = OnDemandLoadState();
  std::call_once(state.once, [&state] {
    std::string folder = ThisLibraryFolder();
    for (const char* name : kOnDemandLibraries) {
      // RTLD_NOW: an unresolved symbol fails here, with dlerror naming it, not mid-step.
      // The handle is kept for the process's life: its kernels are in the registry.
      if (dlopen((folder + name).c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
        const char* why = dlerror();
        state.errors += std::string(state.errors.empty() ? "" : "\n") + name + ": " + (why ? why : "not loaded");
      }
    }
  });
}

bool NvidiaDriverPresent() { return access("/dev/nvidiactl", F_OK) == 0 || access("/proc/driver/nvidia", F_OK) == 0; }

bool GpuKernelLibraryBuilt() {
#ifdef TENSORACT_GPU_KERNEL_LIBRARY
  return true;
#else
  return false;
#endif
}

MakeGpuDevicesFn LoadGpuKernelLibrary(std::string* why) {
#ifdef TENSORACT_GPU_KERNEL_LIBRARY
  static std::once_flag once;
  static MakeGpuDevicesFn make = nullptr;
  static std::string* const error = new std::string;  // never destroyed, as the load state above
  std::call_once(once, [] {
    const std::string path = ThisLibraryFolder() + TENSORACT_GPU_KERNEL_LIBRARY;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* e = dlerror();
      *error = std::string(TENSORACT_GPU_KERNEL_LIBRARY) + ": " + (e ? e : "not loaded");
      return;
    }
    make = reinterpret_cast<MakeGpuDevicesFn>(dlsym(handle, "tensoract_MakeGpuDevices"));
    if (make == nullptr) *error = std::string(TENSORACT_GPU_KERNEL_LIBRARY) + " has no tensoract_MakeGpuDevices";
  });
  if (make == nullptr && why != nullptr) *why = *error;
  return make;
#else
  if (why != nullptr) *why = "this build has no GPU device (built without CUDA)";
  return nullptr;
#endif
}

std::string KernelLibraryLoadErrors() {
  LoadKernelLibrariesOnce();
  return OnDemandLoadState().errors;
}

std::string KernelLibraryLoadNote() {
  std::string errors = KernelLibraryLoadErrors();
  return errors.empty() ? "" : "\nkernel libraries that could not be loaded:\n  " + errors;
}

}  // namespace tensoract
