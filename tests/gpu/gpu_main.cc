// The GPU tests' main: without a GPU (no driver, or none visible) the whole binary says it
// is skipped and exits 77, which ctest reports as Skipped.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "kernels/gpu/gpu_context.h"

int main(int argc, char** argv) {
  std::string why;
  if (tensoract::gpu::ProbeGpus(&why).empty()) {
    std::printf("skipped: no GPU (%s)\n", why.empty() ? "CUDA sees none" : why.c_str());
    return 77;
  }
  for (const auto& g : tensoract::gpu::ProbeGpus()) {
    std::printf("GPU %d: %s, %lld MiB, compute capability %d.%d\n", g.ordinal, g.name.c_str(),
                static_cast<long long>(g.total_memory >> 20), g.compute_major, g.compute_minor);
  }
  return Catch::Session().run(argc, argv);
}
