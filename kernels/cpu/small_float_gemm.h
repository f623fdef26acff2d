// Matrix products of half and bfloat16 on the CPU, as TensorFlow 2.21's CPU kernels compute
// them for MatMul, BatchMatMul, BatchMatMulV2 and BatchMatMulV3 alike (matmul_op_impl.h's
// BaseBatchMatMulOp): the operands widened to float, one float GEMM, each result narrowed
// once: half to nearest, bfloat16 truncated (TensorFlow's FloatToBFloat16 keeps a float's
// upper 16 bits, so its bfloat16 products are rounded toward zero, and a float product past
// bfloat16's range stays finite). Single-threaded: callers split work over threads.
#ifndef TENSORACT_KERNELS_CPU_SMALL_FLOAT_GEMM_H_
#define TENSORACT_KERNELS_CPU_SMALL_FLOAT_GEMM_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "kernels/cpu/gemm.h"

namespace tensoract {

// out[0, n) = in[0, n) narrowed as TensorFlow narrows a float product to T.
template <class T>
void NarrowProducts(const float* in, T* out, int64_t n) {
  static_assert(std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, Eigen::bfloat16>) {
      out[i] = Eigen::numext::bit_cast<Eigen::bfloat16>(
          static_cast<uint16_t>(Eigen::numext::bit_cast<uint32_t>(in[i]) >> 16));
    } else {
      out[i] = static_cast<T>(in[i]);
    }
  }
}

// c[m, n] (row-major, contiguous) = op(a)[m, k] * op(b)[k, n], in gemm::Gemm's layout: a is
// [m, k] (or [k, m] when trans_a) with rows lda elements apart, likewise b.
template <class T>
void SmallFloatGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                    const T* b, int64_t ldb, T* c) {
  const int64_t a_size = (trans_a ? k : m) * lda, b_size = (trans_b ? n : k) * ldb;
  std::vector<float> af(a_size), bf(b_size), cf(m * n, 0.f);
  for (int64_t i = 0; i < a_size; ++i) af[i] = static_cast<float>(a[i]);
  for (int64_t i = 0; i < b_size; ++i) bf[i] = static_cast<float>(b[i]);
  if (m > 0 && n > 0 && k > 0) {
    gemm::Gemm(trans_a, trans_b, m, n, k, af.data(), lda, bf.data(), ldb, cf.data(), n, false);
  }
  NarrowProducts(cf.data(), c, m * n);
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_SMALL_FLOAT_GEMM_H_
