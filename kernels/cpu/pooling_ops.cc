// MaxPool, AvgPool and their gradients on the CPU, NHWC. A window's taps are visited in
// raster order and every channel of a tap at once (channels are contiguous in NHWC).
//
//   MaxPool       the largest tap of each window; padding (SAME, or EXPLICIT narrower than
//                 the window) is never the maximum.
//   AvgPool       the mean of the window's taps inside the input: with SAME padding, an
//                 edge window divides by its count of real elements, as TensorFlow does.
//   MaxPoolGrad   each output's gradient goes to the first largest tap of its window (the
//                 argmax recomputed from orig_input; ties go to the earliest tap in raster
//                 order, as TensorFlow's CPU kernel).
//   MaxPoolGradGrad  MaxPoolGrad's gradient: each window takes grad at its first tap equal
//                 to orig_output (TensorFlow's CPU kernel's match, not a recomputed argmax).
//   AvgPoolGrad   each output's gradient, divided by its window's count, to every real tap.
//   _MaxPoolGradWithReluGrad  MaxPoolGrad whose gradient reaches the maximum only when that
//                 maximum is positive: ReluGrad(MaxPoolGrad(x, ...), x) in one pass, for
//                 x = Relu(...) (made by the remapper, graph/optimizer/remapper.h).
//   MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2  the same kernels with ksize and strides read
//                 from their last two inputs each step (what TensorFlow 2 writes).
//
// The forward pools split output rows over the device's threads. MaxPoolGrad with windows
// that never overlap (stride >= ksize, e.g. 2x2 stride 2) splits output rows too, each
// window writing its taps once; otherwise the gradients split images, whose input gradients
// are disjoint (neighbouring windows overlap).
#include <Eigen/Core>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

using conv::PoolDims;
using conv::PoolOutputShape;

// The V2 ops (MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2) take ksize and strides as their
// last two inputs, int32 (host memory), instead of attrs: *v2 says which an op is. For V2
// only data_format and padding are read here; WindowFromInputs reads the rest each step.
Status ReadPoolAttrs(OpKernelConstruction* ctx, conv::WindowAttrs* attrs, bool* v2) {
  const std::string& op = ctx->def().op();
  *v2 = op.size() > 2 && op.compare(op.size() - 2, 2, "V2") == 0;
  if (!*v2) return conv::ReadWindowAttrs(ctx, /*has_dilations=*/false, /*has_ksize=*/true, attrs);
  std::string data_format = "NHWC";
  if (ctx->GetAttr("data_format", &data_format).ok() && data_format != "NHWC") {
    return errors::InvalidArgument(conv::NodeContext(ctx), ": the CPU kernel supports only the NHWC data format, not ",
                                   data_format, " (as TensorFlow's CPU kernels)");
  }
  std::string padding;
  TA_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  if (padding != "SAME" && padding != "VALID") {
    return errors::InvalidArgument(conv::NodeContext(ctx), ": padding ", padding, " is not SAME or VALID");
  }
  attrs->padding = padding == "SAME" ? conv::Padding::kSame : conv::Padding::kValid;
  attrs->dilations = {1, 1, 1, 1};
  return Status::OK();
}

// A V2 pool's window from its ksize and strides inputs, checked as TensorFlow's kernels check
// them (4 elements each, then no window or stride over the batch), then as V1 checks its
// attrs (positive, no window or stride over the depth).
Status WindowFromInputs(OpKernelContext* ctx, const OpKernel& kernel, conv::WindowAttrs* attrs) {
  const int n = ctx->num_inputs();
  std::vector<int64_t>* fields[] = {&attrs->ksize, &attrs->strides};
  const char* names[] = {"ksize", "stride"};
  for (int f = 0; f < 2; ++f) {
    const Tensor& t = ctx->input(n - 2 + f);
    if (t.dtype() != tensorflow::DT_INT32 || t.NumElements() != 4) {
      return errors::InvalidArgument(conv::NodeContext(kernel), ": sliding window ", names[f],
                                     " field must specify 4 dimensions, got ", t.NumElements());
    }
    fields[f]->assign(t.base<int32_t>(), t.base<int32_t>() + 4);
  }
  const std::vector<int64_t>&ksize = attrs->ksize, &strides = attrs->strides;
  if (ksize[0] != 1 || strides[0] != 1) {
    return errors::Unimplemented(conv::NodeContext(kernel), ": pooling is not yet supported on the batch dimension");
  }
  for (int f = 0; f < 2; ++f) {
    for (int64_t v : *fields[f]) {
      if (v <= 0) return errors::InvalidArgument(conv::NodeContext(kernel), ": ", names[f], " must be positive, got ", v);
    }
  }
  if (strides[3] != 1) {
    return errors::Unimplemented(conv::NodeContext(kernel), ": strides in the batch and depth dimensions are not "
                                 "supported, got [", strides[0], ",", strides[1], ",", strides[2], ",", strides[3], "]");
  }
  if (ksize[3] != 1) {
    return errors::Unimplemented(conv::NodeContext(kernel), ": pooling over the depth dimension is not supported on the CPU");
  }
  return Status::OK();
}

// The window of this step: the attrs read at construction, with V2's from its inputs.
Status StepWindow(OpKernelContext* ctx, const OpKernel& kernel, const conv::WindowAttrs& attrs, bool v2,
                  conv::WindowAttrs* out) {
  *out = attrs;
  return v2 ? WindowFromInputs(ctx, kernel, out) : Status::OK();
}


// The window of output (row, col) clipped to the input: rows [r0, r1), cols [c0, c1).
struct Window {
  int64_t r0, r1, c0, c1;
};
Window WindowAt(const conv::ConvDims& d, int64_t row, int64_t col) {
  const int64_t r = row * d.stride_rows - d.pad_top, c = col * d.stride_cols - d.pad_left;
  return {std::max<int64_t>(r, 0), std::min(r + d.filter_rows, d.in_rows), std::max<int64_t>(c, 0),
          std::min(c + d.filter_cols, d.in_cols)};
}

// Runs fn(image, out_row, out_col, window) for every output of output rows [begin, end)
// (global rows: image * out_rows + row).
template <class F>
void ForEachOutput(const conv::ConvDims& d, int64_t begin, int64_t end, F fn) {
  for (int64_t r = begin; r < end; ++r) {
    const int64_t image = r / d.out_rows, row = r % d.out_rows;
    for (int64_t col = 0; col < d.out_cols; ++col) fn(image, row, col, WindowAt(d, row, col));
  }
}

template <class T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;

// Whether every window is 2x2 at stride 2 and wholly inside the input (no padding).
bool IsWhole2x2(const conv::ConvDims& d) {
  return d.filter_rows == 2 && d.filter_cols == 2 && d.stride_rows == 2 && d.stride_cols == 2 && d.pad_top == 0 &&
         d.pad_left == 0 && 2 * d.out_rows <= d.in_rows && 2 * d.out_cols <= d.in_cols;
}

// Per channel the largest of four taps, compared as the general path's Eigen max does
// (std::max(o, tap) in raster order: a NaN tap never replaces the running value), in a
// loop GCC turns into vector max instructions.
template <class T>
void Max2x2(const T* __restrict a, const T* __restrict b, const T* __restrict c, const T* __restrict e,
            T* __restrict out, int64_t depth) {
  for (int64_t ch = 0; ch < depth; ++ch) {
    T v = std::numeric_limits<T>::lowest();
    v = v < a[ch] ? a[ch] : v;
    v = v < b[ch] ? b[ch] : v;
    v = v < c[ch] ? c[ch] : v;
    v = v < e[ch] ? e[ch] : v;
    out[ch] = v;
  }
}

// MaxPool and AvgPool: one class, the reduction of a window told apart by `kMax`.
template <class T, bool kMax>
class PoolOp : public OpKernel {
 public:
  explicit PoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, &attrs_, &v2_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    conv::WindowAttrs attrs;
    OP_REQUIRES_OK(ctx, StepWindow(ctx, *this, attrs_, v2_, &attrs));
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, PoolDims(*this, attrs, input.shape(), &d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, PoolOutputShape(d), &out));
    if (out->NumElements() == 0) return;
    const int64_t depth = d.in_depth;
    const T* ip = input.base<T>();
    T* op = out->base<T>();
    const int64_t cost = d.out_cols * d.filter_rows * d.filter_cols * depth;
    if (kMax && IsWhole2x2(d)) {
      // The CNN's pools: two input rows per output row, no per-window bookkeeping (half the
      // time of the general path at batch 512, where it is bound by memory).
      CwiseParallelFor(ctx, d.batch * d.out_rows, cost, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t image = r / d.out_rows, row = r % d.out_rows;
          const T* top = ip + (image * d.in_rows + 2 * row) * d.in_cols * depth;
          const T* bottom = top + d.in_cols * depth;
          T* o = op + r * d.out_cols * depth;
          for (int64_t col = 0; col < d.out_cols; ++col, o += depth) {
            const int64_t at = 2 * col * depth;
            Max2x2(top + at, top + at + depth, bottom + at, bottom + at + depth, o, depth);
          }
        }
      });
      return;
    }
    CwiseParallelFor(ctx, d.batch * d.out_rows, cost, [&](int64_t begin, int64_t end) {
      ForEachOutput(d, begin, end, [&](int64_t image, int64_t row, int64_t col, const Window& w) {
        Eigen::Map<Array<T>> o(op + ((image * d.out_rows + row) * d.out_cols + col) * depth, depth);
        o.setConstant(kMax ? std::numeric_limits<T>::lowest() : T(0));
        const T* in_image = ip + image * d.in_rows * d.in_cols * depth;
        for (int64_t r = w.r0; r < w.r1; ++r) {
          for (int64_t c = w.c0; c < w.c1; ++c) {
            Eigen::Map<const Array<T>> tap(in_image + (r * d.in_cols + c) * depth, depth);
            if (kMax) o = o.max(tap);
            else o += tap;
          }
        }
        if (!kMax) o /= static_cast<T>((w.r1 - w.r0) * (w.c1 - w.c0));
      });
    });
  }

 private:
  conv::WindowAttrs attrs_;
  bool v2_ = false;  // ksize and strides are inputs
};


// A window's tap number (raster order), as wide as T so the argmax scan vectorises.
template <class T>
using TapIndex = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;

// For each channel the value and tap number of the window's first largest tap (a later tap
// takes over only when strictly larger, so ties and NaNs keep the earliest). The window
// must hold at least one tap.
template <class T, class Tap>
void WindowArgmax(const T* in_image, const conv::ConvDims& d, const Window& w, int64_t depth, T* __restrict best,
                  Tap* __restrict argmax) {
  const T* first = in_image + (w.r0 * d.in_cols + w.c0) * depth;
  for (int64_t ch = 0; ch < depth; ++ch) {
    best[ch] = first[ch];
    argmax[ch] = 0;
  }
  Tap t = 0;
  for (int64_t r = w.r0; r < w.r1; ++r) {
    for (int64_t c = w.c0; c < w.c1; ++c, ++t) {
      if (t == 0) continue;
      const T* __restrict tap = in_image + (r * d.in_cols + c) * depth;
      for (int64_t ch = 0; ch < depth; ++ch) {
        const bool larger = tap[ch] > best[ch];
        best[ch] = larger ? tap[ch] : best[ch];
        argmax[ch] = larger ? t : argmax[ch];
      }
    }
  }
}

// For ReluGrad after MaxPoolGrad: a window whose maximum is not positive routes its
// gradient to no tap (tap -1).
template <class T, class Tap>
void DropNonPositive(const T* best, Tap* argmax, int64_t depth) {
  for (int64_t ch = 0; ch < depth; ++ch) argmax[ch] = best[ch] > T(0) ? argmax[ch] : Tap(-1);
}

// For ReluGrad after a 2x2 MaxPoolGrad: each channel's gradient, or 0 where the window's
// maximum (what the gradient's tap holds) is not positive. A pass of its own: folded into
// MaxGrad2x2's loop, GCC 12 no longer vectorises that loop.
template <class T>
__attribute__((noinline)) void GateByMaximum2x2(const T* __restrict a, const T* __restrict b, const T* __restrict c,
                                                const T* __restrict d, const T* __restrict g, T* __restrict out,
                                                int64_t depth) {
  for (int64_t ch = 0; ch < depth; ++ch) {
    // The strict comparisons of MaxGrad2x2's argmax, so a NaN tap counts the same there.
    T m = a[ch];
    m = b[ch] > m ? b[ch] : m;
    m = c[ch] > m ? c[ch] : m;
    m = d[ch] > m ? d[ch] : m;
    out[ch] = m > T(0) ? g[ch] : T(0);
  }
}

// The first largest of a 2x2 window's taps va vb / vc vd (raster order). Strictly larger
// takes over, so ties (and NaNs) keep the earlier tap. Selects, not branches, so the loops
// below vectorise.
template <class T>
inline TapIndex<T> FirstMaxTap2x2(T va, T vb, T vc, T vd) {
  T m = va;
  TapIndex<T> k = 0;
  k = vb > m ? 1 : k;
  m = vb > m ? vb : m;
  k = vc > m ? 2 : k;
  m = vc > m ? vc : m;
  return vd > m ? 3 : k;
}

// A 2x2 window of taps a b / c d (raster order): each channel's gradient to the first
// largest tap, zero to the others (the window's taps are written by no other window).
// Not inlined: inlined into the pass below, GCC 12 leaves the loop scalar (and branchy).
template <class T>
__attribute__((noinline)) void MaxGrad2x2(const T* __restrict a, const T* __restrict b, const T* __restrict c,
                                          const T* __restrict d,
                                          const T* __restrict g, T* __restrict oa, T* __restrict ob, T* __restrict oc, T* __restrict od,
                                          int64_t depth) {
  for (int64_t ch = 0; ch < depth; ++ch) {
    const TapIndex<T> k = FirstMaxTap2x2(a[ch], b[ch], c[ch], d[ch]);
    const T gv = g[ch];
    oa[ch] = k == 0 ? gv : T(0);
    ob[ch] = k == 1 ? gv : T(0);
    oc[ch] = k == 2 ? gv : T(0);
    od[ch] = k == 3 ? gv : T(0);
  }
}

// MaxGrad2x2 over the window's own taps: the output in the input's buffer (forwarded), each
// tap read before it is overwritten.
template <class T>
__attribute__((noinline)) void MaxGrad2x2InPlace(T* __restrict a, T* __restrict b, T* __restrict c, T* __restrict d,
                                                 const T* __restrict g, int64_t depth) {
  for (int64_t ch = 0; ch < depth; ++ch) {
    const TapIndex<T> k = FirstMaxTap2x2(a[ch], b[ch], c[ch], d[ch]);
    const T gv = g[ch];
    a[ch] = k == 0 ? gv : T(0);
    b[ch] = k == 1 ? gv : T(0);
    c[ch] = k == 2 ? gv : T(0);
    d[ch] = k == 3 ? gv : T(0);
  }
}

// MaxPoolGrad, and _MaxPoolGradWithReluGrad when kReluGrad.
template <class T, bool kReluGrad>
class MaxPoolGradOp : public OpKernel {
 public:
  explicit MaxPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, &attrs_, &v2_));
  }

  using Tap = TapIndex<T>;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    conv::WindowAttrs attrs;
    OP_REQUIRES_OK(ctx, StepWindow(ctx, *this, attrs_, v2_, &attrs));
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, PoolDims(*this, attrs, input.shape(), &d));
    OP_REQUIRES_OK(ctx, conv::CheckPoolOutputShape(*this, "orig_output", ctx->input(1).shape(), d));
    OP_REQUIRES_OK(ctx, conv::CheckPoolOutputShape(*this, "grad", grad.shape(), d));
    // Windows that never overlap (stride >= ksize in both dimensions) each write their own
    // taps' gradients, so output rows split over threads; windows that tile the input
    // exactly write every element of it, so the output needs no zero fill first.
    const bool disjoint = d.stride_rows >= d.filter_rows && d.stride_cols >= d.filter_cols;
    const bool tiles = disjoint && d.stride_rows == d.filter_rows && d.stride_cols == d.filter_cols &&
                       d.pad_top == 0 && d.pad_left == 0 && d.out_rows * d.stride_rows >= d.in_rows &&
                       d.out_cols * d.stride_cols >= d.in_cols;
    // Tiling windows read their taps before writing them and touch no other element: the
    // gradient can then go into orig_input's buffer when this is its last consumer (a CNN's
    // pooled activations), instead of a fresh one fetched from memory as it is written.
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, tiles ? ctx->forward_input_or_allocate_output(0, 0, input.shape(), &out)
                              : ctx->allocate_output(0, input.shape(), &out));
    if (out->NumElements() == 0) return;
    const int64_t depth = d.in_depth, image_size = d.in_rows * d.in_cols * depth;
    const T* ip = input.base<T>();
    const T* gp = grad.base<T>();
    T* op = out->base<T>();
    const bool in_place = op == ip;
    const int64_t taps = d.filter_rows * d.filter_cols;
    const int64_t cost = d.out_cols * taps * depth;
    if (disjoint) {
      if (!tiles) {
        const int64_t n = out->NumElements();
        CwiseParallelFor(ctx, n, 1, [&](int64_t b, int64_t e) { std::fill(op + b, op + e, T(0)); });
      }
      CwiseParallelFor(ctx, d.batch * d.out_rows, cost, [&](int64_t begin, int64_t end) {
        std::vector<T> best(depth);
        std::vector<Tap> argmax(depth);
        ForEachOutput(d, begin, end, [&](int64_t image, int64_t row, int64_t col, const Window& w) {
          const int64_t window_taps = (w.r1 - w.r0) * (w.c1 - w.c0);
          if (window_taps == 0) return;
          const T* in_image = ip + image * image_size;
          T* out_image = op + image * image_size;
          const T* g = gp + ((image * d.out_rows + row) * d.out_cols + col) * depth;
          if (w.r1 - w.r0 == 2 && w.c1 - w.c0 == 2) {
            // A whole 2x2 window (the common pool): argmax and writes in one pass, in registers.
            const int64_t at = (w.r0 * d.in_cols + w.c0) * depth, below = d.in_cols * depth;
            const T *ta = in_image + at, *tb = ta + depth, *tc = ta + below, *td = tc + depth;
            if (kReluGrad) {
              GateByMaximum2x2(ta, tb, tc, td, g, best.data(), depth);
              g = best.data();
            }
            if (in_place) {
              T* oa = out_image + at;
              MaxGrad2x2InPlace(oa, oa + depth, oa + below, oa + below + depth, g, depth);
              return;
            }
            MaxGrad2x2(ta, tb, tc, td, g,
                       out_image + at, out_image + at + depth, out_image + at + below,
                       out_image + at + below + depth, depth);
            return;
          }
          WindowArgmax(in_image, d, w, depth, best.data(), argmax.data());
          if (kReluGrad) DropNonPositive(best.data(), argmax.data(), depth);
          const Tap* am = argmax.data();
          Tap t = 0;
          for (int64_t r = w.r0; r < w.r1; ++r) {
            for (int64_t c = w.c0; c < w.c1; ++c, ++t) {
              T* o = out_image + (r * d.in_cols + c) * depth;
              for (int64_t ch = 0; ch < depth; ++ch) o[ch] = am[ch] == t ? g[ch] : T(0);
            }
          }
        });
      });
      return;
    }
    // Overlapping windows: images split over threads (their input gradients are disjoint),
    // each window's gradient added at its argmax.
    CwiseParallelFor(ctx, d.batch, d.out_rows * cost, [&](int64_t begin, int64_t end) {
      std::fill(op + begin * image_size, op + end * image_size, T(0));
      std::vector<T> best(depth);
      std::vector<Tap> argmax(depth);
      std::vector<int64_t> tap_offset(taps);
      ForEachOutput(d, begin * d.out_rows, end * d.out_rows, [&](int64_t image, int64_t row, int64_t col,
                                                                  const Window& w) {
        if (w.r1 <= w.r0 || w.c1 <= w.c0) return;
        const T* in_image = ip + image * image_size;
        T* out_image = op + image * image_size;
        WindowArgmax(in_image, d, w, depth, best.data(), argmax.data());
        int64_t t = 0;
        for (int64_t r = w.r0; r < w.r1; ++r) {
          for (int64_t c = w.c0; c < w.c1; ++c) tap_offset[t++] = (r * d.in_cols + c) * depth;
        }
        const T* g = gp + ((image * d.out_rows + row) * d.out_cols + col) * depth;
        for (int64_t ch = 0; ch < depth; ++ch) {
          // The element a window routes to holds the window's maximum: where that is not
          // positive, ReluGrad would zero whatever the windows add there.
          if (!kReluGrad || best[ch] > T(0)) out_image[tap_offset[argmax[ch]] + ch] += g[ch];
        }
      });
    });
  }

 private:
  conv::WindowAttrs attrs_;
  bool v2_ = false;  // ksize and strides are inputs
};

// MaxPoolGradGrad, MaxPoolGrad's gradient with respect to its grad: each output takes grad
// at the first tap of its window (raster order) whose orig_input equals the window's
// orig_output, as TensorFlow's CPU kernel. It matches orig_output rather than recomputing
// the argmax, so an orig_output no tap equals (a NaN window's) gives 0.
template <class T>
class MaxPoolGradGradOp : public OpKernel {
 public:
  explicit MaxPoolGradGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, &attrs_, &v2_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& pooled = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    conv::WindowAttrs attrs;
    OP_REQUIRES_OK(ctx, StepWindow(ctx, *this, attrs_, v2_, &attrs));
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, PoolDims(*this, attrs, input.shape(), &d));
    OP_REQUIRES_OK(ctx, conv::CheckPoolOutputShape(*this, "orig_output", pooled.shape(), d));
    OP_REQUIRES(ctx, grad.shape() == input.shape(),
                errors::InvalidArgument(conv::NodeContext(*this), ": grad has shape ", grad.shape().DebugString(),
                                        " but orig_input has shape ", input.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, PoolOutputShape(d), &out));
    if (out->NumElements() == 0) return;
    const int64_t depth = d.in_depth, image_size = d.in_rows * d.in_cols * depth;
    const T* ip = input.base<T>();
    const T* pp = pooled.base<T>();
    const T* gp = grad.base<T>();
    T* op = out->base<T>();
    const int64_t cost = d.out_cols * d.filter_rows * d.filter_cols * depth;
    CwiseParallelFor(ctx, d.batch * d.out_rows, cost, [&](int64_t begin, int64_t end) {
      std::vector<bool> found(depth);
      ForEachOutput(d, begin, end, [&](int64_t image, int64_t row, int64_t col, const Window& w) {
        const int64_t at = ((image * d.out_rows + row) * d.out_cols + col) * depth;
        const T* max = pp + at;
        T* o = op + at;
        std::fill(o, o + depth, T(0));
        std::fill(found.begin(), found.end(), false);
        for (int64_t r = w.r0; r < w.r1; ++r) {
          for (int64_t c = w.c0; c < w.c1; ++c) {
            const int64_t tap = image * image_size + (r * d.in_cols + c) * depth;
            for (int64_t ch = 0; ch < depth; ++ch) {
              if (!found[ch] && ip[tap + ch] == max[ch]) {
                o[ch] = gp[tap + ch];
                found[ch] = true;
              }
            }
          }
        }
      });
    });
  }

 private:
  conv::WindowAttrs attrs_;
  bool v2_ = false;  // ksize and strides are inputs
};

template <class T>
class AvgPoolGradOp : public OpKernel {
 public:
  explicit AvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/false, /*has_ksize=*/true, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(1);
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, conv::PoolInputShape(*this, ctx->input(0), &input_shape));
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, PoolDims(*this, attrs_, input_shape, &d));
    OP_REQUIRES_OK(ctx, conv::CheckPoolOutputShape(*this, "grad", grad.shape(), d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t depth = d.in_depth, in_image = d.in_rows * d.in_cols * depth;
    const T* gp = grad.base<T>();
    T* op = out->base<T>();
    const int64_t cost = d.out_rows * d.out_cols * d.filter_rows * d.filter_cols * depth;
    CwiseParallelFor(ctx, d.batch, cost, [&](int64_t begin, int64_t end) {
      std::fill(op + begin * in_image, op + end * in_image, T(0));
      ForEachOutput(d, begin * d.out_rows, end * d.out_rows, [&](int64_t image, int64_t row, int64_t col,
                                                                  const Window& w) {
        const T scale = T(1) / static_cast<T>((w.r1 - w.r0) * (w.c1 - w.c0));
        Eigen::Map<const Array<T>> g(gp + ((image * d.out_rows + row) * d.out_cols + col) * depth, depth);
        T* out_image = op + image * in_image;
        for (int64_t r = w.r0; r < w.r1; ++r) {
          for (int64_t c = w.c0; c < w.c1; ++c) {
            Eigen::Map<Array<T>>(out_image + (r * d.in_cols + c) * depth, depth) += g * scale;
          }
        }
      });
    });
  }

 private:
  conv::WindowAttrs attrs_;
};

#define TA_REGISTER_POOLS(T)                                                                               \
  REGISTER_KERNEL(Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"), PoolOp<T, false>);            \
  REGISTER_KERNEL(Name("_MaxPoolGradWithReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),               \
                  MaxPoolGradOp<T, true>);                                                                 \
  REGISTER_KERNEL(Name("AvgPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), AvgPoolGradOp<T>);
TA_REGISTER_POOLS(float)
TA_REGISTER_POOLS(double)
#undef TA_REGISTER_POOLS

// half and bfloat16 averages: sums in T (each add rounded, as TensorFlow's Eigen reducer
// does) and a division in T.
#define TA_REGISTER_SMALL_AVG_POOLS(T)                                                                 \
  REGISTER_KERNEL(Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"), PoolOp<T, false>);        \
  REGISTER_KERNEL(Name("AvgPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), AvgPoolGradOp<T>);
TA_REGISTER_SMALL_AVG_POOLS(Eigen::half)
TA_REGISTER_SMALL_AVG_POOLS(Eigen::bfloat16)
#undef TA_REGISTER_SMALL_AVG_POOLS

// The max and its routing compare and copy elements, exact in every type: MaxPool,
// MaxPoolGrad and MaxPoolGradGrad (and their V2s) for every real type their ops allow, as TensorFlow's CPU kernels (where
// windows overlap, MaxPoolGrad adds the gradients in T, window by window in raster order,
// as TensorFlow's does).
#define TA_REGISTER_MAX_POOL(T)                                                            \
  REGISTER_KERNEL(Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"), PoolOp<T, true>); \
  REGISTER_KERNEL(Name("MaxPoolV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), PoolOp<T, true>)
#define TA_REGISTER_MAX_POOL_GRAD(T)                                                                        \
  REGISTER_KERNEL(Name("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), MaxPoolGradOp<T, false>);   \
  REGISTER_KERNEL(Name("MaxPoolGradV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), MaxPoolGradOp<T, false>); \
  REGISTER_KERNEL(Name("MaxPoolGradGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), MaxPoolGradGradOp<T>);  \
  REGISTER_KERNEL(Name("MaxPoolGradGradV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), MaxPoolGradGradOp<T>)
#define TA_REGISTER_MAX_POOLS(T) \
  TA_REGISTER_MAX_POOL(T);       \
  TA_REGISTER_MAX_POOL_GRAD(T)
TA_REGISTER_MAX_POOLS(float);
TA_REGISTER_MAX_POOLS(double);
TA_REGISTER_MAX_POOLS(Eigen::half);
TA_REGISTER_MAX_POOLS(Eigen::bfloat16);
TA_REGISTER_MAX_POOLS(int8_t);
TA_REGISTER_MAX_POOLS(int16_t);
TA_REGISTER_MAX_POOLS(int32_t);
TA_REGISTER_MAX_POOLS(int64_t);
TA_REGISTER_MAX_POOLS(uint8_t);
TA_REGISTER_MAX_POOLS(uint16_t);
TA_REGISTER_MAX_POOL_GRAD(uint32_t);  // MaxPool's op allows no uint32 or uint64, MaxPoolGrad's does
TA_REGISTER_MAX_POOL_GRAD(uint64_t);
#undef TA_REGISTER_MAX_POOLS
#undef TA_REGISTER_MAX_POOL_GRAD
#undef TA_REGISTER_MAX_POOL

}  // namespace
}  // namespace tensoract
