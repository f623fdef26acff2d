// The packed GEMM of gemm.h (and the packing of convolution filters, which is B's). A tile
// of C of MR rows x NV vectors of columns lives in MR*NV registers (AVX-512 or AVX2,
// gemm_tile.h) while k runs; per k it loads NV vectors of B and broadcasts MR values of A,
// MR*NV fused multiply-adds. The convolutions on the same tiles are in gemm_conv.cc.
//
// Sgemm follows the usual blocking: B cut into [KC, NC] blocks packed into panels one tile
// wide (AVX-512: a 64-column panel of KC = 512 rows is 128 KiB: it streams from L2 while MC
// rows of A pass it; AVX2: a 16-column one of 256 rows is 16 KiB and stays in L1), A read in
// place ([MC, KC] of it in L2), or packed into MR-row panels when transposed (and, with
// AVX2, for products of 512 columns or more).
#include "kernels/cpu/gemm.h"

#include "kernels/allocator.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <Eigen/Core>

#include "kernels/cpu/gemm_tile.h"

namespace tensoract {
namespace gemm {

PackedFilter::~PackedFilter() { std::free(data); }

namespace {

// The columns of a packed filter's panel (the convolutions' register tiles are that wide):
// 64 (6 x 64 tiles) where the out depth is a multiple of 64, else 32 (8 x 32) with AVX-512;
// 16 (6 x 16) with AVX2.
int64_t ConvPanelWidth(int64_t n) {
#if TENSORACT_HAVE_SIMD
  if constexpr (!kWide) return 2 * kL;
#endif
  return n % 64 == 0 ? 64 : 32;
}

float* AlignedAlloc(int64_t floats) {
  const size_t bytes = (static_cast<size_t>(std::max<int64_t>(floats, 16)) * sizeof(float) + 63) / 64 * 64;
  return static_cast<float*>(AlignedHostAlloc(64, bytes));
}

// A per-thread scratch buffer that only grows.
struct Scratch {
  float* data = nullptr;
  int64_t size = 0;
  ~Scratch() { std::free(data); }
  float* Get(int64_t floats) {
    if (floats > size) {
      std::free(data);
      data = AlignedAlloc(floats);
      size = floats;
    }
    return data;
  }
};

int64_t Panels(int64_t n, int64_t nr) { return (n + nr - 1) / nr; }

#if defined(__AVX2__) && !defined(__AVX512F__)
// dst[q * ld_dst + i] = src[i * ld_src + q] for an 8 x 8 block.
inline void Transpose8x8(const float* src, int64_t ld_src, float* dst, int64_t ld_dst) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ld_src);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
  // In ascending order: with ld_dst < 8 (PackA's 6-float rows) each row overwrites the
  // previous one's last lanes, which belong to it.
  for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dst + i * ld_dst, t[i]);
}
#endif

// Packs rows [0, k) and columns [0, n) of op(b) into nr-column panels [panel][k][nr],
// zero-padding the last panel.
void PackB(bool trans_b, const float* b, int64_t ldb, int64_t k, int64_t n, int64_t nr, float* dst) {
  for (int64_t j0 = 0; j0 < n; j0 += nr, dst += k * nr) {
    const int64_t cols = std::min(nr, n - j0);
    if (!trans_b) {
      // B's rows are ldb apart (pages apart in a wide B), each its own trip to memory: the
      // row kAhead rows on is requested while this one is copied, and a full row is copied
      // inline. (A memcpy call per row, each waiting on its row, took half of a 64 x 1024 x
      // 3136 product: a dense layer's forward pass at batch 64. Now 1.4-1.5x faster, 1024^3
      // 1.04x.)
      constexpr int64_t kAhead = 16;
      for (int64_t p = 0; p < k; ++p) {
        const float* src = b + p * ldb + j0;
        float* out = dst + p * nr;
#if TENSORACT_HAVE_SIMD
        if (p + kAhead < k) {
          for (int64_t q = 0; q < cols; q += 16) {  // a cache line a request
            _mm_prefetch(reinterpret_cast<const char*>(src + kAhead * ldb + q), _MM_HINT_T0);
          }
        }
        if (cols == nr && nr % kL == 0) {
          for (int64_t q = 0; q < nr; q += kL) Simd::Store(out + q, Simd::Load(src + q));
          continue;
        }
#endif
        std::memcpy(out, src, cols * sizeof(float));
        if (cols < nr) std::memset(out + cols, 0, (nr - cols) * sizeof(float));
      }
    } else {
      int64_t j = 0;
#if defined(__AVX512F__)
      // 16 columns at a time: one gather per k of their 16 values (a scalar loop writing
      // one strided float at a time was 20% of a 512 x 3136 x 1024 product).
      if (ldb <= INT32_MAX / 16) {
        const __m512i rows = _mm512_mullo_epi32(
            _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi32(int32_t(ldb)));
        for (; j + 16 <= cols; j += 16) {
          const float* src = b + (j0 + j) * ldb;
          for (int64_t p = 0; p < k; ++p) _mm512_storeu_ps(dst + p * nr + j, _mm512_i32gather_ps(rows, src + p, 4));
        }
      }
#elif defined(__AVX2__)
      // 8 columns x 8 k at a time, transposed in registers (AVX2's gathers are slow).
      for (; j + 8 <= cols; j += 8) {
        const float* src = b + (j0 + j) * ldb;
        int64_t p = 0;
        for (; p + 8 <= k; p += 8) Transpose8x8(src + p, ldb, dst + p * nr + j, nr);
        for (; p < k; ++p) {
          for (int64_t q = 0; q < 8; ++q) dst[p * nr + j + q] = src[q * ldb + p];
        }
      }
#endif
      for (; j < nr; ++j) {
        float* out = dst + j;
        if (j >= cols) {
          for (int64_t p = 0; p < k; ++p) out[p * nr] = 0.f;
          continue;
        }
        const float* src = b + (j0 + j) * ldb;
        for (int64_t p = 0; p < k; ++p) out[p * nr] = src[p];
      }
    }
  }
}

}  // namespace

void PackFilter(const float* filter, int64_t k, int64_t n, PackedFilter* packed) {
  const int64_t nr = ConvPanelWidth(n), floats = Panels(n, nr) * nr * k;
  // A filter packed again at the same size (a training step's new weights) reuses the
  // buffer, whose pages are already mapped.
  if (packed->data == nullptr || Panels(packed->n, packed->nr) * packed->nr * packed->k != floats) {
    std::free(packed->data);
    packed->data = AlignedAlloc(floats);
  }
  packed->k = k;
  packed->n = n;
  packed->nr = nr;
  PackB(false, filter, n, k, n, packed->nr, packed->data);
}

void PackFlippedFilter(const conv::ConvDims& d, const float* filter, PackedFilter* packed) {
  // The backprop's filter: [fr', fc', out_depth, in_depth] with fr' = rows-1-fr.
  const int64_t rows = d.filter_rows, cols = d.filter_cols, ci = d.in_depth, co = d.out_depth;
  std::vector<float> flipped(rows * cols * ci * co);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const float* src = filter + ((rows - 1 - r) * cols + (cols - 1 - c)) * ci * co;
      float* dst = flipped.data() + (r * cols + c) * co * ci;
      for (int64_t i = 0; i < ci; ++i) {
        for (int64_t o = 0; o < co; ++o) dst[o * ci + i] = src[i * co + o];
      }
    }
  }
  PackFilter(flipped.data(), rows * cols * co, ci, packed);
}

namespace {

template <class T>
void EigenGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
               int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  if (m <= 0 || n <= 0) return;
  Eigen::Map<Matrix, 0, Stride> cm(c, m, n, Stride(ldc));
  if (!accumulate) cm.setZero();
  if (k <= 0) return;
  Eigen::Map<const Matrix, 0, Stride> am(a, trans_a ? k : m, trans_a ? m : k, Stride(lda));
  Eigen::Map<const Matrix, 0, Stride> bm(b, trans_b ? n : k, trans_b ? k : n, Stride(ldb));
  if (!trans_a && !trans_b) cm.noalias() += am * bm;
  else if (trans_a && !trans_b) cm.noalias() += am.transpose() * bm;
  else if (!trans_a) cm.noalias() += am * bm.transpose();
  else cm.noalias() += am.transpose() * bm.transpose();
}

}  // namespace

void Dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
           const double* b, int64_t ldb, double* c, int64_t ldc, bool accumulate) {
  EigenGemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

#if TENSORACT_HAVE_SIMD

bool HaveFastKernels() { return true; }

const char* KernelIsa() { return Simd::kName; }

namespace {

// The register tiles, by the registers there are. AVX-512 (32 registers of 16 floats):
// Sgemm's tile is 6 rows x 64 columns (24 accumulators; per k 4 loads of B and 6
// broadcasts of A). Measured in L1 on an AVX-512 Xeon: 6x64 and 8x32 run at ~95% of the
// FMA peak, 12x32 (14 loads per 24 FMAs) at ~80%: the load ports, not the FMA units, limit
// taller tiles. AVX2 (16 registers of 8 floats): 6 x 16 (12 accumulators, 2 vectors of B
// and a broadcast), the usual Haswell/Zen shape.
constexpr int kMR = 6, kNV = kWide ? 4 : 2;
// Blocks: KC rows of B per pass over C, MC rows of A per B block, NC columns of B.
// AVX-512: a larger KC means fewer passes of C through the caches: 512 measured 4-8% faster
// than 256 from 512 x 784 x 256 to 2048^3, in A/B rounds of KC 128-1024 and MC 96-384; NC
// 512 keeps a packed [KC, NC] block at 1 MiB, half a core's L2, so it stays there while all
// of A's row blocks pass it (with 4096, a 1024-column block filled L2: 512 x 3136 x 1024
// with B transposed 83 -> 96 GFLOP/s, 2048^3 on two threads +8%), but a packed (transposed)
// A is packed again for every NC block, so it keeps 4096 (3136 x 1024 x 512 with A
// transposed lost 5% at 512). AVX2 (a Zen 3 core: 32 KiB L1, 512 KiB L2): a [KC, 16] panel
// of B at KC 256 is 16 KiB, so it stays in L1 while a block of A's rows passes it; KC 192
// measured 2-4% slower than 256 and 384 (256^3 to 2048^3, one thread, three alternations),
// MC 96 about even with 144 and 240.
constexpr int64_t kKC = kWide ? 512 : 256, kMC = kWide ? 192 : 96, kNC = 512, kNCPackedA = 4096;
// AVX2 packs an untransposed A too (see BlockedSgemm): 1024^3 and 2048^3 4-7% faster on one
// thread (three alternations), 512^3 +1%; 256^3 lost 1-2%, so n < 512 reads A in place.
constexpr bool kPackPlainA = !kWide;

// The tile of gemm_tile.h over a packed panel of A ([depth][MR], see PackTransposedA): one pointer
// serves all MR broadcasts, where MR row pointers each stepping by MR cost an add apiece per
// k (interleaved A/B, one thread, four runs: 1024^3 with A transposed 0-15% faster, 784 x
// 256 x 512, an MLP's weight gradient, 1-6%; never slower beyond noise).
template <int MR, int NV>
void PackedATile(int64_t depth, const float* __restrict a, const float* __restrict b, int64_t b_step, float* c,
                 int64_t ldc, int64_t nrows, int64_t cols, bool add) {
  PrefetchTileOfC<NV>(c, ldc, nrows);
  Simd::V acc[MR * NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR * NV; ++i) acc[i] = Simd::Zero();
#pragma GCC unroll 2
  for (int64_t p = 0; p < depth; ++p, a += MR, b += b_step) {
    Simd::V bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = Simd::Load(b + kL * v);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const Simd::V av = Simd::Broadcast(a[i]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i * NV + v] = Simd::Fma(av, bv[v], acc[i * NV + v]);
    }
  }
  StoreTile<MR, NV>(acc, c, ldc, nrows, cols, add);
}

// Packs rows [0, m) x columns [0, k) of a^T (a is [k, m]) into MR-row panels [panel][k][MR]:
// a vector's worth of a panel row at a time (was a scalar loop). A panel row is stored as
// whole vectors, in ascending order, so lanes past MR land in the next row's place before
// that row is written (AVX2's masked stores are slow); up to kL floats past the panels are
// written (the scratch has room). Lanes past m load as zeros.
template <int MR>
void PackTransposedA(const float* a, int64_t lda, int64_t m, int64_t k, float* dst) {
  for (int64_t i0 = 0; i0 < m; i0 += MR, dst += k * MR) {
    for (int64_t p = 0; p < k; ++p) {
      const float* src = a + p * lda + i0;
      for (int q = 0; q < MR; q += kL) {
        const int64_t valid = m - i0 - q;
        Simd::Store(dst + p * MR + q, LoadPart(src + q, Simd::FirstLanes(valid), valid >= kL));
      }
    }
  }
}

// Packs rows [0, m) x columns [0, k) of a (a is [m, k]) into MR-row panels [panel][k][MR]
// like PackTransposedA. Writes up to 8 floats past the panels (the scratch has room).
template <int MR>
void PackA(const float* a, int64_t lda, int64_t m, int64_t k, float* dst) {
  for (int64_t i0 = 0; i0 < m; i0 += MR, dst += k * MR) {
    const int64_t rows = std::min<int64_t>(MR, m - i0);
    int64_t p = 0;
#if defined(__AVX2__) && !defined(__AVX512F__)
    // 8 rows x 8 k transposed in registers, for MR <= 8 and 8 rows to read (the ones past
    // the panel's MR are overwritten).
    if (MR <= 8 && i0 + 8 <= m) {
      for (; p + 8 <= k; p += 8) Transpose8x8(a + i0 * lda + p, lda, dst + p * MR, MR);
    }
#endif
    for (; p < k; ++p) {
      for (int64_t i = 0; i < MR; ++i) dst[p * MR + i] = i < rows ? a[(i0 + i) * lda + p] : 0.f;
    }
  }
}

thread_local Scratch tls_a, tls_b, tls_t;

// The blocked product with an MR x kL*NV register tile (see Sgemm).
template <int MR, int NV>
void BlockedSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  constexpr int64_t NR = kL * NV;
  // AVX2 packs A too (one pointer for a tile's broadcasts, one stream from L2, where six
  // row pointers each streamed their own), but for a product of a few rows.
  const bool pack_a = trans_a || (kPackPlainA && m > 2 * MR && n >= 512);
  const int64_t NC = pack_a ? kNCPackedA : kNC;
  // k in equal blocks of at most kKC (784 = 2 x 392, not 512 + 272; a thin last block pays
  // a pass over C for a few k).
  const int64_t k_blocks = (k + kKC - 1) / kKC, KC = (k + k_blocks - 1) / k_blocks;
  // A without a transpose is read in place; B is packed into panels: all of a [kc, nc]
  // block up front when several blocks of rows reuse it, else each panel just before its
  // one pass of row tiles, which then finds it in cache. (Reading B in place for 64 rows,
  // as this did before, lost 5-15%: its rows are pages apart and thrash L1's sets.) For
  // two row tiles or fewer (a narrow product's transpose) packing costs more than it saves:
  // B is read in place there, but for a last partial panel.
  const bool b_in_place = !trans_b && m <= 2 * MR;
  const bool pack_per_panel = b_in_place || m <= kMC;
  float* bpack = tls_b.Get(KC * (pack_per_panel ? NR : Panels(std::min(n, NC), NR) * NR));
  float* apack = pack_a ? tls_a.Get(KC * ((std::min(m, kMC) + MR - 1) / MR) * MR + kL) : nullptr;
  const float* rows[MR];
  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = std::min(NC, n - jc);
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc);
      const bool add = accumulate || pc > 0;
      if (!pack_per_panel) PackB(trans_b, trans_b ? b + jc * ldb + pc : b + pc * ldb + jc, ldb, kc, nc, NR, bpack);
      for (int64_t ic = 0; ic < m; ic += kMC) {
        const int64_t mc = std::min(kMC, m - ic);
        if (trans_a) PackTransposedA<MR>(a + pc * lda + ic, lda, mc, kc, apack);
        else if (pack_a) PackA<MR>(a + ic * lda + pc, lda, mc, kc, apack);
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const int64_t cols = std::min(NR, nc - jr);
          const float* bp = bpack + (jr / NR) * kc * NR;
          int64_t b_step = NR;
          if (b_in_place && cols == NR) {
            bp = b + pc * ldb + jc + jr;
            b_step = ldb;
          } else if (pack_per_panel) {
            const int64_t j = jc + jr;
            PackB(trans_b, trans_b ? b + j * ldb + pc : b + pc * ldb + j, ldb, kc, cols, NR, bpack);
            bp = bpack;
          }
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const int64_t nrows = std::min<int64_t>(MR, mc - ir);
            float* ct = c + (ic + ir) * ldc + jc + jr;
            if (pack_a) {
              // A packed panel's rows past the end are zeros (their results are not stored).
              PackedATile<MR, NV>(kc, apack + (ir / MR) * kc * MR, bp, b_step, ct, ldc, nrows, cols, add);
              continue;
            }
            // Rows past the end repeat the last one (their results are not stored).
            for (int64_t i = 0; i < MR; ++i) rows[i] = a + (ic + ir + std::min(i, nrows - 1)) * lda + pc;
            Tile<MR, NV>(1, kc, rows, bp, b_step, ct, ldc, nrows, cols, add);
          }
        }
      }
    }
  }
}

// c[MR, n] += a[MR, p : p + D] b[p : p + D, n]: each vector of c takes its D products in k's
// order (one chain of fused multiply-adds per value, as a register tile's).
template <int MR, int D>
void RowStreamStep(int64_t n, int64_t p, const float* a, int64_t a_row, int64_t a_col, const float* b, int64_t ldb,
                   float* c, int64_t ldc, int64_t full, Simd::Mask tail) {
  Simd::V av[MR][D];
  for (int i = 0; i < MR; ++i)
    for (int q = 0; q < D; ++q) av[i][q] = Simd::Broadcast(a[i * a_row + (p + q) * a_col]);
  const float* b0 = b + p * ldb;
  for (int64_t j = 0; j < n; j += kL) {
    const bool whole = j < full;
    Simd::V bv[D];
    for (int q = 0; q < D; ++q) bv[q] = LoadPart(b0 + q * ldb + j, tail, whole);
    for (int i = 0; i < MR; ++i) {
      Simd::V x = LoadPart(c + i * ldc + j, tail, whole);
      for (int q = 0; q < D; ++q) x = Simd::Fma(av[i][q], bv[q], x);
      StorePart(c + i * ldc + j, tail, whole, x);
    }
  }
}

// c[MR, n] (+)= a[MR, k] b[k, n] for a few rows, a's value (i, p) at a[i * a_row + p * a_col],
// streaming B's rows in order, four at a time (the last k % 4 one by one), so c stays in L1.
template <int MR>
void RowStreamSgemm(int64_t n, int64_t k, const float* a, int64_t a_row, int64_t a_col, const float* b, int64_t ldb,
                    float* c, int64_t ldc, bool accumulate) {
  if (!accumulate) {
    for (int i = 0; i < MR; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.f);
  }
  const int64_t full = n / kL * kL;
  const Simd::Mask tail = Simd::FirstLanes(n - full);
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) RowStreamStep<MR, 4>(n, p, a, a_row, a_col, b, ldb, c, ldc, full, tail);
  for (; p < k; ++p) RowStreamStep<MR, 1>(n, p, a, a_row, a_col, b, ldb, c, ldc, full, tail);
}

}  // namespace

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
           int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.f);
    }
    return;
  }
  if (k < 4) {
    EigenGemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
    return;
  }
  // Where op(a) or op(b) would cost as much to pack as the product, compute c^T = op(b)^T *
  // op(a)^T instead, which reads them in place, and write c from it:
  //  - few rows and a transposed B (a dense layer's input gradient, dy * W^T; measured
  //    38 GFLOP/s for 64 x 3136 x 1024 before);
  //  - a transposed A and a narrow product (a 10-class layer's weight gradient, x^T * dy:
  //    packing x^T took longer than the product).
  // Writing c back from c^T costs a scalar pass over c (m x n), where packing the operand
  // costs its size: so only where that operand is the larger (k > m: attention's scores,
  // [166, 197] = [166, 16] x [197, 16]^T, spent more time transposing than multiplying).
  if ((trans_b && m <= 256 && n > m && k > m) || (trans_a && n <= 16 && m > n && k > n)) {
    float* ct = tls_t.Get(n * m);
    Sgemm(!trans_b, !trans_a, n, m, k, b, ldb, a, lda, ct, m, false);
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      for (int64_t j = 0; j < n; ++j) row[j] = (accumulate ? row[j] : 0.f) + ct[j * m + i];
    }
    return;
  }
  if (m <= 4 && !trans_b) {
    // A few rows (a dense layer at batch 1, a recurrent step) stream B's rows in place: a
    // register tile of 6 rows did 6 rows' multiplies for each real one there, and B is
    // read once either way (1 x 1280 x 1000, one thread: 10-12 -> 16-19 GFLOP/s on a Zen 3).
    const int64_t a_row = trans_a ? 1 : lda, a_col = trans_a ? lda : 1;
    switch (m) {
      case 1: RowStreamSgemm<1>(n, k, a, a_row, a_col, b, ldb, c, ldc, accumulate); return;
      case 2: RowStreamSgemm<2>(n, k, a, a_row, a_col, b, ldb, c, ldc, accumulate); return;
      case 3: RowStreamSgemm<3>(n, k, a, a_row, a_col, b, ldb, c, ldc, accumulate); return;
      default: RowStreamSgemm<4>(n, k, a, a_row, a_col, b, ldb, c, ldc, accumulate); return;
    }
  }
  if (n <= kL) {
    // A narrow product (a 10-class logits layer): one vector of columns per row, 12 rows a
    // tile (measured with AVX-512 512 x 10 x 256: 36 us, Eigen 62 us).
    BlockedSgemm<12, 1>(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
    return;
  }
  if constexpr (kWide) {
    if (n < 48) {
      BlockedSgemm<8, 2>(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
      return;
    }
  }
  BlockedSgemm<kMR, kNV>(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

#else  // neither AVX-512 nor AVX2: Eigen's GEMM

bool HaveFastKernels() { return false; }

const char* KernelIsa() { return "Eigen"; }

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
           int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  EigenGemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

#endif

}  // namespace gemm
}  // namespace tensoract
