// gemm::Sgemm against a naive double-precision product over many shapes: every transpose
// combination, accumulate or not, edges of the 6 x 64 tile and of the cache blocks, and the
// paths for few rows (B read in place, or c^T computed and transposed).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/cpu/gemm.h"

namespace tensoract {
namespace {

void CheckProduct(bool ta, bool tb, int64_t m, int64_t n, int64_t k, bool accumulate, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  // Leading dimensions a little larger than needed, so strides are exercised too.
  const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
  std::vector<float> a((ta ? k : m) * lda + 1), b((tb ? n : k) * ldb + 1), c(m * ldc + 1);
  for (float& v : a) v = u(*rng);
  for (float& v : b) v = u(*rng);
  for (float& v : c) v = u(*rng);
  std::vector<float> before = c;
  gemm::Sgemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, accumulate);
  INFO("ta " << ta << " tb " << tb << " m " << m << " n " << n << " k " << k << " accumulate " << accumulate);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = accumulate ? before[i * ldc + j] : 0.0;
      for (int64_t p = 0; p < k; ++p) {
        want += double(ta ? a[p * lda + i] : a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]);
      }
      const double got = c[i * ldc + j];
      if (std::abs(got - want) > 1e-4 * (k + 1)) {
        FAIL("c[" << i << "," << j << "] = " << got << ", want " << want);
      }
    }
    // Padding between rows is untouched.
    for (int64_t j = n; j < ldc && i * ldc + j < static_cast<int64_t>(c.size()); ++j) {
      REQUIRE(c[i * ldc + j] == before[i * ldc + j]);
    }
  }
}

TEST_CASE("Sgemm matches a naive product for every transpose, edge and path") {
  std::mt19937 rng(7);
  const std::vector<int64_t> sizes = {1, 5, 6, 7, 63, 64, 65, 130};
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (int64_t m : sizes) {
        for (int64_t n : sizes) {
          CheckProduct(ta, tb, m, n, 1 + (m * 7 + n) % 40, (m + n) % 2 == 0, &rng);
        }
      }
    }
  }
  // Longer k crosses the (at most) 512-deep blocks, split equally (1025 = 342 + 342 + 341);
  // a tall m crosses the 192-row blocks.
  CheckProduct(false, false, 400, 70, 600, false, &rng);
  CheckProduct(false, false, 200, 130, 1025, true, &rng);
  CheckProduct(true, false, 400, 65, 1100, false, &rng);
  CheckProduct(true, false, 37, 200, 513, true, &rng);
  CheckProduct(false, true, 64, 300, 257, false, &rng);
  CheckProduct(true, true, 260, 33, 300, true, &rng);
  // Wide n crosses the 512-column blocks of B (a partial last one).
  CheckProduct(false, false, 200, 1100, 70, false, &rng);
  CheckProduct(false, true, 300, 700, 90, true, &rng);
  // A packed too (AVX2, n >= 512): k across the 256-deep blocks and rows across the blocks
  // of A, with partial panels of rows and of 8 k.
  CheckProduct(false, false, 151, 530, 603, true, &rng);
  // k = 0: c is zeroed, or kept when accumulating.
  CheckProduct(false, false, 5, 9, 0, false, &rng);
  CheckProduct(false, true, 5, 9, 0, true, &rng);
}

}  // namespace
}  // namespace tensoract
