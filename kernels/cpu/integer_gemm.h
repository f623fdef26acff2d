// Products of integer matrices (MatMul, BatchMatMul and Einsum of int16, int32, int64, and
// BatchMatMulV3's 8-bit sides into int32): sums of products that wrap around, as
// TensorFlow's Eigen contraction's do in practice, computed in an unsigned type where
// wrapping is defined. Wrapping sums are the same in any order, so a plain loop gives
// Eigen's values, and compiles in a fraction of the seconds Eigen's product takes per type.
#ifndef TENSORACT_KERNELS_CPU_INTEGER_GEMM_H_
#define TENSORACT_KERNELS_CPU_INTEGER_GEMM_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tensoract {

// Rows [first, last) of c = op(a) * op(b), c's row i at c + i * ldc, n columns, k the inner
// size; op(a)[i, p] is a[p * lda + i] where trans_a, else a[i * lda + p]; op(b)[p, j] is
// b[j * ldb + p] where trans_b, else b[p * ldb + j]. The sides are converted to T first (an
// int8 side of an int32 product). i-k-j loops: the inner loop runs along rows of b and c.
template <class T, class Ta, class Tb>
void IntegerGemmRows(bool trans_a, bool trans_b, int64_t first, int64_t last, int64_t n, int64_t k, const Ta* a,
                     int64_t lda, const Tb* b, int64_t ldb, T* c, int64_t ldc) {
  static_assert(std::is_integral_v<T>, "IntegerGemmRows multiplies integers");
  // Unsigned, and at least as wide as int: a uint16 product would be promoted to int.
  using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < sizeof(int)), int, T>>;
  std::vector<U> row(n), b_row(n);
  for (int64_t i = first; i < last; ++i) {
    std::fill(row.begin(), row.end(), U(0));
    for (int64_t p = 0; p < k; ++p) {
      const U x = static_cast<U>(static_cast<T>(trans_a ? a[p * lda + i] : a[i * lda + p]));
      for (int64_t j = 0; j < n; ++j) {
        b_row[j] = static_cast<U>(static_cast<T>(trans_b ? b[j * ldb + p] : b[p * ldb + j]));
      }
      for (int64_t j = 0; j < n; ++j) row[j] += x * b_row[j];
    }
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = static_cast<T>(row[j]);
  }
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_INTEGER_GEMM_H_
