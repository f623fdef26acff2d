// The on-demand kernel libraries (kernels/kernel_libraries.h): kernels_tests links none of
// them, yet asking for a linear-algebra kernel or a Transpose finds it, because the registry's
// first miss loads the libraries from beside libtensoract_kernels.so.
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

TEST_CASE("a kernel the main job's trainer never runs is found in the more_ops library") {
  const NodeDef transpose = testing::MakeDef(
      "Transpose", {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"Tperm", testing::TypeA(tensorflow::DT_INT32)}});
  CHECK(KernelExists(transpose, DEVICE_CPU));
  CHECK(KernelLibraryLoadErrors().empty());
  void* handle = dlopen("libtensoract_kernels_more_ops.so", RTLD_NOW | RTLD_NOLOAD);
  CHECK(handle != nullptr);
  if (handle != nullptr) dlclose(handle);
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
