// The packed GEMM and the convolutions of gemm.h. The one idea everywhere: a tile of C of
// MR rows x NV vectors of columns lives in MR*NV registers (AVX-512 or AVX2, simd.h) while
// k runs; per k it loads NV vectors of B and broadcasts MR values of A, MR*NV fused
// multiply-adds.
//
// Sgemm follows the usual blocking: B cut into [KC, NC] blocks packed into panels one tile
// wide (AVX-512: a 64-column panel of KC = 512 rows is 128 KiB: it streams from L2 while MC
// rows of A pass it; AVX2: a 16-column one of 256 rows is 16 KiB and stays in L1), A
// read in place ([MC, KC] of it in L2), or packed into MR-row panels when transposed (and,
// with AVX2, for products of 512 columns or more). The
// convolutions skip A's packing too: their A rows are input pixels read through pointers.
#include "kernels/cpu/gemm.h"

#include "kernels/allocator.h"

#include <algorithm>
#include <array>
#include <utility>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <Eigen/Core>

#include "kernels/cpu/simd.h"

namespace tensoract {
namespace gemm {

PackedFilter::~PackedFilter() { std::free(data); }

namespace {

#if TENSORACT_HAVE_SIMD
using simd::Simd;
constexpr int kL = Simd::kLanes;                     // floats per vector
constexpr bool kWide = Simd::kRegisters >= 32;        // AVX-512's 32 registers
#endif

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
  std::free(packed->data);
  packed->k = k;
  packed->n = n;
  packed->nr = ConvPanelWidth(n);
  packed->data = AlignedAlloc(Panels(n, packed->nr) * packed->nr * k);
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

bool BackpropInputAsConv(const conv::ConvDims& d, conv::ConvDims* c) {
  if (d.stride_rows != 1 || d.stride_cols != 1 || d.dilation_rows != 1 || d.dilation_cols != 1) return false;
  *c = d;
  c->in_rows = d.out_rows;
  c->in_cols = d.out_cols;
  c->in_depth = d.out_depth;
  c->out_rows = d.in_rows;
  c->out_cols = d.in_cols;
  c->out_depth = d.in_depth;
  c->pad_top = d.filter_rows - 1 - d.pad_top;
  c->pad_left = d.filter_cols - 1 - d.pad_left;
  return c->pad_top >= 0 && c->pad_left >= 0;
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

// The mask of vector v of a tile whose first `cols` columns are valid.
inline Simd::Mask ColumnMask(int64_t cols, int v) { return Simd::FirstLanes(cols - int64_t{kL} * v); }

// A vector at p: all of it when `full`, else the lanes of `mask` (the rest zeros). AVX2's
// masked moves cost more than plain ones (on Zen 3 a masked store is microcoded, several
// cycles each), so the kernels take them only for a last partial vector of columns.
inline Simd::V LoadPart(const float* p, Simd::Mask mask, bool full) {
  return full ? Simd::Load(p) : Simd::MaskLoad(mask, p);
}
inline void StorePart(float* p, Simd::Mask mask, bool full, Simd::V v) {
  if (full) Simd::Store(p, v);
  else Simd::MaskStore(p, mask, v);
}

// bias_grad[j] += sum over `rows` rows of n values (`rows` pixels of out_backprop).
void AddRowSums(const float* rows_data, int64_t rows, int64_t n, float* bias_grad) {
  for (int64_t j0 = 0; j0 < n; j0 += kL) {
    const Simd::Mask k = ColumnMask(n - j0, 0);
    Simd::V acc = Simd::MaskLoad(k, bias_grad + j0);
    for (int64_t r = 0; r < rows; ++r) acc = Simd::Add(acc, Simd::MaskLoad(k, rows_data + r * n + j0));
    Simd::MaskStore(bias_grad + j0, k, acc);
  }
}

// Writes (or adds) rows [0, rows) and columns [0, cols) of the MR x kL*NV tile to c.
template <int MR, int NV>
inline void StoreTile(const Simd::V* acc, float* c, int64_t ldc, int64_t rows, int64_t cols, bool add) {
  Simd::Mask mask[NV];
  bool full[NV];
  for (int v = 0; v < NV; ++v) {
    mask[v] = ColumnMask(cols, v);
    full[v] = cols >= kL * (v + 1);
  }
  for (int64_t i = 0; i < rows; ++i, c += ldc) {
    for (int v = 0; v < NV; ++v) {
      Simd::V x = acc[i * NV + v];
      if (add) x = Simd::Add(x, LoadPart(c + kL * v, mask[v], full[v]));
      StorePart(c + kL * v, mask[v], full[v], x);
    }
  }
}

// Requests the rows of a tile of C: C is likely far (a 1024 x 1024 C is 4 MiB), so its
// lines arrive while k runs, before the tile is stored.
template <int NV>
inline void PrefetchTileOfC(const float* c, int64_t ldc, int64_t nrows) {
  for (int64_t i = 0; i < nrows; ++i) {
    for (int q = 0; q < NV * kL; q += 16) _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + q), _MM_HINT_T0);
  }
}

// The register tile: c[MR rows, kL*NV columns] (+)= sum over taps t and depth p of
// rows[t * MR + i][p] * b(t * depth + p, columns), where b(q, .) = b + q * b_step (a packed
// panel: b_step kL*NV; B in place: its row stride). The rows are A's own (A read in place)
// or a convolution's input pixels.
template <int MR, int NV>
void Tile(int64_t taps, int64_t depth, const float* const* rows, const float* __restrict b, int64_t b_step, float* c,
          int64_t ldc, int64_t nrows, int64_t cols, bool add) {
  PrefetchTileOfC<NV>(c, ldc, nrows);
  Simd::V acc[MR * NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR * NV; ++i) acc[i] = Simd::Zero();
  for (int64_t t = 0; t < taps; ++t, rows += MR) {
    const float* r[MR];
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) r[i] = rows[i];
#pragma GCC unroll 2
    for (int64_t p = 0; p < depth; ++p) {
      Simd::V bv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) bv[v] = Simd::Load(b + kL * v);
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) {
        const Simd::V a = Simd::Broadcast(r[i][p]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i * NV + v] = Simd::Fma(a, bv[v], acc[i * NV + v]);
      }
      b += b_step;
    }
  }
  StoreTile<MR, NV>(acc, c, ldc, nrows, cols, add);
}

// The same tile over a packed panel of A ([depth][MR], see PackTransposedA): one pointer
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
  if ((trans_b && m <= 256 && n > m) || (trans_a && n <= 16 && m > n)) {
    float* ct = tls_t.Get(n * m);
    Sgemm(!trans_b, !trans_a, n, m, k, b, ldb, a, lda, ct, m, false);
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      for (int64_t j = 0; j < n; ++j) row[j] = (accumulate ? row[j] : 0.f) + ct[j * m + i];
    }
    return;
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

namespace {

// A zero-padded copy of one image: row r, column c hold the input pixel (r - pad_top,
// c - pad_left) (in_depth values), for every row and column a tap of an output pixel (or
// a tile overrunning the row by up to `slack` columns, or `extra_rows` more) can read.
// Without dilation across columns, a window's filter row is then one run of filter_cols *
// in_depth floats.
struct PaddedImage {
  int64_t rows = 0, cols = 0, depth = 0;
  std::vector<float> data;
  void Fill(const conv::ConvDims& d, const float* image, int64_t slack, int64_t extra_rows) {
    rows = (d.out_rows - 1) * d.stride_rows + (d.filter_rows - 1) * d.dilation_rows + 1 + extra_rows;
    cols = (d.out_cols - 1) * d.stride_cols + (d.filter_cols - 1) * d.dilation_cols + 1 + slack;
    depth = d.in_depth;
    data.assign(rows * cols * depth, 0.f);
    // The input columns that land inside the copy, one run per row.
    const int64_t c_lo = std::max<int64_t>(0, d.pad_left), c_hi = std::min(cols, d.in_cols + d.pad_left);
    if (c_lo >= c_hi) return;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t ir = r - d.pad_top;
      if (ir < 0 || ir >= d.in_rows) continue;
      std::memcpy(data.data() + (r * cols + c_lo) * depth, image + (ir * d.in_cols + c_lo - d.pad_left) * depth,
                  (c_hi - c_lo) * depth * sizeof(float));
    }
  }
};

// The pixels of one tile: 6 with 64-column panels, 8 with 32 (see kMR).
template <int MR, int NV>
void ConvForwardTiles(const conv::ConvDims& d, const float* input, const PackedFilter& filter, int64_t pixel_begin,
                      int64_t pixel_end, float* output) {
  thread_local std::vector<float> zeros;
  thread_local std::vector<const float*> rows_of_tile;
  thread_local PaddedImage padded[2];
  const int64_t depth = d.in_depth, n = d.out_depth, nr = kL * NV;
  const int64_t out_pixels = d.out_rows * d.out_cols;
  // Through a padded copy of each image, a tile's pixel reads one run of filter_cols * depth
  // floats per filter row: 5 pointers and runs of 160 for a 5x5x32 filter instead of 25 of
  // 32, so the per-tap setup (pointers, loop entry) is paid a fifth as often. The copy is
  // made per image while the tiles reach it (a tile spans at most two images when an image
  // has MR pixels or more: two buffers); per-tap pointers otherwise.
  const bool by_filter_rows = d.dilation_cols == 1 && out_pixels >= MR;
  const int64_t taps = by_filter_rows ? d.filter_rows : d.filter_rows * d.filter_cols;
  const int64_t run = by_filter_rows ? d.filter_cols * depth : depth;
  int64_t padded_image[2] = {-1, -1};
  if (!by_filter_rows && static_cast<int64_t>(zeros.size()) < depth) zeros.assign(depth, 0.f);
  rows_of_tile.resize(taps * MR);
  for (int64_t p0 = pixel_begin; p0 < pixel_end; p0 += MR) {
    const int64_t rows = std::min<int64_t>(MR, pixel_end - p0);
    // The input under each tap (or filter row) of each pixel of the tile; the missing pixels
    // of a last partial tile repeat its last pixel.
    for (int64_t i = 0; i < MR; ++i) {
      const int64_t p = p0 + std::min(i, rows - 1);
      const int64_t image = p / out_pixels, pixel = p % out_pixels;
      const int64_t oh = pixel / d.out_cols, ow = pixel % d.out_cols;
      const float* image_in = input + image * d.in_rows * d.in_cols * depth;
      if (by_filter_rows) {
        PaddedImage& pad = padded[image % 2];
        if (padded_image[image % 2] != image) {
          pad.Fill(d, image_in, 0, 0);
          padded_image[image % 2] = image;
        }
        for (int64_t fr = 0; fr < d.filter_rows; ++fr) {
          const int64_t r = oh * d.stride_rows + fr * d.dilation_rows;
          rows_of_tile[fr * MR + i] = pad.data.data() + (r * pad.cols + ow * d.stride_cols) * depth;
        }
        continue;
      }
      for (int64_t fr = 0, t = 0; fr < d.filter_rows; ++fr) {
        const int64_t ih = oh * d.stride_rows - d.pad_top + fr * d.dilation_rows;
        for (int64_t fc = 0; fc < d.filter_cols; ++fc, ++t) {
          const int64_t iw = ow * d.stride_cols - d.pad_left + fc * d.dilation_cols;
          const bool inside = ih >= 0 && ih < d.in_rows && iw >= 0 && iw < d.in_cols;
          rows_of_tile[t * MR + i] = inside ? image_in + (ih * d.in_cols + iw) * depth : zeros.data();
        }
      }
    }
    for (int64_t j0 = 0; j0 < n; j0 += nr) {
      Tile<MR, NV>(taps, run, rows_of_tile.data(), filter.data + (j0 / nr) * filter.k * nr, nr, output + p0 * n + j0,
                   n, rows, std::min(nr, n - j0), false);
    }
  }
}

}  // namespace

bool ConvForward(const conv::ConvDims& d, const float* input, const PackedFilter& filter, int64_t pixel_begin,
                 int64_t pixel_end, float* output) {
  if constexpr (kWide) {
    if (filter.nr == 64) ConvForwardTiles<6, 4>(d, input, filter, pixel_begin, pixel_end, output);
    else ConvForwardTiles<8, 2>(d, input, filter, pixel_begin, pixel_end, output);
  } else {
    ConvForwardTiles<6, 2>(d, input, filter, pixel_begin, pixel_end, output);
  }
  return true;
}

namespace {

// The filter gradient of `R` input depths [c0, c0 + R) x kL*NV output depths [j0, j0 + cols)
// of one tap (fr, fc), over output rows [oh0, oh1) of one image, added to its rows of the
// HWIO gradient g (g points at [tap][c0][j0]). Per pixel: NV loads of out_backprop (one
// contiguous run), R broadcasts of the input, R*NV FMAs.
template <int R, int NV>
void FilterGradTile(const conv::ConvDims& d, const float* in, const float* dy, int64_t oh0, int64_t oh1, int64_t fr,
                    int64_t fc, int64_t ow_lo, int64_t ow_hi, int64_t cols, float* g) {
  const int64_t ci = d.in_depth, co = d.out_depth;
  const bool full = cols >= NV * kL;
  Simd::Mask mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) mask[v] = ColumnMask(cols, v);
  Simd::V acc[R * NV];
#pragma GCC unroll 32
  for (int i = 0; i < R * NV; ++i) {
    const float* gi = g + (i / NV) * co + kL * (i % NV);
    acc[i] = LoadPart(gi, mask[i % NV], full);
  }
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const int64_t ih = oh - d.pad_top + fr;
    if (ih < 0 || ih >= d.in_rows) continue;
    const float* x = in + (ih * d.in_cols + ow_lo - d.pad_left + fc) * ci;
    const float* y = dy + (oh * d.out_cols + ow_lo) * co;
    for (int64_t ow = ow_lo; ow < ow_hi; ++ow, x += ci, y += co) {
      Simd::V b[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) b[v] = LoadPart(y + kL * v, mask[v], full);
#pragma GCC unroll 12
      for (int i = 0; i < R; ++i) {
        const Simd::V a = Simd::Broadcast(x[i]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i * NV + v] = Simd::Fma(a, b[v], acc[i * NV + v]);
      }
    }
  }
#pragma GCC unroll 32
  for (int i = 0; i < R * NV; ++i) {
    StorePart(g + (i / NV) * co + kL * (i % NV), mask[i % NV], full, acc[i]);
  }
}

// Requests share `slot` of `slots` of the cache lines of data[0, floats) into L2.
void PrefetchShareToL2(const float* data, int64_t floats, int64_t slot, int64_t slots) {
  const int64_t lines = (floats + 15) / 16;
  for (int64_t l = slot * lines / slots; l < (slot + 1) * lines / slots; ++l) {
    _mm_prefetch(reinterpret_cast<const char*>(data + l * 16), _MM_HINT_T1);
  }
}

using FilterGradTileFn = void (*)(const conv::ConvDims&, const float*, const float*, int64_t, int64_t, int64_t,
                                  int64_t, int64_t, int64_t, int64_t, float*);

// The tiles of NV vectors of output depths, by their number of input depths (1 to MR).
template <int NV, int... R>
constexpr std::array<FilterGradTileFn, sizeof...(R)> FilterGradTiles(std::integer_sequence<int, R...>) {
  return {&FilterGradTile<R + 1, NV>...};
}

}  // namespace

bool ConvBackpropFilter(const conv::ConvDims& d, const float* input, const float* out_backprop, int64_t image_begin,
                        int64_t image_end, float* filter_grad, float* bias_grad) {
  if (d.stride_rows != 1 || d.stride_cols != 1 || d.dilation_rows != 1 || d.dilation_cols != 1) return false;
  const int64_t ci = d.in_depth, co = d.out_depth;
  // Tile rows are input depths (broadcast), columns output depths (out_backprop's pixel rows
  // are contiguous in them), so a tile is a block of the HWIO gradient itself: 6 x 64 (the
  // product kernels' tile; 4 loads and 6 broadcasts per 24 FMAs), 8 x 32 or 8 x 16 where the
  // output depths are fewer.
  // With AVX2's 16 registers: 6 x 16, or 12 x 8 for 8 output depths or fewer.
  const FilterGradTileFn* tiles;
  int64_t nr, mr;
  if constexpr (kWide) {
    static constexpr auto kTiles4 = FilterGradTiles<4>(std::make_integer_sequence<int, 6>());
    static constexpr auto kTiles2 = FilterGradTiles<2>(std::make_integer_sequence<int, 8>());
    static constexpr auto kTiles1 = FilterGradTiles<1>(std::make_integer_sequence<int, 8>());
    nr = co > 32 ? 64 : co > 16 ? 32 : 16;
    tiles = nr == 64 ? kTiles4.data() : nr == 32 ? kTiles2.data() : kTiles1.data();
    mr = nr == 64 ? 6 : 8;
  } else {
    static constexpr auto kTiles2 = FilterGradTiles<2>(std::make_integer_sequence<int, 6>());
    static constexpr auto kTiles1 = FilterGradTiles<1>(std::make_integer_sequence<int, 12>());
    nr = co > 8 ? 16 : 8;
    tiles = nr == 16 ? kTiles2.data() : kTiles1.data();
    mr = nr == 16 ? 6 : 12;
  }
  const int64_t in_image = d.in_rows * d.in_cols * ci, out_image = d.out_rows * d.out_cols * co;
  // Bands of output rows whose input rows (band + filter rows - 1) and out_backprop rows fit
  // in ~32 KiB of L1: every (tap, depth block) pass of a band then reads them from L1. A
  // pass over the whole image instead (conv2: 75 KB) came from L2 at 24-48 bytes per cycle.
  const int64_t in_row_bytes = d.in_cols * ci * int64_t{sizeof(float)};
  const int64_t out_row_bytes = d.out_cols * co * int64_t{sizeof(float)};
  const int64_t band = std::clamp<int64_t>(
      ((32 << 10) - (d.filter_rows - 1) * in_row_bytes) / (in_row_bytes + out_row_bytes), 1, d.out_rows);
  // The next image's input and out_backprop are requested into L2 while this one computes,
  // a share at each (band, tap) pass, instead of coming from memory at its first pass (conv2
  // at batch 512 with cold caches: 1.05x, median of 25 interleaved rounds, twice).
  const int64_t taps = d.filter_rows * d.filter_cols, slots = (d.out_rows + band - 1) / band * taps;
  for (int64_t image = image_begin; image < image_end; ++image) {
    const float* in = input + image * in_image;
    const float* dy = out_backprop + image * out_image;
    for (int64_t oh0 = 0; oh0 < d.out_rows; oh0 += band) {
      const int64_t oh1 = std::min(d.out_rows, oh0 + band);
      for (int64_t fr = 0; fr < d.filter_rows; ++fr) {
        // Skip a filter row that reads no input row of the band (padding only).
        const int64_t ih_lo = std::max<int64_t>(oh0 - d.pad_top + fr, 0);
        const int64_t ih_hi = std::min<int64_t>(oh1 - d.pad_top + fr, d.in_rows);
        if (ih_lo >= ih_hi) continue;
        for (int64_t fc = 0; fc < d.filter_cols; ++fc) {
          // Output columns whose tap reads inside the image: iw = ow - pad_left + fc.
          const int64_t ow_lo = std::max<int64_t>(0, d.pad_left - fc);
          const int64_t ow_hi = std::min<int64_t>(d.out_cols, d.in_cols + d.pad_left - fc);
          if (ow_lo >= ow_hi) continue;
          float* g_tap = filter_grad + (fr * d.filter_cols + fc) * ci * co;
          if (image + 1 < image_end) {
            const int64_t slot = (oh0 / band) * taps + fr * d.filter_cols + fc;
            PrefetchShareToL2(in + in_image, in_image, slot, slots);
            PrefetchShareToL2(dy + out_image, out_image, slot, slots);
          }
          for (int64_t c0 = 0; c0 < ci; c0 += mr) {
            const FilterGradTileFn tile = tiles[std::min(mr, ci - c0) - 1];
            for (int64_t j0 = 0; j0 < co; j0 += nr) {
              tile(d, in + c0, dy + j0, oh0, oh1, fr, fc, ow_lo, ow_hi, std::min(nr, co - j0), g_tap + c0 * co + j0);
            }
          }
        }
      }
      // The band's out_backprop rows are still in L1.
      if (bias_grad) AddRowSums(dy + oh0 * d.out_cols * co, (oh1 - oh0) * d.out_cols, co, bias_grad);
    }
  }
  return true;
}

namespace {

bool IsDepth1Unit(const conv::ConvDims& d) {
  return d.in_depth == 1 && d.stride_rows == 1 && d.stride_cols == 1 && d.dilation_rows == 1 &&
         d.dilation_cols == 1;
}

// The filter gradient of rows [fr0, fr0 + R) of a 1-deep filter with FC columns, for one
// image: acc[tap][2 vectors of outputs] in registers over all its pixels; with next_dy, share `call` of
// `calls` of the next image's out_backprop is requested into L2 along the way.
template <int R, int FC>
void FilterGradDepth1Rows(const conv::ConvDims& d, const PaddedImage& pad, const float* dy, int64_t fr0, int64_t j0,
                          float* filter_grad, const float* next_dy, int64_t call, int64_t calls) {
  const int64_t n = d.out_depth, cols = std::min<int64_t>(2 * kL, n - j0);
  const Simd::Mask k0 = ColumnMask(cols, 0), k1 = ColumnMask(cols, 1);
  const bool full0 = cols >= kL, full1 = cols >= 2 * kL;
  const int64_t valid_rows = std::min<int64_t>(R, d.filter_rows - fr0);
  Simd::V acc[2 * R * FC];
#pragma GCC unroll 32
  for (int t = 0; t < R * FC; ++t) {
    const bool valid = t / FC < valid_rows;
    const float* g = filter_grad + ((fr0 + t / FC) * FC + t % FC) * n + j0;
    acc[2 * t] = valid ? LoadPart(g, k0, full0) : Simd::Zero();
    acc[2 * t + 1] = valid ? LoadPart(g + kL, k1, full1) : Simd::Zero();
  }
  for (int64_t oh = 0; oh < d.out_rows; ++oh) {
    if (next_dy) PrefetchShareToL2(next_dy, d.out_rows * d.out_cols * n, call * d.out_rows + oh, calls * d.out_rows);
    const float* rows = pad.data.data() + (oh + fr0) * pad.cols;
    const float* y = dy + oh * d.out_cols * n + j0;
    for (int64_t ow = 0; ow < d.out_cols; ++ow, y += n) {
      const Simd::V y0 = LoadPart(y, k0, full0), y1 = LoadPart(y + kL, k1, full1);
#pragma GCC unroll 32
      for (int t = 0; t < R * FC; ++t) {
        const Simd::V a = Simd::Broadcast(rows[(t / FC) * pad.cols + ow + t % FC]);
        acc[2 * t] = Simd::Fma(a, y0, acc[2 * t]);
        acc[2 * t + 1] = Simd::Fma(a, y1, acc[2 * t + 1]);
      }
    }
  }
  // Constant indices into acc only (a loop bounded by valid_rows would make GCC keep acc
  // in memory, storing every accumulator on every pixel: 2.5x slower).
#pragma GCC unroll 32
  for (int t = 0; t < R * FC; ++t) {
    if (t / FC >= valid_rows) continue;
    float* g = filter_grad + ((fr0 + t / FC) * FC + t % FC) * n + j0;
    StorePart(g, k0, full0, acc[2 * t]);
    StorePart(g + kL, k1, full1, acc[2 * t + 1]);
  }
}

template <int R, int FC>
void FilterGradDepth1(const conv::ConvDims& d, const float* input, const float* out_backprop, int64_t image_begin,
                      int64_t image_end, float* filter_grad, float* bias_grad) {
  PaddedImage pad;
  for (int64_t image = image_begin; image < image_end; ++image) {
    pad.Fill(d, input + image * d.in_rows * d.in_cols, 0, R);
    const float* dy = out_backprop + image * d.out_rows * d.out_cols * d.out_depth;
    // The next image's out_backprop (100 KB for 28 x 28 x 32) is requested into L2 a share
    // per output row of each pass, instead of coming from memory at its first pass: conv1's
    // filter gradient at batch 512, cold caches, 1.47x (median of 25 interleaved rounds).
    const int64_t out_image = d.out_rows * d.out_cols * d.out_depth;
    const float* next_dy = image + 1 < image_end ? dy + out_image : nullptr;
    const int64_t calls = (d.out_depth + 2 * kL - 1) / (2 * kL) * ((d.filter_rows + R - 1) / R);
    int64_t call = 0;
    for (int64_t j0 = 0; j0 < d.out_depth; j0 += 2 * kL) {
      for (int64_t fr0 = 0; fr0 < d.filter_rows; fr0 += R, ++call) {
        FilterGradDepth1Rows<R, FC>(d, pad, dy, fr0, j0, filter_grad, next_dy, call, calls);
      }
    }
    // The image's out_backprop was just read (L2).
    if (bias_grad) AddRowSums(dy, d.out_rows * d.out_cols, d.out_depth, bias_grad);
  }
}

}  // namespace

bool ConvForwardDepth1(const conv::ConvDims& d, const float* input, const float* filter, int64_t image_begin,
                       int64_t image_end, float* output) {
  if (!IsDepth1Unit(d)) return false;
  // Pixels of a tile, consecutive in an output row: 2 * MR accumulators.
  constexpr int MR = kWide ? 8 : 6;
  const int64_t n = d.out_depth;
  PaddedImage pad;
  for (int64_t image = image_begin; image < image_end; ++image) {
    pad.Fill(d, input + image * d.in_rows * d.in_cols, MR, 0);
    float* out_image = output + image * d.out_rows * d.out_cols * n;
    for (int64_t j0 = 0; j0 < n; j0 += 2 * kL) {
      const int64_t cols = std::min<int64_t>(2 * kL, n - j0);
      const Simd::Mask k0 = ColumnMask(cols, 0), k1 = ColumnMask(cols, 1);
      const bool full0 = cols >= kL, full1 = cols >= 2 * kL;
      for (int64_t oh = 0; oh < d.out_rows; ++oh) {
        for (int64_t ow0 = 0; ow0 < d.out_cols; ow0 += MR) {
          Simd::V acc[2 * MR];
#pragma GCC unroll 16
          for (int i = 0; i < 2 * MR; ++i) acc[i] = Simd::Zero();
          const float* w = filter + j0;
          for (int64_t fr = 0; fr < d.filter_rows; ++fr) {
            const float* row = pad.data.data() + (oh + fr) * pad.cols + ow0;
            for (int64_t fc = 0; fc < d.filter_cols; ++fc, w += n) {
              const Simd::V w0 = LoadPart(w, k0, full0), w1 = LoadPart(w + kL, k1, full1);
#pragma GCC unroll 8
              for (int i = 0; i < MR; ++i) {
                const Simd::V a = Simd::Broadcast(row[fc + i]);
                acc[2 * i] = Simd::Fma(a, w0, acc[2 * i]);
                acc[2 * i + 1] = Simd::Fma(a, w1, acc[2 * i + 1]);
              }
            }
          }
          const int64_t pixels = std::min<int64_t>(MR, d.out_cols - ow0);
          float* o = out_image + (oh * d.out_cols + ow0) * n + j0;
          // Constant indices into acc only, or GCC keeps acc in memory (see above).
#pragma GCC unroll 8
          for (int i = 0; i < MR; ++i) {
            if (i >= pixels) continue;
            StorePart(o + i * n, k0, full0, acc[2 * i]);
            StorePart(o + i * n + kL, k1, full1, acc[2 * i + 1]);
          }
        }
      }
    }
  }
  return true;
}

bool ConvBackpropFilterDepth1(const conv::ConvDims& d, const float* input, const float* out_backprop,
                              int64_t image_begin, int64_t image_end, float* filter_grad, float* bias_grad) {
  if (!IsDepth1Unit(d)) return false;
  // Per pass, AVX-512: two filter rows of 5 taps or three of 3 (20 or 18 accumulators);
  // AVX2: one of 5 or two of 3 (10 or 12 of its 16 registers).
  if (d.filter_cols == 5) {
    FilterGradDepth1<kWide ? 2 : 1, 5>(d, input, out_backprop, image_begin, image_end, filter_grad, bias_grad);
  } else if (d.filter_cols == 3) {
    FilterGradDepth1<kWide ? 3 : 2, 3>(d, input, out_backprop, image_begin, image_end, filter_grad, bias_grad);
  } else {
    return false;
  }
  return true;
}

#else  // neither AVX-512 nor AVX2: Eigen's GEMM, and the convolutions decline

bool HaveFastKernels() { return false; }

const char* KernelIsa() { return "Eigen"; }

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
           int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  EigenGemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

bool ConvForward(const conv::ConvDims&, const float*, const PackedFilter&, int64_t, int64_t, float*) { return false; }

bool ConvBackpropFilter(const conv::ConvDims&, const float*, const float*, int64_t, int64_t, float*, float*) {
  return false;
}

bool ConvForwardDepth1(const conv::ConvDims&, const float*, const float*, int64_t, int64_t, float*) { return false; }

bool ConvBackpropFilterDepth1(const conv::ConvDims&, const float*, const float*, int64_t, int64_t, float*,
                              float*) {
  return false;
}

#endif

}  // namespace gemm
}  // namespace tensoract
