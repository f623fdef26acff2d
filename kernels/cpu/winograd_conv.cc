// Winograd's F(2x2, 3x3) convolution (see winograd_conv.h).
//
// With d a 4x4 input patch, g a 3x3 filter and Y the 2x2 output tile:
//   Y = A^T [(G g G^T) . (B^T d B)] A      (. : element by element, per channel pair,
//                                            summed over the input channels)
//   B^T = | 1  0 -1  0 |    G = | 1    0    0  |    A^T = | 1  1  1  0 |
//         | 0  1  1  0 |        | 1/2  1/2 1/2 |          | 0  1 -1 -1 |
//         | 0 -1  1  0 |        | 1/2 -1/2 1/2 |
//         | 0  1  0 -1 |        | 0    0    1  |
// The sum over input channels of each of the 16 elements is a matrix product: V_k [tiles,
// in_depth] (the transformed patches' element k) times U_k [in_depth, out_depth] (the
// transformed filters' element k) gives M_k [tiles, out_depth]; A^T M A then gives the
// outputs. The transforms run over the channels, which lie contiguous in NHWC.
#include "kernels/cpu/winograd_conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/weights_version.h"
#include "kernels/variable.h"

namespace tensoract {
namespace {

constexpr int kTaps = 16;  // elements of a transformed 4x4 tile
// A slice of the transformed filter (16 matrices of in_depth x its channels) fits the
// core's second-level cache (1-2 MB on the CPUs measured), read once per block of tiles.
constexpr int64_t kSliceBytes = int64_t{2} << 20;
// A block of tiles' transformed input (16 x tiles x in_depth) stays in cache across its 16
// products.
constexpr int64_t kBlockBytes = int64_t{512} << 10;

// The 16 transformed elements of one 4x4 patch, for every channel: rows[i * 4 + j] points
// at the patch's pixel (i, j) (C floats, zeros outside the image); element k of channel c
// goes to v[k * plane + c].
void TransformPatch(const float* const* rows, int64_t channels, float* v, int64_t plane) {
#pragma GCC ivdep
  for (int64_t c = 0; c < channels; ++c) {
    float t[4][4];  // B^T d
    for (int j = 0; j < 4; ++j) {
      const float d0 = rows[j][c], d1 = rows[4 + j][c], d2 = rows[8 + j][c], d3 = rows[12 + j][c];
      t[0][j] = d0 - d2;
      t[1][j] = d1 + d2;
      t[2][j] = d2 - d1;
      t[3][j] = d1 - d3;
    }
    for (int i = 0; i < 4; ++i) {  // (B^T d) B
      float* e = v + i * 4 * plane + c;
      e[0] = t[i][0] - t[i][2];
      e[plane] = t[i][1] + t[i][2];
      e[2 * plane] = t[i][2] - t[i][1];
      e[3 * plane] = t[i][1] - t[i][3];
    }
  }
}

// A^T M A for one tile: element k of channel o at m[k * plane + o]; the output pixel (i, j)
// of the tile to y[i * 2 + j] (channels contiguous).
void TransformTile(const float* m, int64_t plane, int64_t channels, float* const* y) {
#pragma GCC ivdep
  for (int64_t o = 0; o < channels; ++o) {
    float s[2][4];  // A^T M
    for (int j = 0; j < 4; ++j) {
      const float m0 = m[j * plane + o], m1 = m[(4 + j) * plane + o], m2 = m[(8 + j) * plane + o],
                  m3 = m[(12 + j) * plane + o];
      s[0][j] = m0 + m1 + m2;
      s[1][j] = m1 - m2 - m3;
    }
    for (int i = 0; i < 2; ++i) {  // (A^T M) A
      y[i * 2][o] = s[i][0] + s[i][1] + s[i][2];
      y[i * 2 + 1][o] = s[i][1] - s[i][2] - s[i][3];
    }
  }
}

// Where the filter's element (row i, column j, input channel c, output channel o) of the
// convolution computed lies: an HWIO filter as it is, or (`flipped`) the forward filter of a
// gradient to the input, whose convolution reads it with rows and columns reversed and its
// input and output channels swapped.
struct FilterView {
  const float* data;
  int64_t tap_stride, c_stride, o_stride;
  bool flipped;
  const float* Tap(int i, int j) const { return data + (flipped ? (2 - i) * 3 + 2 - j : i * 3 + j) * tap_stride; }
};

// G g G^T of the filter's channels [first, first + width) for every input channel, times
// scale (nullptr: 1): element k of (input c, output o) to u[(k * in_depth + c) * width + o].
void TransformFilter(const FilterView& filter, int64_t in_depth, const float* scale, int64_t first, int64_t width,
                     float* u) {
  for (int64_t c = 0; c < in_depth; ++c) {
#pragma GCC ivdep
    for (int64_t o = 0; o < width; ++o) {
      const float factor = scale == nullptr ? 1.f : scale[first + o];
      const int64_t at = c * filter.c_stride + (first + o) * filter.o_stride;
      float g[3][3];
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) g[i][j] = filter.Tap(i, j)[at] * factor;
      }
      float t[4][3];  // G g
      for (int j = 0; j < 3; ++j) {
        t[0][j] = g[0][j];
        t[1][j] = 0.5f * (g[0][j] + g[1][j] + g[2][j]);
        t[2][j] = 0.5f * (g[0][j] - g[1][j] + g[2][j]);
        t[3][j] = g[2][j];
      }
      for (int i = 0; i < 4; ++i) {  // (G g) G^T
        const float e[4] = {t[i][0], 0.5f * (t[i][0] + t[i][1] + t[i][2]), 0.5f * (t[i][0] - t[i][1] + t[i][2]),
                            t[i][2]};
        for (int j = 0; j < 4; ++j) u[((i * 4 + j) * in_depth + c) * width + o] = e[j];
      }
    }
  }
}

// A E A^T for one 2x2 tile of out_backprop, every channel: rows[i * 2 + j] points at its pixel
// (i, j) (zeros past the edge); element k of channel o goes to z[k * plane + o]. A (4x2) is
// A^T above transposed: rows (1, 0), (1, 1), (1, -1), (0, -1).
void TransformGradientTile(const float* const* rows, int64_t channels, float* z, int64_t plane) {
#pragma GCC ivdep
  for (int64_t o = 0; o < channels; ++o) {
    const float e00 = rows[0][o], e01 = rows[1][o], e10 = rows[2][o], e11 = rows[3][o];
    const float t[4][2] = {{e00, e01}, {e00 + e10, e01 + e11}, {e00 - e10, e01 - e11}, {-e10, -e11}};  // A E
    for (int i = 0; i < 4; ++i) {  // (A E) A^T
      float* e = z + i * 4 * plane + o;
      e[0] = t[i][0];
      e[plane] = t[i][0] + t[i][1];
      e[2 * plane] = t[i][0] - t[i][1];
      e[3 * plane] = -t[i][1];
    }
  }
}

// G^T M G for input channel c's row of the 16 summed products (element k of output o at
// m[k * plane + o]), into the HWIO gradient's rows of tap (i, j): grad + (i * 3 + j) * tap.
void TransformGradient(const float* m, int64_t plane, int64_t channels, float* grad, int64_t tap) {
#pragma GCC ivdep
  for (int64_t o = 0; o < channels; ++o) {
    float t[3][4];  // G^T M: rows (1, 1/2, 1/2, 0), (0, 1/2, -1/2, 0), (0, 1/2, 1/2, 1)
    for (int j = 0; j < 4; ++j) {
      const float m0 = m[j * plane + o], m1 = m[(4 + j) * plane + o], m2 = m[(8 + j) * plane + o],
                  m3 = m[(12 + j) * plane + o];
      t[0][j] = m0 + 0.5f * (m1 + m2);
      t[1][j] = 0.5f * (m1 - m2);
      t[2][j] = 0.5f * (m1 + m2) + m3;
    }
    for (int i = 0; i < 3; ++i) {  // (G^T M) G
      grad[(i * 3) * tap + o] = t[i][0] + 0.5f * (t[i][1] + t[i][2]);
      grad[(i * 3 + 1) * tap + o] = 0.5f * (t[i][1] - t[i][2]);
      grad[(i * 3 + 2) * tap + o] = 0.5f * (t[i][1] + t[i][2]) + t[i][3];
    }
  }
}

// The size x size pixels whose top left is (row0, col0) of an image of height x width
// pixels at `image` (`depth` floats apart): pixels[r * size + c], `zero` where they lie
// outside the image (an input patch past the padding, an out_backprop tile past the edge).
void TilePixels(const float* image, int64_t height, int64_t width, int64_t depth, int64_t row0, int64_t col0,
                int size, const float* zero, const float** pixels) {
  for (int r = 0; r < size; ++r) {
    for (int c = 0; c < size; ++c) {
      const int64_t ir = row0 + r, ic = col0 + c;
      const bool inside = ir >= 0 && ir < height && ic >= 0 && ic < width;
      pixels[r * size + c] = inside ? image + (ir * width + ic) * depth : zero;
    }
  }
}

// The 16 pixels of the 4x4 input patch whose top left is (row0, col0) of the image at
// image_in.
void PatchPixels(const conv::ConvDims& d, const float* image_in, int64_t row0, int64_t col0, const float* zero,
                 const float** rows) {
  TilePixels(image_in, d.in_rows, d.in_cols, d.in_depth, row0, col0, 4, zero, rows);
}

// A thread's scratch, kept between calls (its pages stay mapped).
float* ThreadScratch(std::vector<float>* v, int64_t floats) {
  if (static_cast<int64_t>(v->size()) < floats) v->resize(floats);
  return v->data();
}

}  // namespace

struct WinogradConv::Transformed {
  WeightsVersion version;  // the filter and scale it was made from
  int64_t in_depth = 0, out_depth = 0;
  bool flipped = false;  // a gradient to the input's filter (FilterView)
  struct Slice {
    int64_t first = 0, width = 0;   // output channels
    gemm::PackedFilter taps[kTaps];  // U_k [in_depth, width], packed for the micro-kernel
  };
  std::vector<std::unique_ptr<Slice>> slices;
};

WinogradConv::WinogradConv() = default;
WinogradConv::~WinogradConv() = default;

bool WinogradConv::Enabled() {
  // The environment is read on each call (a lookup among a few dozen variables, against a
  // convolution's milliseconds), so a test can turn the path on in a build where it is off.
  if (const char* env = std::getenv("TENSORACT_WINOGRAD")) return std::strcmp(env, "0") != 0;
  return false;  // opt-in: see the header
}

bool WinogradConv::Suits(const conv::ConvDims& d) {
  return Enabled() && d.groups == 1 && d.filter_rows == 3 && d.filter_cols == 3 && d.stride_rows == 1 &&
         d.stride_cols == 1 && d.dilation_rows == 1 && d.dilation_cols == 1 && d.in_depth >= 16 &&
         d.out_depth >= 16 && d.out_rows >= 5 && d.out_cols >= 5 &&
         d.batch * ((d.out_rows + 1) / 2) * ((d.out_cols + 1) / 2) >= 48;
}

std::shared_ptr<const WinogradConv::Transformed> WinogradConv::FilterFor(OpKernelContext* ctx,
                                                                          const conv::ConvDims& d,
                                                                          const Tensor& filter, const float* scale,
                                                                          bool flipped) {
  const int64_t in_depth = d.in_depth, out_depth = d.out_depth;
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t epoch = RefVariableWriteEpoch();
  const bool same_shape = kept_ != nullptr && kept_->in_depth == in_depth && kept_->out_depth == out_depth &&
                          kept_->flipped == flipped;
  if (same_shape && kept_->version.Matches(filter, epoch, scale, out_depth)) return kept_;
  // A training step's new weights are transformed into the kept buffers where no call still
  // reads them.
  if (!same_shape || kept_.use_count() > 1) {
    kept_ = std::make_shared<Transformed>();
    kept_->in_depth = in_depth;
    kept_->out_depth = out_depth;
    kept_->flipped = flipped;
    // Slices of whole vectors' columns (multiples of 32) that fit kSliceBytes.
    int64_t width = out_depth;
    if (kTaps * in_depth * out_depth * int64_t{sizeof(float)} > kSliceBytes) {
      width = std::max<int64_t>(32, kSliceBytes / (kTaps * in_depth * int64_t{sizeof(float)}) / 32 * 32);
    }
    for (int64_t first = 0; first < out_depth; first += width) {
      auto slice = std::make_unique<Transformed::Slice>();
      slice->first = first;
      slice->width = std::min(width, out_depth - first);
      kept_->slices.push_back(std::move(slice));
    }
  }
  Transformed* t = kept_.get();
  const FilterView view = flipped ? FilterView{filter.base<float>(), in_depth * out_depth, 1, in_depth, true}
                                  : FilterView{filter.base<float>(), in_depth * out_depth, out_depth, 1, false};
  CwiseParallelFor(ctx, static_cast<int64_t>(t->slices.size()), kTaps * 9 * in_depth * out_depth,
                   [&](int64_t begin, int64_t end) {
                     std::vector<float> u;
                     for (int64_t s = begin; s < end; ++s) {
                       Transformed::Slice& slice = *t->slices[s];
                       u.resize(kTaps * in_depth * slice.width);
                       TransformFilter(view, in_depth, scale, slice.first, slice.width, u.data());
                       for (int k = 0; k < kTaps; ++k) {
                         gemm::PackFilter(u.data() + k * in_depth * slice.width, in_depth, slice.width, &slice.taps[k]);
                       }
                     }
                   });
  t->version.Record(filter, epoch, scale, out_depth);
  return kept_;
}

bool WinogradConv::Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const Tensor& filter,
                       const ChannelAffine<float>& affine, const FusedEpilogue& epilogue, float* out) {
  if (!gemm::HaveFastKernels()) return false;
  Compute(ctx, d, input, *FilterFor(ctx, d, filter, affine.scale, /*flipped=*/false), affine, epilogue, out);
  return true;
}

bool WinogradConv::SuitsBackpropInput(const conv::ConvDims& d) {
  conv::ConvDims as_conv;
  return gemm::BackpropInputAsConv(d, &as_conv) && Suits(as_conv);
}

bool WinogradConv::RunBackpropInput(OpKernelContext* ctx, const conv::ConvDims& d, const float* out_backprop,
                                    const Tensor& filter, float* in_backprop) {
  conv::ConvDims as_conv;
  if (!gemm::HaveFastKernels() || !gemm::BackpropInputAsConv(d, &as_conv)) return false;
  const FusedEpilogue none;
  Compute(ctx, as_conv, out_backprop, *FilterFor(ctx, as_conv, filter, nullptr, /*flipped=*/true),
          ChannelAffine<float>(), none, in_backprop);
  return true;
}

void WinogradConv::Compute(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const Transformed& f,
                           const ChannelAffine<float>& affine, const FusedEpilogue& epilogue, float* out) {
  const int64_t in_depth = d.in_depth, out_depth = d.out_depth;
  const int64_t tile_rows = (d.out_rows + 1) / 2, tile_cols = (d.out_cols + 1) / 2;
  const int64_t image_tiles = tile_rows * tile_cols, tiles = d.batch * image_tiles;
  const int64_t slices = static_cast<int64_t>(f.slices.size());
  // Blocks of tiles (across images) whose transformed input fits kBlockBytes, at least 16
  // tiles (rows of the products); as even as the count allows.
  const int64_t most = std::clamp<int64_t>(kBlockBytes / (kTaps * in_depth * int64_t{sizeof(float)}), 16, 128);
  const int64_t blocks = (tiles + most - 1) / most;
  const int64_t block = (tiles + blocks - 1) / blocks;
  // Too few blocks for the threads (one small image): each block's slices are shared out
  // in groups too, each group transforming the block's input again (a small share of the
  // work: the products are out_depth / 4 times the transform's).
  const int64_t want = 2 * static_cast<int64_t>(conv::NumThreads(ctx));
  const int64_t groups = blocks >= want ? 1 : std::min(slices, (want + blocks - 1) / blocks);
  // The scale is in the filter; the epilogue adds the rest.
  ChannelAffine<float> rest;
  rest.shift = affine.shift;
  rest.addend = affine.addend;
  rest.out = affine.out;
  const int64_t widest = f.slices.front()->width;

  CwiseParallelFor(ctx, blocks * groups, int64_t{1} << 30, [&](int64_t first_item, int64_t end_item) {
    thread_local std::vector<float> transformed_input, products, zeros, discard;
    float* v = ThreadScratch(&transformed_input, kTaps * block * in_depth);
    float* m = ThreadScratch(&products, kTaps * block * widest);
    const float* zero = ThreadScratch(&zeros, in_depth);
    std::fill(zeros.begin(), zeros.begin() + in_depth, 0.f);
    float* nowhere = ThreadScratch(&discard, widest);  // the outputs of a tile past the image's edge
    for (int64_t item = first_item; item < end_item; ++item) {
      const int64_t tile_begin = (item / groups) * block, group = item % groups;
      const int64_t count = std::min(block, tiles - tile_begin);
      const int64_t in_plane = count * in_depth;
      for (int64_t i = 0; i < count; ++i) {
        const int64_t tile = tile_begin + i, image = tile / image_tiles, within = tile % image_tiles;
        const int64_t row0 = (within / tile_cols) * 2 - d.pad_top, col0 = (within % tile_cols) * 2 - d.pad_left;
        const float* image_in = input + image * d.in_rows * d.in_cols * in_depth;
        const float* rows[kTaps];
        PatchPixels(d, image_in, row0, col0, zero, rows);
        TransformPatch(rows, in_depth, v + i * in_depth, in_plane);
      }
      for (int64_t s = group; s < slices; s += groups) {
        const Transformed::Slice& slice = *f.slices[s];
        const int64_t width = slice.width, out_plane = count * width;
        const conv::ConvDims product = conv::PointwiseDims(1, count, in_depth, width);
        for (int k = 0; k < kTaps; ++k) {
          gemm::ConvForward(product, v + k * in_plane, slice.taps[k], 0, count, m + k * out_plane);
        }
        for (int64_t i = 0; i < count; ++i) {
          const int64_t tile = tile_begin + i, image = tile / image_tiles, within = tile % image_tiles;
          const int64_t row0 = (within / tile_cols) * 2, col0 = (within % tile_cols) * 2;
          float* y[4];
          for (int r = 0; r < 2; ++r) {
            for (int c = 0; c < 2; ++c) {
              const bool inside = row0 + r < d.out_rows && col0 + c < d.out_cols;
              y[r * 2 + c] = inside ? out + ((image * d.out_rows + row0 + r) * d.out_cols + col0 + c) * out_depth +
                                          slice.first
                                    : nowhere;
            }
          }
          TransformTile(m + i * width, out_plane, width, y);
          const int64_t pixels = std::min<int64_t>(2, d.out_cols - col0);
          for (int r = 0; r < 2 && row0 + r < d.out_rows; ++r) {
            epilogue.Apply(y[r * 2], pixels, width, out_depth, rest, slice.first);
          }
        }
      }
    }
  });
}

bool WinogradConv::RunBackpropFilter(OpKernelContext* ctx, const conv::ConvDims& d, const float* input,
                                     const float* out_backprop, float* filter_grad, float* bias_grad) {
  if (!gemm::HaveFastKernels()) return false;
  const int64_t in_depth = d.in_depth, out_depth = d.out_depth;
  const int64_t tile_rows = (d.out_rows + 1) / 2, tile_cols = (d.out_cols + 1) / 2;
  const int64_t image_tiles = tile_rows * tile_cols, tiles = d.batch * image_tiles;
  // Each thread owns a slice of the input channels (whole vectors of 8) and sums its
  // products over every tile: no partial sums to add. out_backprop's tiles are transformed
  // by each thread (out_depth values a tile, against its slice's products).
  const int64_t threads = conv::NumThreads(ctx);
  const int64_t slices = std::max<int64_t>(1, std::min<int64_t>(threads, in_depth / 8));
  const int64_t slice_depth = (in_depth / slices + 7) / 8 * 8;
  const int64_t tap = in_depth * out_depth;  // floats between taps of the HWIO gradient
  CwiseParallelFor(ctx, slices, int64_t{1} << 30, [&](int64_t first_slice, int64_t end_slice) {
    thread_local std::vector<float> transformed_input, transformed_grad, sums, zeros;
    for (int64_t slice = first_slice; slice < end_slice; ++slice) {
      const int64_t c0 = std::min(in_depth, slice * slice_depth);
      const int64_t width = std::min(in_depth, c0 + slice_depth) - c0;
      if (width <= 0) continue;
      // Blocks of tiles whose two transforms stay within kBlockBytes.
      const int64_t block =
          std::clamp<int64_t>(kBlockBytes / (kTaps * (width + out_depth) * int64_t{sizeof(float)}), 16, 128);
      float* v = ThreadScratch(&transformed_input, kTaps * block * width);
      float* z = ThreadScratch(&transformed_grad, kTaps * block * out_depth);
      float* m = ThreadScratch(&sums, kTaps * width * out_depth);
      const float* zero = ThreadScratch(&zeros, std::max(in_depth, out_depth));
      std::fill(zeros.begin(), zeros.begin() + std::max(in_depth, out_depth), 0.f);
      for (int64_t tile_begin = 0; tile_begin < tiles; tile_begin += block) {
        const int64_t count = std::min(block, tiles - tile_begin);
        for (int64_t i = 0; i < count; ++i) {
          const int64_t tile = tile_begin + i, image = tile / image_tiles, within = tile % image_tiles;
          const int64_t out_row0 = (within / tile_cols) * 2, out_col0 = (within % tile_cols) * 2;
          const int64_t row0 = out_row0 - d.pad_top, col0 = out_col0 - d.pad_left;
          const float* image_in = input + image * d.in_rows * d.in_cols * in_depth + c0;
          const float* rows[kTaps];
          PatchPixels(d, image_in, row0, col0, zero, rows);
          TransformPatch(rows, width, v + i * width, count * width);
          const float* image_grad = out_backprop + image * d.out_rows * d.out_cols * out_depth;
          const float* grad_rows[4];
          TilePixels(image_grad, d.out_rows, d.out_cols, out_depth, out_row0, out_col0, 2, zero, grad_rows);
          TransformGradientTile(grad_rows, out_depth, z + i * out_depth, count * out_depth);
        }
        // M_k [width, out] (+)= V_k^T [width, count] x Z_k [count, out].
        for (int k = 0; k < kTaps; ++k) {
          gemm::Sgemm(/*trans_a=*/true, /*trans_b=*/false, width, out_depth, count, v + k * count * width, width,
                      z + k * count * out_depth, out_depth, m + k * width * out_depth, out_depth,
                      /*accumulate=*/tile_begin > 0);
        }
      }
      for (int64_t c = 0; c < width; ++c) {
        TransformGradient(m + c * out_depth, width * out_depth, out_depth, filter_grad + (c0 + c) * out_depth, tap);
      }
    }
  });
  if (bias_grad != nullptr) conv::SetPixelSums(out_backprop, d.batch * d.out_rows * d.out_cols, out_depth, bias_grad);
  return true;
}

}  // namespace tensoract
