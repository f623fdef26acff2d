// The on-demand kernel libraries (kernels/kernel_libraries.h): kernels_tests does not link
// libtensoract_kernels_linalg.so, yet asking for a linear-algebra kernel finds it, because the
// registry's first miss loads the library from beside libtensoract_kernels.so.
#include <dlfcn.h>

#include "kernels/kernel_libraries.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

TEST_CASE("a kernel of the linear-algebra library is found by a program that does not link it") {
  const NodeDef cholesky = testing::MakeDef("Cholesky", {{"T", testing::TypeA(tensorflow::DT_FLOAT)}});
  CHECK(KernelExists(cholesky, DEVICE_CPU));
  CHECK(KernelLibraryLoadErrors().empty());
  // Loaded now (RTLD_NOLOAD only finds a library already in the process).
  void* handle = dlopen("libtensoract_kernels_linalg.so", RTLD_NOW | RTLD_NOLOAD);
  CHECK(handle != nullptr);
  if (handle != nullptr) dlclose(handle);  // drops only the reference RTLD_NOLOAD added
}

TEST_CASE("a dtype with no kernel in any library is still NotFound, listing what the library registered") {
  // Svd's op allows half; neither TensorFlow's CPU kernels nor ours compute it.
  const NodeDef svd_half = testing::MakeDef("Svd", {{"T", testing::TypeA(tensorflow::DT_HALF)}});
  CHECK_FALSE(KernelExists(svd_half, DEVICE_CPU));
  auto r = testing::RunMaybe("Svd", {}, {{"T", testing::TypeA(tensorflow::DT_HALF)}});  // refused at creation
  CHECK(r.status.code() == error::NOT_FOUND);
  CHECK_THAT(r.status.message(), Catch::Contains("registered kernels for 'Svd'") && Catch::Contains("T in [float]"));
}

}  // namespace
}  // namespace tensoract
