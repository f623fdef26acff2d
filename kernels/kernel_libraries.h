// Kernel libraries loaded on demand. The kernels few graphs need and whose compilation costs
// minutes on 2 cores (Eigen's factorisations and solvers for every dtype: Cholesky, Qr, Svd,
// SelfAdjointEigV2, MatrixSolve, MatrixInverse, ...) are a shared library of their own,
// libtensoract_kernels_linalg.so, beside libtensoract_kernels.so. Nothing links it: the
// registry loads it the first time a lookup finds no kernel (kernel_registry.cc) and looks
// again, so a program that never asks for those ops (the Fashion-MNIST trainer) builds and
// starts without it, and one that does gets them as if they were linked in. An application
// may also link tensoract::kernels_linalg itself; it is then loaded at start.
//
// Thread-safety: LoadKernelLibrariesOnce may be called from any thread; the first call loads
// (registration takes the registry's lock), the others wait for it and return.
#ifndef TENSORACT_KERNELS_KERNEL_LIBRARIES_H_
#define TENSORACT_KERNELS_KERNEL_LIBRARIES_H_

#include <string>

namespace tensoract {

// Loads every on-demand kernel library found beside libtensoract_kernels.so, once per process.
void LoadKernelLibrariesOnce();

// Why libraries could not be loaded ("libtensoract_kernels_linalg.so: <dlerror>", one a
// line), empty when all were; only meaningful after LoadKernelLibrariesOnce.
std::string KernelLibraryLoadErrors();

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_KERNEL_LIBRARIES_H_
