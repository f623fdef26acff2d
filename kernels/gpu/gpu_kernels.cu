#include "kernels/gpu/gpu_kernels.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>

namespace tensoract {
namespace gpu {
namespace {

Status CudaStatus(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::OK();
  return errors::Internal(what, ": ", cudaGetErrorString(e));
}

// Device memory freed on scope exit.
struct DeviceBuffer {
  void* ptr = nullptr;
  ~DeviceBuffer() { if (ptr) cudaFree(ptr); }
};

Status Alloc(DeviceBuffer* b, size_t bytes) { return CudaStatus(cudaMalloc(&b->ptr, bytes ? bytes : 1), "cudaMalloc"); }

__global__ void AddKernel(const float* x, const float* y, float* out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    out[i] = x[i] + y[i];
  }
}

Status RequireDevice() {
  if (DeviceCount() == 0) return errors::Unavailable("no CUDA device: ", DeviceDescription(0));
  return Status::OK();
}

}  // namespace

int DeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

std::string DeviceDescription(int device) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return cudaGetErrorString(e);
  if (device >= n) return "no such device";
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return "unreadable device";
  return std::string(p.name) + ", compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor);
}

Status AddFloat(const float* x, const float* y, float* out, int64_t n) {
  TA_RETURN_IF_ERROR(RequireDevice());
  const size_t bytes = n * sizeof(float);
  DeviceBuffer dx, dy, dout;
  TA_RETURN_IF_ERROR(Alloc(&dx, bytes));
  TA_RETURN_IF_ERROR(Alloc(&dy, bytes));
  TA_RETURN_IF_ERROR(Alloc(&dout, bytes));
  TA_RETURN_IF_ERROR(CudaStatus(cudaMemcpy(dx.ptr, x, bytes, cudaMemcpyHostToDevice), "copy x"));
  TA_RETURN_IF_ERROR(CudaStatus(cudaMemcpy(dy.ptr, y, bytes, cudaMemcpyHostToDevice), "copy y"));
  int blocks = static_cast<int>((n + 255) / 256);
  if (blocks > 4096) blocks = 4096;
  if (blocks < 1) blocks = 1;
  AddKernel<<<blocks, 256>>>(static_cast<float*>(dx.ptr), static_cast<float*>(dy.ptr), static_cast<float*>(dout.ptr), n);
  TA_RETURN_IF_ERROR(CudaStatus(cudaGetLastError(), "AddKernel launch"));
  return CudaStatus(cudaMemcpy(out, dout.ptr, bytes, cudaMemcpyDeviceToHost), "copy out");
}

Status MatMulFloat(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
  TA_RETURN_IF_ERROR(RequireDevice());
  DeviceBuffer da, db, dc;
  TA_RETURN_IF_ERROR(Alloc(&da, m * k * sizeof(float)));
  TA_RETURN_IF_ERROR(Alloc(&db, k * n * sizeof(float)));
  TA_RETURN_IF_ERROR(Alloc(&dc, m * n * sizeof(float)));
  TA_RETURN_IF_ERROR(CudaStatus(cudaMemcpy(da.ptr, a, m * k * sizeof(float), cudaMemcpyHostToDevice), "copy a"));
  TA_RETURN_IF_ERROR(CudaStatus(cudaMemcpy(db.ptr, b, k * n * sizeof(float), cudaMemcpyHostToDevice), "copy b"));
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return errors::Internal("cublasCreate failed");
  std::unique_ptr<cublasContext, decltype(&cublasDestroy)> guard(handle, &cublasDestroy);
  // cuBLAS is column-major: a row-major C = A*B is the column-major C^T = B^T * A^T, which
  // is B*A over the same buffers with the dimensions swapped.
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t s = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                                 static_cast<int>(k), &alpha, static_cast<const float*>(db.ptr), static_cast<int>(n),
                                 static_cast<const float*>(da.ptr), static_cast<int>(k), &beta,
                                 static_cast<float*>(dc.ptr), static_cast<int>(n));
  if (s != CUBLAS_STATUS_SUCCESS) return errors::Internal("cublasSgemm failed with status ", static_cast<int>(s));
  return CudaStatus(cudaMemcpy(c, dc.ptr, m * n * sizeof(float), cudaMemcpyDeviceToHost), "copy c");
}

}  // namespace gpu
}  // namespace tensoract
