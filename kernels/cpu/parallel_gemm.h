// One matrix product spread over the device's threads: MatMul's, and BatchMatMul's when
// its batch flattens into one product (a Dense layer on tokens: [batch, tokens, d] times a
// shared [d, units]).
#ifndef TENSORACT_KERNELS_CPU_PARALLEL_GEMM_H_
#define TENSORACT_KERNELS_CPU_PARALLEL_GEMM_H_

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/gemm.h"
#include "kernels/device.h"
#include "kernels/op_kernel.h"

namespace tensoract {

// c [m, n] (leading dimension n) = op(a) [m, k] x op(b) [k, n], a and b row-major with leading
// dimensions lda and ldb (transposed: a is [k, m], b is [n, k]). Each block, once computed,
// is handed to after(c_block, rows, cols, first_column) (a fused epilogue; rows are n
// apart) on the thread that computed it.
template <class T, class After>
void ParallelGemm(OpKernelContext* ctx, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
                  const T* a, int64_t lda, const T* b, int64_t ldb, T* c, After after) {
  // One block per thread by rows: GEMM packs its right-hand side once per call, so fewer, larger
  // blocks beat the finer chunks element-wise kernels use. Rows when there are more of
  // them, else columns, so a [1, n] product still splits. But an untransposed A that fits
  // in a core's L2 (2 MiB here) splits by columns wherever each thread gets whole 64-column
  // panels: each thread then packs only its share of B and reads A in place from cache,
  // where a split by rows packs all of B once per thread (a dense layer at batch 512,
  // [512, 784] x [784, 256], on two threads: MLP training 176 -> 197 steps/s, medians of 7
  // alternations; faster in 10 of 12 pairs over two runs). A larger A stays split by
  // rows: 2048^3 on two threads lost 20% when both threads streamed all of it. So does a
  // tall A with a narrow B (m > 4n), whose B costs little to pack twice: a Dense layer on
  // 4,096 tokens, [4096, 64] x [64, 128], ran at 81 GFLOP/s split by columns and 181 by rows.
  const int threads = ctx->device() == nullptr ? 1 : ctx->device()->num_threads();
  const bool share_a =
      !transpose_a && m * k * int64_t{sizeof(T)} <= (int64_t{2} << 20) && n >= 64 * threads && m <= 4 * n;
  const bool by_rows = !share_a && m >= n;
  const int64_t extent = by_rows ? m : n;
  // A column split shares A, so finer blocks cost no extra packing: four per thread, claimed
  // as the threads come, so a thread the OS takes off its core for a while (an input
  // pipeline's runner waking, another process) leaves its blocks to the others instead of
  // holding the product up. (Fashion-MNIST's MLP fed from a pipeline on 2 vCPUs: 48.4k ->
  // 52.0k examples/s, medians of 16 alternations, faster in 11; fed: 51.3k -> 51.7k.)
  const int64_t per_thread_blocks = share_a ? 4 : 1;
  const int64_t blocks = (m * n * k < gemm::kParallelMacs)
                             ? 1
                             : std::min<int64_t>(per_thread_blocks * threads, share_a ? extent / 64 : extent);
  // Whole 64-column panels of the GEMM's tiles per block where there are enough.
  const int64_t quantum = (!by_rows && extent >= 64 * blocks) ? 64 : 1;
  const int64_t step = ((extent + blocks - 1) / blocks + quantum - 1) / quantum * quantum;
  CwiseParallelFor(ctx, blocks, int64_t{1} << 40, [&](int64_t first, int64_t last) {
    for (int64_t blk = first; blk < last; ++blk) {
      const int64_t lo = blk * step, hi = std::min(extent, lo + step);
      if (lo >= hi) continue;
      if (by_rows) {  // rows [lo, hi) of op(a) and of c
        gemm::Gemm(transpose_a, transpose_b, hi - lo, n, k, transpose_a ? a + lo : a + lo * lda, lda, b, ldb,
                   c + lo * n, n, false);
        after(c + lo * n, hi - lo, n, int64_t{0});
      } else {  // columns [lo, hi) of op(b) and of c
        gemm::Gemm(transpose_a, transpose_b, m, hi - lo, k, a, lda, transpose_b ? b + lo * ldb : b + lo, ldb, c + lo,
                   n, false);
        after(c + lo, m, hi - lo, lo);
      }
    }
  });
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_PARALLEL_GEMM_H_
