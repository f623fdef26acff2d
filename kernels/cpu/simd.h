// The vector operations of the float micro-kernels (kernels/cpu/gemm.cc, gemm_conv.cc and
// gemm_attention.cc, through gemm_tile.h), for the widest instruction set the build targets:
// AVX-512 (16 floats a vector, 32 registers, mask registers) or AVX2 with FMA (8 floats, 16
// registers, masks as integer vectors). The kernels are written once against `Simd` and
// pick their tile shapes from kLanes and kRegisters. Without either, TENSORACT_HAVE_SIMD is
// 0 and gemm.cc falls back to Eigen.
//
// TENSORACT_SIMD_EMULATE_WIDE builds the AVX-512 shapes (16 lanes, 32 registers) on plain
// arrays instead, on any CPU: the gemm_wide_emulated_tests binary runs gemm's tests through
// it, so the AVX-512 tiling is checked on machines without AVX-512.
//
// Only gemm_tile.h should include this: its functions are tiny inlines, and every other
// file reaches the kernels through gemm.h.
#ifndef TENSORACT_KERNELS_CPU_SIMD_H_
#define TENSORACT_KERNELS_CPU_SIMD_H_

#include <cmath>
#include <cstdint>

#if defined(TENSORACT_SIMD_EMULATE_WIDE) || defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>  // _mm_prefetch at least (x86-64 always has SSE)
#define TENSORACT_HAVE_SIMD 1
#else
#define TENSORACT_HAVE_SIMD 0
#endif

namespace tensoract {
namespace simd {

// The first `valid` of 16 lanes as a bit mask (none when valid <= 0, all when valid >= 16).
inline uint16_t FirstOf16Lanes(int64_t valid) {
  return valid >= 16 ? uint16_t(0xFFFF) : valid <= 0 ? uint16_t(0) : uint16_t((1u << valid) - 1);
}

#if defined(TENSORACT_SIMD_EMULATE_WIDE)

struct Simd {
  struct V {
    float x[16];
  };
  using Mask = uint16_t;
  static constexpr int kLanes = 16;
  static constexpr int kRegisters = 32;
  static constexpr const char* kName = "AVX-512 (emulated)";

  static V Zero() { return V{}; }
  static V Load(const float* p) {
    V v;
    for (int i = 0; i < 16; ++i) v.x[i] = p[i];
    return v;
  }
  static void Store(float* p, V v) {
    for (int i = 0; i < 16; ++i) p[i] = v.x[i];
  }
  static V Broadcast(float x) {
    V v;
    for (float& e : v.x) e = x;
    return v;
  }
  static V Fma(V a, V b, V c) {
    for (int i = 0; i < 16; ++i) c.x[i] = std::fma(a.x[i], b.x[i], c.x[i]);
    return c;
  }
  static V Add(V a, V b) {
    for (int i = 0; i < 16; ++i) a.x[i] += b.x[i];
    return a;
  }
  static Mask FirstLanes(int64_t valid) { return FirstOf16Lanes(valid); }
  // Like the hardware: lanes outside the mask are neither read nor written.
  static V MaskLoad(Mask m, const float* p) {
    V v{};
    for (int i = 0; i < 16; ++i) {
      if (m >> i & 1) v.x[i] = p[i];
    }
    return v;
  }
  static void MaskStore(float* p, Mask m, V v) {
    for (int i = 0; i < 16; ++i) {
      if (m >> i & 1) p[i] = v.x[i];
    }
  }
};

#elif defined(__AVX512F__)

struct Simd {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int kLanes = 16;
  static constexpr int kRegisters = 32;
  static constexpr const char* kName = "AVX-512";

  static V Zero() { return _mm512_setzero_ps(); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Broadcast(float x) { return _mm512_set1_ps(x); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  // The first `valid` lanes (none when valid <= 0, all when valid >= kLanes).
  static Mask FirstLanes(int64_t valid) { return FirstOf16Lanes(valid); }
  // Lanes outside the mask read as zeros and are never touched in memory.
  static V MaskLoad(Mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  static void MaskStore(float* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }
};

#elif defined(__AVX2__) && defined(__FMA__)

struct Simd {
  using V = __m256;
  using Mask = __m256i;
  static constexpr int kLanes = 8;
  static constexpr int kRegisters = 16;
  static constexpr const char* kName = "AVX2";

  static V Zero() { return _mm256_setzero_ps(); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V Broadcast(float x) { return _mm256_set1_ps(x); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static Mask FirstLanes(int64_t valid) {
    const int32_t v = valid >= 8 ? 8 : valid <= 0 ? 0 : static_cast<int32_t>(valid);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(v), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V MaskLoad(Mask m, const float* p) { return _mm256_maskload_ps(p, m); }
  static void MaskStore(float* p, Mask m, V v) { _mm256_maskstore_ps(p, m, v); }
};

#endif

}  // namespace simd
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_SIMD_H_
