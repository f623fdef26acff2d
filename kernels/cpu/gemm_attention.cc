// gemm::AttentionHead: one head's attention over a block of query rows, on the products'
// register tiles (gemm_tile.h). Heads are shallow in the models people serve (Keras' and
// ViT's 16-64), so a general GEMM call per product spends more on packing, on padding its
// 64-column panels and on its narrow 12 x 16 tile than on multiplying (_FusedAttention ran
// at 69 GFLOP/s on two cores where the dense layers beside it ran at 200). Here the head's
// keys are transposed and its values copied into contiguous rows once per call, and each
// tile of MR query rows goes through three steps that all stay in L1:
//
//   scores [MR, S] = q rows x k^T, then times the scale    (MR x kL*NV tiles over k^T)
//   each row: + mask row (optional), softmax               (Eigen's vectorised exp)
//   out [MR, H'] = scores x v                               (MR x kL*NV tiles over v)
//
// The products are those of the GEMM calls it replaces (the same FMA chain over the depth
// as gemm::Sgemm's tiles, for depths up to its 512-deep blocks); the softmax differs from the
// Softmax kernel's by the rounding of a few elements' exp (Eigen's vectorised exp where that
// kernel's row tails take the C library's) and of the sum's order.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_tile.h"

namespace tensoract {
namespace gemm {

#if TENSORACT_HAVE_SIMD

namespace {

// Tiles: 6 rows x 4 vectors (AVX-512; 2 with AVX2), gemm.cc's, over the keys; a head of
// one vector of values (depth 16 with AVX-512) takes 12 rows a tile instead, so that 12
// FMA chains hide each other's latency where 6 left the FMA units idle a third of the time.
constexpr int kRows = 12;                     // query rows per block
constexpr int kVectors = kWide ? 4 : 2;       // vectors of columns per wide tile

int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// c [rows, n) = a [rows, depth] x b [depth, n padded to whole vectors], a's rows as row
// pointers, b's rows ldb apart, for up to kRows rows, on gemm_tile.h's Tile: 12 x 1-vector
// tiles where b is one vector wide, else 6 x kVectors tiles (then 6 x 1 for the last
// vectors) for each half of the rows.
void RowsTimes(const float* const* a, int64_t depth, const float* b, int64_t ldb, int64_t n, float* c, int64_t ldc,
               int64_t rows) {
  if (n <= kL) {
    Tile<kRows, 1>(1, depth, a, b, ldb, c, ldc, rows, n, false);
    return;
  }
  for (int half = 0; half * 6 < rows; ++half) {
    const float* const* a6 = a + 6 * half;
    float* c6 = c + 6 * half * ldc;
    const int64_t rows6 = std::min<int64_t>(6, rows - 6 * half);
    int64_t j = 0;
    for (; j + kL * kVectors <= n; j += kL * kVectors) {
      Tile<6, kVectors>(1, depth, a6, b + j, ldb, c6 + j, ldc, rows6, kL * kVectors, false);
    }
    for (; j < n; j += kL) Tile<6, 1>(1, depth, a6, b + j, ldb, c6 + j, ldc, rows6, n - j, false);
  }
}

// Softmax of a row of scores padded with -infinity to whole vectors, 64-byte aligned: Eigen
// then runs its vectorised exp over all of it, where a row of 197 at any alignment took up
// to 20 of its elements through the C library's expf one at a time.
void SoftmaxPaddedRow(float* row, int64_t n) {
  Eigen::Map<Eigen::ArrayXf, Eigen::Aligned64> x(row, n);
  const float max = x.maxCoeff();
  x = (x - max).exp();
  x *= 1.f / x.sum();
}

struct Buffers {
  std::vector<float> keys_t, values, scores;
  // The scores' rows, 64-byte aligned in `scores`.
  float* ScoreRows(int64_t floats) {
    scores.resize(floats + 16);
    const uintptr_t at = reinterpret_cast<uintptr_t>(scores.data());
    return scores.data() + ((64 - at % 64) % 64) / sizeof(float);
  }
};
thread_local Buffers tls_buffers;

}  // namespace

bool AttentionHead(int64_t t, int64_t s, int64_t h, int64_t hv, const float* q, int64_t ldq, const float* k,
                   int64_t ldk, const float* v, int64_t ldv, float scale, const float* mask, int64_t ldm, float* out,
                   int64_t ldo) {
  if (t <= 0 || s <= 0 || h <= 0 || hv <= 0) return false;
  Buffers& buf = tls_buffers;
  // keys^T [h, sp] and values [s, hvp], zero-padded to whole vectors.
  const int64_t sp = RoundUp(s, kL), hvp = RoundUp(hv, kL);
  buf.keys_t.resize(h * sp);
  for (int64_t d = 0; d < h; ++d) {
    float* row = buf.keys_t.data() + d * sp;
    for (int64_t j = 0; j < s; ++j) row[j] = k[j * ldk + d];
    std::fill(row + s, row + sp, 0.f);
  }
  buf.values.resize(s * hvp);
  for (int64_t j = 0; j < s; ++j) {
    float* row = buf.values.data() + j * hvp;
    std::copy(v + j * ldv, v + j * ldv + hv, row);
    std::fill(row + hv, row + hvp, 0.f);
  }
  float* scores = buf.ScoreRows(kRows * sp);
  const float* row_of[kRows];
  for (int64_t i0 = 0; i0 < t; i0 += kRows) {
    const int64_t rows = std::min<int64_t>(kRows, t - i0);
    // Rows past the end repeat the last one (their results are not stored).
    for (int i = 0; i < kRows; ++i) row_of[i] = q + (i0 + std::min<int64_t>(i, rows - 1)) * ldq;
    RowsTimes(row_of, h, buf.keys_t.data(), sp, sp, scores, sp, rows);
    for (int64_t i = 0; i < rows; ++i) {
      float* row = scores + i * sp;
      if (scale != 1.f) Eigen::Map<Eigen::ArrayXf, Eigen::Aligned64>(row, s) *= scale;
      if (mask != nullptr) {
        const float* add = mask + (i0 + i) * ldm;
        for (int64_t j = 0; j < s; ++j) row[j] += add[j];
      }
      std::fill(row + s, row + sp, -std::numeric_limits<float>::infinity());
      SoftmaxPaddedRow(row, sp);
    }
    for (int i = 0; i < kRows; ++i) row_of[i] = scores + std::min<int64_t>(i, rows - 1) * sp;
    // The value rows' padding columns come out as zeros and are not stored.
    RowsTimes(row_of, s, buf.values.data(), hvp, hv, out + i0 * ldo, ldo, rows);
  }
  return true;
}

#else  // no vector kernels: _FusedAttention keeps its GEMM calls

bool AttentionHead(int64_t, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t, const float*,
                   int64_t, float, const float*, int64_t, float*, int64_t) {
  return false;
}

#endif

}  // namespace gemm
}  // namespace tensoract
