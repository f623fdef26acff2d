// Products in 8-bit integers (see int8_products.h).
#include "kernels/cpu/int8_products.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "graph/node_def_util.h"
#include "graph/optimizer/mixed_precision.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/onednn_conv.h"
#include "kernels/device.h"

#ifdef TENSORACT_HAVE_ONEDNN
#include "kernels/cpu/onednn_util.h"
#endif

namespace tensoract {

namespace {

constexpr float kLevels = 127.f;  // the largest quantized magnitude of a filter and a signed input

// Blocks of the input each thread scans for its range.
constexpr int64_t kRangeBlock = 1 << 14;

// The smallest and largest of in[0, n) (0 included), and whether every value is finite
// (x * 0 is NaN exactly for a NaN or an infinity, and a NaN stays in a sum).
void Range(const float* in, int64_t n, float* low, float* high, bool* finite) {
  float lo = 0.f, hi = 0.f, poison = 0.f;
  int64_t i = 0;
#ifdef __AVX2__
  // Eight lanes each (the compiler keeps a float sum in order, one lane).
  __m256 vlo = _mm256_setzero_ps(), vhi = vlo, vpoison = vlo;
  const __m256 zero = vlo;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    vlo = _mm256_min_ps(vlo, x);
    vhi = _mm256_max_ps(vhi, x);
    vpoison = _mm256_add_ps(vpoison, _mm256_mul_ps(x, zero));
  }
  alignas(32) float l[8], h[8], p[8];
  _mm256_store_ps(l, vlo);
  _mm256_store_ps(h, vhi);
  _mm256_store_ps(p, vpoison);
  for (int j = 0; j < 8; ++j) {
    lo = std::min(lo, l[j]);
    hi = std::max(hi, h[j]);
    poison += p[j];
  }
#endif
  for (; i < n; ++i) {
    lo = in[i] < lo ? in[i] : lo;
    hi = in[i] > hi ? in[i] : hi;
    poison += in[i] * 0.f;
  }
  *low = lo;
  *high = hi;
  *finite = poison == 0.f;
}

// in[i] * scale rounded to nearest even and clamped to [low, high], as Q.
template <class Q>
void Quantize(const float* in, Q* out, int64_t n, float scale, float low, float high) {
  int64_t i = 0;
#ifdef __AVX2__
  // Eight at a time: rounded to nearest even (the default rounding of cvtps), clamped, then
  // narrowed with saturation (values already in range).
  const __m256 s = _mm256_set1_ps(scale), lo = _mm256_set1_ps(low), hi = _mm256_set1_ps(high);
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_loadu_ps(in + i), s), lo), hi);
    const __m256i q = _mm256_cvtps_epi32(x);
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    const __m128i bytes = std::is_signed_v<Q> ? _mm_packs_epi16(words, words) : _mm_packus_epi16(words, words);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), bytes);
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<Q>(std::nearbyint(std::clamp(in[i] * scale, low, high)));
}

}  // namespace

bool NativeInt8Products() {
#ifdef TENSORACT_HAVE_ONEDNN
  static const bool native = OnednnConv::Enabled() && OnednnCpuHas(dnnl::cpu_isa::avx2);
  return native;
#else
  return false;
#endif
}

float Int8UnsignedLevels() {
#ifdef TENSORACT_HAVE_ONEDNN
  // AVX-512's VNNI, or AVX2's (Alder Lake, Zen 5), a set of its own.
  static const float levels =
      OnednnCpuHas(dnnl::cpu_isa::avx512_core_vnni) || OnednnCpuHas(dnnl::cpu_isa::avx2_vnni) ? 255.f : 127.f;
  return levels;
#else
  return 127.f;
#endif
}

bool WantsInt8Products(OpKernelConstruction* ctx) {
  return AttrIsTrue(ctx->def(), kInt8ProductsAttr) && NativeInt8Products();
}

float Int8Activations::scale() const { return std::ldexp(1.f, exponent); }

bool QuantizeActivations(OpKernelContext* ctx, const float* in, int64_t n, Int8Activations* out) {
  const int64_t blocks = std::max<int64_t>(1, (n + kRangeBlock - 1) / kRangeBlock);
  std::vector<float> lows(blocks), highs(blocks);
  CwiseParallelFor(ctx, blocks, kRangeBlock, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const float* p = in + b * kRangeBlock;
      const int64_t m = std::min(kRangeBlock, n - b * kRangeBlock);
      float low, high;
      bool finite;
      Range(p, m, &low, &high, &finite);
      lows[b] = finite ? low : NAN;
      highs[b] = high;
    }
  });
  float low = 0.f, high = 0.f;
  for (int64_t b = 0; b < blocks; ++b) {
    if (std::isnan(lows[b])) return false;
    low = std::min(low, lows[b]);
    high = std::max(high, highs[b]);
  }
  out->is_unsigned = low >= 0.f;
  const float largest = std::max(-low, high);
  const float levels = out->is_unsigned ? Int8UnsignedLevels() : kLevels;
  // The largest power of two whose step keeps every |x| within `levels` steps.
  out->exponent = largest > 0.f ? std::clamp(static_cast<int>(std::floor(std::log2(levels / largest))), -120, 120) : 0;
  const float scale = out->scale();
  Allocator* allocator = ctx->device() != nullptr ? ctx->device()->allocator() : cpu_allocator();
  auto made = Tensor::Allocate(allocator, out->is_unsigned ? tensorflow::DT_UINT8 : tensorflow::DT_INT8,
                               TensorShape({n}));
  if (!made.ok()) return false;
  out->data = std::move(made).value();
  if (out->is_unsigned) {
    uint8_t* q = static_cast<uint8_t*>(out->data.data());
    CwiseParallelFor(ctx, n, 2, [&](int64_t b, int64_t e) { Quantize(in + b, q + b, e - b, scale, 0.f, levels); });
  } else {
    int8_t* q = static_cast<int8_t*>(out->data.data());
    CwiseParallelFor(ctx, n, 2, [&](int64_t b, int64_t e) { Quantize(in + b, q + b, e - b, scale, -kLevels, kLevels); });
  }
  return true;
}

std::vector<float> LargestAbsPerChannel(const float* w, int64_t n, int64_t channels) {
  std::vector<float> largest(channels, 0.f);
  for (int64_t i = 0; i < n; ++i) largest[i % channels] = std::max(largest[i % channels], std::fabs(w[i]));
  return largest;
}

std::vector<float> FilterInt8Scales(const std::vector<float>& largest_abs, const float* affine_scale) {
  std::vector<float> scales(largest_abs.size());
  for (size_t c = 0; c < scales.size(); ++c) {
    const float largest = largest_abs[c] * (affine_scale != nullptr ? std::fabs(affine_scale[c]) : 1.f);
    scales[c] = largest > 0.f && std::isfinite(largest) ? kLevels / largest : 1.f;
  }
  return scales;
}

}  // namespace tensoract
