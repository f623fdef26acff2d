// GPU kernels (CUDA and cuBLAS), built only when the toolkit is found at configure time.
//
// For now these are host-callable entry points over host buffers (copy in, compute, copy
// out), enough to prove the toolchain and the kernels on a machine with a GPU; the GPU
// device actor of a later issue launches them on its own streams without the copies.
// Every function returns Unavailable when there is no usable GPU, never aborts.
#ifndef TENSORACT_KERNELS_GPU_GPU_KERNELS_H_
#define TENSORACT_KERNELS_GPU_GPU_KERNELS_H_

#include <cstdint>
#include <string>

#include "base/status.h"

namespace tensoract {
namespace gpu {

// Number of CUDA devices a kernel could run on (0 without a driver or a GPU).
int DeviceCount();
// "NVIDIA H100 80GB HBM3, compute capability 9.0", or why there is none.
std::string DeviceDescription(int device);

// out[i] = x[i] + y[i] for i < n.
Status AddFloat(const float* x, const float* y, float* out, int64_t n);
// Row-major c[m,n] = a[m,k] * b[k,n], by cuBLAS.
Status MatMulFloat(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n);

}  // namespace gpu
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_GPU_GPU_KERNELS_H_
