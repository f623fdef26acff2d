// A float MatMul on oneDNN's matmul kernels (brgemm): with its operands rounded to bfloat16,
// what MatMul and _FusedMatMul run when their session asked for products in bfloat16
// (kernels/cpu/bfloat16_products.h, on AVX512-BF16 and AMX); or in float
// (OnednnMatMul(/*float_products=*/true)), where the weights are constants of a served model
// (graph/optimizer/constant_weights.h) and the build has AVX-512. Sums and the output are
// float; the fused epilogue is ours, applied to each block of rows as it is done.
//
//   OnednnMatMul bf16;                            // one per kernel instance
//   if (bf16.Run(ctx, ta, tb, m, n, k, a, lda, b, out, after)) return;
//   ... the float GEMM ...
//
// Run returns false (having computed nothing) where oneDNN is not built in or has no
// kernel for the shape. b, the weights, is reordered (and rounded) into oneDNN's blocked
// layout once per tensor (OnednnWeightCache); a is rounded on each call in bfloat16. Rows of
// the output are shared out among the device's threads (at small m, its columns), each block
// on one oneDNN thread; in bfloat16, up to kFewRows rows, a product of our own streams a plain
// bfloat16 copy of b instead (RunFewRows). In float Run declines those, a transposed a and
// slices of columns: our GEMM's.
// Thread-safe: the kernel may run for several steps at once.
#ifndef TENSORACT_KERNELS_CPU_ONEDNN_MATMUL_H_
#define TENSORACT_KERNELS_CPU_ONEDNN_MATMUL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>

#include "kernels/cpu/onednn_primitive_cache.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace tensoract {

class OnednnWeightCache;

class OnednnMatMul {
 public:
  // float_products: the operands multiplied as they are, instead of rounded to bfloat16.
  explicit OnednnMatMul(bool float_products = false);
  ~OnednnMatMul();

  // Products smaller than this (multiply-adds) stay on the float GEMM: oneDNN's call and the
  // rounding of a cost more than bfloat16 saves (an LSTM step's product of one token).
  static constexpr int64_t kMinMultiplyAdds = int64_t{1} << 20;
  // Up to this many rows, Run streams the weights through a product of its own
  // (RunFewRows): a classifier at batch 1.
  static constexpr int64_t kFewRows = 4;

  // c [m, n] = op(a) [m, k] x op(b) [k, n], as ParallelGemm (kernels/cpu/parallel_gemm.h):
  // a row-major with leading dimension lda ([k, m] when transposed), b a [k, n] matrix
  // ([n, k] when transposed); then after(c_block, rows, cols, first_column) for each block
  // (rows n apart): blocks of rows, or at small m slices of the columns.
  bool Run(OpKernelContext* ctx, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, const float* a,
           int64_t lda, const Tensor& b, float* c,
           const std::function<void(float*, int64_t, int64_t, int64_t)>& after);

 private:
  struct Entry;
  // Run's work for m <= kFewRows: b rounded once into a plain bfloat16 copy (kept in
  // weights_), each thread a slice of the columns.
  bool RunFewRows(OpKernelContext* ctx, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
                  const float* a, int64_t lda, const Tensor& b, float* c,
                  const std::function<void(float*, int64_t, int64_t, int64_t)>& after);
  // The primitive for `rows` rows and `cols` of the output's n columns.
  std::shared_ptr<Entry> EntryFor(bool transpose_a, bool transpose_b, int64_t rows, int64_t cols, int64_t n, int64_t k,
                                  int64_t lda);
  using Key = std::tuple<bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t>;
  OnednnPrimitiveCache<Key, Entry> cache_;
  std::unique_ptr<OnednnWeightCache> weights_;
  const bool float_;  // the constructor's float_products
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ONEDNN_MATMUL_H_
