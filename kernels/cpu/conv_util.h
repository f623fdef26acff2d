// What the CPU convolution and pooling kernels share: reading and checking their window
// attrs (strides, dilations, ksize, padding, data_format), the output size and padding of
// one spatial dimension, and im2col, which lays the input patches of a block of output
// rows out as the rows of a matrix so that a convolution becomes one GEMM.
//
// Only NHWC is computed on the CPU (as in TensorFlow); NCHW is refused when the kernel is
// made. Padding is SAME, VALID or (where the op has the attr) EXPLICIT: explicit_paddings,
// before and after for each of the 4 dimensions, only the spatial ones nonzero. Errors name
// the node.
#ifndef TENSORACT_KERNELS_CPU_CONV_UTIL_H_
#define TENSORACT_KERNELS_CPU_CONV_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {
namespace conv {

enum class Padding { kSame, kValid, kExplicit };

// The window attrs of a conv or pool kernel, in NHWC order.
struct WindowAttrs {
  std::vector<int64_t> strides;    // 4 entries
  std::vector<int64_t> dilations;  // 4 entries; all 1 for pools
  std::vector<int64_t> ksize;      // 4 entries for pools; empty for convs (the filter decides)
  Padding padding = Padding::kValid;
  std::vector<int64_t> explicit_paddings = std::vector<int64_t>(8, 0);  // kExplicit: [before, after] x 4
};

// "node 'conv1' (op 'Conv2D')", the prefix of every conv and pool error.
inline std::string NodeContext(const OpKernel& k) { return StrCat("node '", k.name(), "' (op '", k.type_string(), "')"); }
inline std::string NodeContext(OpKernelConstruction* ctx) {
  return StrCat("node '", ctx->def().name(), "' (op '", ctx->def().op(), "')");
}

// Reads strides, padding (with explicit_paddings, for convolutions), data_format and (when
// `has_dilations`) dilations, or (when `has_ksize`) ksize, and checks them as TensorFlow's
// CPU kernels do.
Status ReadWindowAttrs(OpKernelConstruction* ctx, bool has_dilations, bool has_ksize, WindowAttrs* attrs);

// One spatial dimension: the output size and the padding before the first element of an
// input of `in` elements under a window of `k` taps `dilation` apart, moved by `stride`.
// SAME: ceil(in / stride) outputs, the padding split with the extra element after; VALID:
// no padding; EXPLICIT: `explicit_pad` (before, after). InvalidArgument when the output
// would be negative.
Status WindowedOutputSize(int64_t in, int64_t k, int64_t dilation, int64_t stride, Padding padding,
                          std::pair<int64_t, int64_t> explicit_pad, int64_t* out, int64_t* pad_before);

// The geometry of one 2-D convolution or pool in NHWC.
struct ConvDims {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, out_depth = 0;
  int64_t stride_rows = 1, stride_cols = 1, dilation_rows = 1, dilation_cols = 1;
  int64_t out_rows = 0, out_cols = 0, pad_top = 0, pad_left = 0;
  // A grouped convolution (Conv2D only): the filter's depth is in_depth / groups, and
  // group g maps input channels [g, g + 1) * in_depth / groups to output channels
  // [g, g + 1) * out_depth / groups. The kernels compute groups == 1; Conv2D splits the rest.
  int64_t groups = 1;

  // Columns of the im2col matrix: the taps of one window times the input depth.
  int64_t patch_size() const { return filter_rows * filter_cols * in_depth; }
};

// A 1x1 convolution of stride 1 over one image's `rows` x `cols` pixels, `in_depth` to
// `out_depth` channels: a band of rows of a fused kernel's pointwise convolution.
inline ConvDims PointwiseDims(int64_t rows, int64_t cols, int64_t in_depth, int64_t out_depth) {
  ConvDims d;
  d.batch = 1;
  d.in_rows = d.out_rows = rows;
  d.in_cols = d.out_cols = cols;
  d.in_depth = in_depth;
  d.out_depth = out_depth;
  d.filter_rows = d.filter_cols = 1;
  return d;
}

// Every field of `d`, as a key for caches of per-shape state (oneDNN's primitives).
inline std::vector<int64_t> DimsKey(const ConvDims& d) {
  return {d.batch,      d.in_rows,     d.in_cols,       d.in_depth,      d.filter_rows, d.filter_cols,
          d.out_depth,  d.stride_rows, d.stride_cols,   d.dilation_rows, d.dilation_cols, d.out_rows,
          d.out_cols,   d.pad_top,     d.pad_left,      d.groups};
}

// Fills the spatial fields of `dims` from the already set batch/in_*/filter_* fields.
Status ComputeConvDims(const WindowAttrs& attrs, ConvDims* dims);

// The geometry of a Conv2D of `input` [batch, rows, cols, depth] with `filter` [rows,
// cols, in_depth, out_depth], checked as TensorFlow's CPU kernel checks them; the errors
// name `kernel`'s node and the shapes. A filter shallower than the input (a grouped
// convolution) is refused unless `allow_groups`.
Status ConvDimsFromShapes(const OpKernel& kernel, const WindowAttrs& attrs, const TensorShape& input,
                          const TensorShape& filter, ConvDims* dims, bool allow_groups = false);

// The geometry of a pool (MaxPool, AvgPool and their gradients, CPU and GPU) over `input`
// [batch, rows, cols, depth], checked as TensorFlow's CPU kernels check it.
Status PoolDims(const OpKernel& kernel, const WindowAttrs& attrs, const TensorShape& input, ConvDims* d);
// A pool's output shape, [batch, out_rows, out_cols, depth].
TensorShape PoolOutputShape(const ConvDims& d);
// That `shape`, of the pool gradient's input `what` ("grad", "orig_output"), is the pool's
// output shape; InvalidArgument naming both otherwise.
Status CheckPoolOutputShape(const OpKernel& kernel, const char* what, const TensorShape& shape, const ConvDims& d);
// AvgPoolGrad's orig_input_shape as a shape: an int32 vector of 4 sizes, none negative.
Status PoolInputShape(const OpKernel& kernel, const Tensor& sizes, TensorShape* shape);

// A shape given as an int32 vector input (input_sizes, filter_sizes), named `arg` in errors.
Status ShapeFromSizes(const OpKernel& kernel, const std::string& arg, const Tensor& sizes, TensorShape* shape);

// The number of threads of the kernel's device (1 without one).
inline int NumThreads(OpKernelContext* ctx) { return ctx->device() ? std::max(1, ctx->device()->num_threads()) : 1; }

// im2col of output rows [row_begin, row_end) (global rows: image * out_rows + output row)
// of one NHWC input: writes (row_end - row_begin) * out_cols rows of patch_size() elements
// each to `cols`, zeros where a tap falls in the padding.
template <class T>
void Im2Col(const ConvDims& d, const T* input, int64_t row_begin, int64_t row_end, T* cols) {
  const int64_t depth = d.in_depth;
  const int64_t tap_run = d.filter_cols * depth;  // one filter row of a patch
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t image = r / d.out_rows, out_row = r % d.out_rows;
    const T* image_in = input + image * d.in_rows * d.in_cols * depth;
    for (int64_t oc = 0; oc < d.out_cols; ++oc) {
      const int64_t col0 = oc * d.stride_cols - d.pad_left;
      for (int64_t fr = 0; fr < d.filter_rows; ++fr, cols += tap_run) {
        const int64_t ir = out_row * d.stride_rows - d.pad_top + fr * d.dilation_rows;
        if (ir < 0 || ir >= d.in_rows) {
          std::fill(cols, cols + tap_run, T(0));
          continue;
        }
        const T* row_in = image_in + ir * d.in_cols * depth;
        if (d.dilation_cols == 1) {
          // The taps of a filter row are contiguous in NHWC: one copy between the paddings.
          const int64_t lo = std::clamp<int64_t>(-col0, 0, d.filter_cols);
          const int64_t hi = std::clamp<int64_t>(d.in_cols - col0, lo, d.filter_cols);
          std::fill(cols, cols + lo * depth, T(0));
          std::copy(row_in + (col0 + lo) * depth, row_in + (col0 + hi) * depth, cols + lo * depth);
          std::fill(cols + hi * depth, cols + tap_run, T(0));
        } else {
          for (int64_t fc = 0; fc < d.filter_cols; ++fc) {
            const int64_t ic = col0 + fc * d.dilation_cols;
            T* dst = cols + fc * depth;
            if (ic < 0 || ic >= d.in_cols) std::fill(dst, dst + depth, T(0));
            else std::copy(row_in + ic * depth, row_in + (ic + 1) * depth, dst);
          }
        }
      }
    }
  }
}

// The inverse scatter of Im2Col for whole images [image_begin, image_end): adds each
// patch element of `cols` to the input position it was copied from (padding dropped).
// `input` must hold those images, zeroed or partly accumulated.
template <class T>
void Col2ImAdd(const ConvDims& d, const T* cols, int64_t image_begin, int64_t image_end, T* input) {
  const int64_t depth = d.in_depth;
  for (int64_t image = image_begin; image < image_end; ++image) {
    T* image_in = input + image * d.in_rows * d.in_cols * depth;
    for (int64_t out_row = 0; out_row < d.out_rows; ++out_row) {
      for (int64_t oc = 0; oc < d.out_cols; ++oc) {
        const int64_t col0 = oc * d.stride_cols - d.pad_left;
        for (int64_t fr = 0; fr < d.filter_rows; ++fr) {
          const int64_t ir = out_row * d.stride_rows - d.pad_top + fr * d.dilation_rows;
          if (ir < 0 || ir >= d.in_rows) {
            cols += d.filter_cols * depth;
            continue;
          }
          T* row_in = image_in + ir * d.in_cols * depth;
          for (int64_t fc = 0; fc < d.filter_cols; ++fc, cols += depth) {
            const int64_t ic = col0 + fc * d.dilation_cols;
            if (ic < 0 || ic >= d.in_cols) continue;
            T* dst = row_in + ic * depth;
            for (int64_t c = 0; c < depth; ++c) dst[c] += cols[c];
          }
        }
      }
    }
  }
}

// sums[j] += the sum over `pixels` rows of n values at data (out_backprop's pixels: a
// bias's gradient).
template <class T>
void AddPixelSums(const T* data, int64_t pixels, int64_t n, T* sums) {
  for (int64_t p = 0; p < pixels; ++p, data += n) {
    for (int64_t j = 0; j < n; ++j) sums[j] += data[j];
  }
}

// sums[j] = the same sums (a bias's gradient computed apart from the filter's).
template <class T>
void SetPixelSums(const T* data, int64_t pixels, int64_t n, T* sums) {
  std::fill(sums, sums + n, T(0));
  AddPixelSums(data, pixels, n, sums);
}

// Rows of im2col matrix per block, so that a block's scratch stays near `bytes`.
inline int64_t RowsPerBlock(int64_t row_elements, int64_t element_size, int64_t bytes = 4 << 20) {
  return std::max<int64_t>(1, bytes / std::max<int64_t>(1, row_elements * element_size));
}

}  // namespace conv
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_CONV_UTIL_H_
