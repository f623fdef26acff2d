// Single-precision matrix products for the CPU kernels: a packed, cache-blocked GEMM with
// a register-tile micro-kernel (AVX-512 or AVX2, kernels/cpu/simd.h) for MatMul and the
// dense layers' gradients, and the convolutions built on the same micro-kernel without im2col:
//
//   ConvForward:          output = conv(input, filter), NHWC x HWIO, any stride and
//                         dilation. Each tile of output pixels reads its input rows
//                         through pointers (an "indirect" GEMM): padding points at zeros.
//   ConvBackpropInput:    stride 1: a ConvForward of out_backprop with the filter
//                         flipped and its in/out depths swapped. Other strides: false,
//                         and the caller uses its im2col path.
//   ConvBackpropFilter:   filter_grad = sum over pixels of input patch x out_backprop,
//                         accumulated in registers over whole rows of pixels.
//
// Built with AVX-512, or AVX2 and FMA (-march=native on such a CPU, or the portable
// x86-64-v3 build) they run the micro-kernel; otherwise the GEMM falls back to Eigen and the
// convolutions answer false (callers keep their im2col paths). Everything here is
// single-threaded: callers split work over threads.
#ifndef TENSORACT_KERNELS_CPU_GEMM_H_
#define TENSORACT_KERNELS_CPU_GEMM_H_

#include <cstdint>

#include "kernels/cpu/conv_util.h"

namespace tensoract {
namespace gemm {

// True when the AVX-512 or AVX2 kernels are compiled in.
bool HaveFastKernels();

// The vectors the float kernels were built for: "AVX-512", "AVX2" or "Eigen" (neither; the
// benchmarks print it, since figures from different builds do not compare).
const char* KernelIsa();

// Products of fewer multiply-adds than this run on the calling thread alone (MatMul's
// ParallelGemm, the convolutions' GEMM path): ~0.5 MFLOP, 5-7 us on one core. The bar was
// 2^20 while a split meant waking pool threads (25-40 us on a VM); since the device's team
// polls between loops (kernels/parallel_team.h) a hand-off costs about a microsecond, and
// the products of a small transformer at batch 1 ([128, 64] x [64, 64]: attention's
// projections, 2^19) left the second core idle. Alternating 2^20 and 2^17 on a Zen 4
// (saved_model_latency, 1-s runs): the zoo's transformer at batch 1 0.359 -> 0.318 ms
// (minima; faster in 10 of 10 pairs), its ViT 0.741 -> 0.674, the text CNN's Conv1D layers
// 0.053 -> 0.047 (2^18 against 2^20); the LSTM and GRU within the noise; 2^18 and 2^17 alike.
constexpr int64_t kParallelMacs = int64_t{1} << 18;

// c[m, n] = op(a)[m, k] * op(b)[k, n], or c += that product when `accumulate`. Row-major;
// op(a) = a (a is [m, k], leading dimension lda) or a^T (a is [k, m]); likewise b.
void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
           int64_t ldb, float* c, int64_t ldc, bool accumulate);

// The same for doubles, through Eigen's GEMM (no AVX-512 kernel for them).
void Dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
           const double* b, int64_t ldb, double* c, int64_t ldc, bool accumulate);

// Either, by element type (for kernels templated on it).
inline void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  Sgemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}
inline void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                 const double* b, int64_t ldb, double* c, int64_t ldc, bool accumulate) {
  Dgemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

// One head of attention over t query rows (kernels/cpu/gemm_attention.cc):
//   out [t, hv] = softmax(scale * q [t, h] x k [s, h]^T + mask [t, s]) x v [s, hv]
// row by row, each operand's rows ld* floats apart; mask may be null. False (nothing
// written) without the vector kernels.
bool AttentionHead(int64_t t, int64_t s, int64_t h, int64_t hv, const float* q, int64_t ldq, const float* k,
                   int64_t ldk, const float* v, int64_t ldv, float scale, const float* mask, int64_t ldm, float* out,
                   int64_t ldo);

// The filter of a convolution laid out for the micro-kernel: [k, n] (k = rows * cols *
// in_depth, n = out_depth) cut into panels of nr (AVX-512: 64 when n is a multiple of 64,
// else 32; AVX2: 16) columns, zero-padded. Made once per kernel call and shared by all threads.
struct PackedFilter {
  int64_t k = 0, n = 0, nr = 32;
  float* data = nullptr;  // owned
  PackedFilter() = default;
  PackedFilter(const PackedFilter&) = delete;
  PackedFilter& operator=(const PackedFilter&) = delete;
  ~PackedFilter();
};
// Packs an HWIO filter [k, n] as is.
void PackFilter(const float* filter, int64_t k, int64_t n, PackedFilter* packed);
// Packs the filter of the stride-1 ConvBackpropInput: flipped in rows and columns, in and
// out depths swapped ([rows, cols, out_depth, in_depth]).
void PackFlippedFilter(const conv::ConvDims& d, const float* filter, PackedFilter* packed);

// Output pixels [pixel_begin, pixel_end) (global: image * out_rows * out_cols + pixel) of
// the convolution `d` of `input` with the packed filter, written to `output` (NHWC).
// Returns false (and writes nothing) without the fast kernels.
bool ConvForward(const conv::ConvDims& d, const float* input, const PackedFilter& filter, int64_t pixel_begin,
                 int64_t pixel_end, float* output);

// A convolution of a 1-deep input (a network's first layer on grey images), stride 1 and
// dilation 1: images [image_begin, image_end) of `input` with the HWIO `filter` [taps,
// out_depth] into `output`. Per output row it reads a zero-padded copy of the input rows,
// so a tile's pixels under a tap are consecutive floats. False when `d` is not such a
// convolution or the kernels are not compiled in.
bool ConvForwardDepth1(const conv::ConvDims& d, const float* input, const float* filter, int64_t image_begin,
                       int64_t image_end, float* output);

// The filter gradient of such a convolution, added to filter_grad [taps, out_depth]; with a
// bias_grad [out_depth], out_backprop summed over the images' pixels is added to it too.
bool ConvBackpropFilterDepth1(const conv::ConvDims& d, const float* input, const float* out_backprop,
                              int64_t image_begin, int64_t image_end, float* filter_grad, float* bias_grad);

// The geometry of the forward convolution that computes Conv2DBackpropInput of `d` (stride
// 1, dilation 1 only: returns false otherwise).
bool BackpropInputAsConv(const conv::ConvDims& d, conv::ConvDims* as_conv);

// Adds to filter_grad [k, n] the gradient from the images [image_begin, image_end) of
// `input` and `out_backprop`, and with a bias_grad [out_depth] the sum of out_backprop over
// their pixels to it (summed while in cache). Returns false, having added nothing, when
// this kernel does not cover `d` (stride or dilation other than 1); the caller then uses
// im2col.
bool ConvBackpropFilter(const conv::ConvDims& d, const float* input, const float* out_backprop, int64_t image_begin,
                        int64_t image_end, float* filter_grad, float* bias_grad);

}  // namespace gemm
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_GEMM_H_
