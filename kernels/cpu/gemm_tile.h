// What gemm.cc (the products), gemm_conv.cc (the convolutions) and gemm_attention.cc share:
// the register tile and the moves around it, written against kernels/cpu/simd.h. Only those
// files include this; it is all inline and in an unnamed namespace, so each keeps its own copy, as when
// they were one file (and the emulated test's own build of them shares none of these
// symbols with the kernels library).
#ifndef TENSORACT_KERNELS_CPU_GEMM_TILE_H_
#define TENSORACT_KERNELS_CPU_GEMM_TILE_H_

#include <cstdint>

#include "kernels/cpu/simd.h"

#if TENSORACT_HAVE_SIMD

namespace tensoract {
namespace gemm {
namespace {

using simd::Simd;
constexpr int kL = Simd::kLanes;               // floats per vector
constexpr bool kWide = Simd::kRegisters >= 32;  // AVX-512's 32 registers

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

}  // namespace
}  // namespace gemm
}  // namespace tensoract

#endif  // TENSORACT_HAVE_SIMD

#endif  // TENSORACT_KERNELS_CPU_GEMM_TILE_H_
