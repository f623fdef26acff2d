// The CUDA kernels on a real GPU. Without one (no driver or no device) the test says it
// is skipped and exits 77, which ctest reports as "Skipped".
#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels/gpu/gpu_kernels.h"

using namespace tensoract;

int main() {
  if (gpu::DeviceCount() == 0) {
    std::printf("SKIPPED: no CUDA device (%s)\n", gpu::DeviceDescription(0).c_str());
    return 77;
  }
  std::printf("GPU 0: %s\n", gpu::DeviceDescription(0).c_str());
  int failures = 0;
  const int64_t n = 1 << 20;
  std::vector<float> x(n), y(n), z(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000);
    y[i] = 0.5f * static_cast<float>(i % 7);
  }
  Status s = gpu::AddFloat(x.data(), y.data(), z.data(), n);
  if (!s.ok()) { std::printf("AddFloat: %s\n", s.ToString().c_str()); return 1; }
  for (int64_t i = 0; i < n; ++i) failures += z[i] != x[i] + y[i];
  const int64_t m = 64, k = 48, p = 32;
  std::vector<float> a(m * k), b(k * p), c(m * p);
  for (int64_t i = 0; i < m * k; ++i) a[i] = static_cast<float>(i % 11) - 5.f;
  for (int64_t i = 0; i < k * p; ++i) b[i] = static_cast<float>(i % 3) * 0.25f;
  s = gpu::MatMulFloat(a.data(), b.data(), c.data(), m, k, p);
  if (!s.ok()) { std::printf("MatMulFloat: %s\n", s.ToString().c_str()); return 1; }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      double want = 0;
      for (int64_t t = 0; t < k; ++t) want += double(a[i * k + t]) * b[t * p + j];
      failures += std::fabs(c[i * p + j] - want) > 1e-3;
    }
  }
  std::printf("%s: %d mismatches\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
