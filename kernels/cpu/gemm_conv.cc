// The convolutions of gemm.h, without im2col, on the register tile of gemm_tile.h:
//   - ConvForward: each tile of output pixels reads its input rows through pointers into a
//     zero-padded copy of the image (an "indirect" GEMM against the packed filter);
//   - the stride-1 input gradient: a ConvForward of out_backprop with the flipped filter;
//   - ConvBackpropFilter: input x out_backprop products accumulated in registers over
//     bands of output rows, each tile a block of the HWIO gradient;
//   - the 1-deep forms of the forward pass and the filter gradient (a first layer on grey
//     images).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_tile.h"

namespace tensoract {
namespace gemm {

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

#if TENSORACT_HAVE_SIMD

namespace {

// bias_grad[j] += sum over `rows` rows of n values (`rows` pixels of out_backprop).
void AddRowSums(const float* rows_data, int64_t rows, int64_t n, float* bias_grad) {
  for (int64_t j0 = 0; j0 < n; j0 += kL) {
    const Simd::Mask k = ColumnMask(n - j0, 0);
    Simd::V acc = Simd::MaskLoad(k, bias_grad + j0);
    for (int64_t r = 0; r < rows; ++r) acc = Simd::Add(acc, Simd::MaskLoad(k, rows_data + r * n + j0));
    Simd::MaskStore(bias_grad + j0, k, acc);
  }
}

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
  // (A filter one column wide reads runs of one pixel either way: no copy for it.)
  const bool by_filter_rows = d.dilation_cols == 1 && out_pixels >= MR && d.filter_cols > 1;
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

#else  // neither AVX-512 nor AVX2: the convolutions decline (callers use im2col)

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
