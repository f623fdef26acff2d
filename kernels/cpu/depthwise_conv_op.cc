// DepthwiseConv2dNative and its two gradients on the CPU, NHWC (TensorFlow's CPU kernels
// refuse NCHW when there is something to compute; so do these), for half, bfloat16, float
// and double; and _FusedDepthwiseConv2dNative (float and double: the remapper's fusion with
// the per-channel steps and activation after it, kernels/cpu/fused_epilogue.h), whose float
// kernel is oneDNN's where it is built in (kernels/cpu/onednn_conv.h).
//
// The sums run in TensorFlow's order, so that the results are its results bit for bit:
//   forward:      output[o] = 0 + f[tap 0][o] * x[tap 0] + f[tap 1][o] * x[tap 1] + ...,
//                 the taps in filter order, a tap in the padding reading x = 0;
//   input grad:   per input pixel, over every tap in filter order, f * (the out_backprop
//                 element that tap reached it from, or 0), then summed over the depth
//                 multiplier;
//   filter grad:  per image, over output pixels in order, then the images added in order.
// Each step is a multiply then an add, rounded to T after each (TensorFlow's Eigen packets
// do half and bfloat16 that way: in float, rounded back per multiply-add). This file is
// compiled without floating-point contraction for that reason: a fused multiply-add rounds
// once and would differ in the last bit. The inner loops run over contiguous channels and
// vectorise; images (or output rows) are spread over the device's threads.
//
// As TensorFlow's kernels: the forward op refuses dilations other than 1 (Unimplemented),
// the gradients ignore the dilations attr, strides must be equal in rows and columns.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "base/bfloat16_rounding.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/onednn_conv.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/kernel_registry.h"

#pragma GCC optimize("fp-contract=off")

namespace tensoract {
namespace {

// How T is computed: F is the type of the arithmetic, Round() the rounding back to T
// after each step (nothing for float and double).
template <class T>
struct Arith {
  using F = T;
  static F Round(F v) { return v; }
};
template <>
struct Arith<Eigen::half> {
  using F = float;
  static float Round(float v) { return static_cast<float>(Eigen::half(v)); }
};
template <>
struct Arith<Eigen::bfloat16> {
  using F = float;
  // float(bfloat16(v)) on the bits, branch-free so that MulAdd's loop vectorises (through
  // Eigen::bfloat16 it took MobileNetV2's 17 depthwise convolutions 27 ms at batch 1 under
  // Keras' mixed_bfloat16 policy).
  static float Round(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits = static_cast<uint32_t>(RoundedBfloat16Bits(bits)) << 16;
    std::memcpy(&v, &bits, sizeof bits);
    return v;
  }
};

// `t`'s values as F: the tensor's own buffer when F is T, else a converted copy in `copy`,
// from the device's allocator (which keeps large blocks: a fresh vector faulted in its pages
// at every call, 30% of EfficientNetB0's step at batch 32 under mixed_bfloat16), converted on
// the device's threads; null (the status set) when memory could not be had.
template <class T, class F = typename Arith<T>::F>
const F* AsArith(OpKernelContext* ctx, const Tensor& t, Tensor* copy) {
  if constexpr (std::is_same_v<T, F>) {
    return t.base<T>();
  } else {
    auto wide = Tensor::Allocate(ctx->device()->allocator(), DataTypeToEnum<F>::value, t.shape());
    if (!wide.ok()) {
      ctx->SetStatus(wide.status());
      return nullptr;
    }
    *copy = std::move(wide).value();
    ConvertOnDevice(ctx, t.base<T>(), copy->base<F>(), t.NumElements());
    return copy->base<F>();
  }
}

// The attrs of the three ops, checked as TensorFlow's kernel constructors check them.
struct DepthwiseAttrs {
  bool nchw = false;
  int64_t stride = 1;
  std::string padding;
  std::vector<int64_t> explicit_paddings;  // 8 entries when padding is EXPLICIT
};

Status ReadDepthwiseAttrs(OpKernelConstruction* ctx, bool forward, DepthwiseAttrs* a) {
  std::vector<int64_t> strides;
  TA_RETURN_IF_ERROR(ctx->GetAttr("strides", &strides));
  std::string data_format;
  TA_RETURN_IF_ERROR(ctx->GetAttr("data_format", &data_format));
  if (data_format != "NHWC" && data_format != "NCHW") return errors::InvalidArgument("Invalid data format");
  a->nchw = data_format == "NCHW";
  if (strides.size() != 4) return errors::InvalidArgument("Sliding window strides field must specify 4 dimensions");
  const int rows = a->nchw ? 2 : 1, cols = a->nchw ? 3 : 2, depth = a->nchw ? 1 : 3;
  a->stride = strides[rows];
  if (strides[rows] != strides[cols]) {
    return errors::InvalidArgument("Current implementation only supports equal length strides in the row and column "
                                   "dimensions.");
  }
  if (strides[0] != 1 || strides[depth] != 1) {
    return errors::InvalidArgument("Current implementation does not yet support strides in the batch and depth "
                                   "dimensions.");
  }
  if (a->stride <= 0) return errors::InvalidArgument("Stride must be > 0, but got ", a->stride);
  TA_RETURN_IF_ERROR(ctx->GetAttr("padding", &a->padding));
  if (ctx->def().attr().count("explicit_paddings") != 0) {  // _FusedDepthwiseConv2dNative has none
    TA_RETURN_IF_ERROR(ctx->GetAttr("explicit_paddings", &a->explicit_paddings));
  }
  if (a->padding != "EXPLICIT") {
    if (!a->explicit_paddings.empty()) {
      return errors::InvalidArgument("explicit_paddings attribute must be empty if the padding attribute is not "
                                     "EXPLICIT");
    }
  } else {
    if (a->explicit_paddings.size() != 8) {
      return errors::InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                                     a->explicit_paddings.size());
    }
    for (int64_t p : a->explicit_paddings) {
      if (p < 0) return errors::InvalidArgument("All elements of explicit_paddings must be nonnegative");
    }
    const auto& p = a->explicit_paddings;
    if (p[0] != 0 || p[1] != 0 || p[2 * depth] != 0 || p[2 * depth + 1] != 0) {
      return errors::InvalidArgument("Nonzero explicit padding in the batch or depth dimensions is not supported");
    }
  }
  if (forward) {
    std::vector<int64_t> dilations;
    TA_RETURN_IF_ERROR(ctx->GetAttr("dilations", &dilations));
    for (int64_t d : dilations) {
      if (d != 1) {
        std::string list;
        for (int64_t v : dilations) list += (list.empty() ? "" : " ") + std::to_string(v);
        return errors::Unimplemented("Current kernel implementation does not support dilations, received [", list,
                                     "]");
      }
    }
  }
  return Status::OK();
}

// The geometry of one depthwise convolution, NHWC.
struct Dims {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, multiplier = 0, out_depth = 0;
  int64_t out_rows = 0, out_cols = 0, pad_top = 0, pad_left = 0, stride = 1;
};

// TensorFlow's GetWindowedOutputSizeVerbose for one spatial dimension (dilation 1).
Status WindowedOutput(const DepthwiseAttrs& a, int64_t in, int64_t k, int dim, int64_t* out, int64_t* pad) {
  const int64_t s = a.stride;
  if (a.padding == "SAME") {
    *out = (in + s - 1) / s;
    *pad = std::max<int64_t>(0, (*out - 1) * s + k - in) / 2;
  } else {
    const int64_t before = a.padding == "EXPLICIT" ? a.explicit_paddings[2 * dim] : 0;
    const int64_t after = a.padding == "EXPLICIT" ? a.explicit_paddings[2 * dim + 1] : 0;
    *out = (in + before + after - k + s) / s;
    *pad = before;
  }
  if (*out < 0) {
    return errors::InvalidArgument("Computed output size would be negative: ", *out, " [input_size: ", in,
                                   ", effective_filter_size: ", k, ", stride: ", s, "]");
  }
  return Status::OK();
}

Status SpatialDims(const DepthwiseAttrs& a, Dims* d) {
  d->stride = a.stride;
  const int rows = a.nchw ? 2 : 1, cols = a.nchw ? 3 : 2;
  TA_RETURN_IF_ERROR(WindowedOutput(a, d->in_rows, d->filter_rows, rows, &d->out_rows, &d->pad_top));
  return WindowedOutput(a, d->in_cols, d->filter_cols, cols, &d->out_cols, &d->pad_left);
}

TensorShape Shape4(bool nchw, int64_t n, int64_t h, int64_t w, int64_t c) {
  return nchw ? TensorShape({n, c, h, w}) : TensorShape({n, h, w, c});
}

Status RefuseNchw(bool nchw) {
  if (nchw) return errors::Unimplemented("Depthwise convolution on CPU is only supported for NHWC format");
  return Status::OK();
}

// A shape given as an int32 vector input (input_sizes, filter_sizes), checked as TensorFlow.
Status ShapeFromSizes(const Tensor& sizes, const char* what, const char* op, TensorShape* shape) {
  if (sizes.dims() != 1) {
    return errors::InvalidArgument(op, ": ", what, " input must be 1-dim, not ", sizes.dims());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < sizes.NumElements(); ++i) {
    const int32_t v = sizes.base<int32_t>()[i];
    if (v < 0) return errors::InvalidArgument("Dimension ", i, " of ", what, " must be >= 0");
    dims.push_back(v);
  }
  *shape = TensorShape(dims);
  return Status::OK();
}

// The gradients' common checks (TensorFlow's EXTRACT_AND_VERIFY_DIMENSIONS): `label` opens
// each message as in TensorFlow.
Status GradientDims(const DepthwiseAttrs& a, const std::string& label, const TensorShape& input,
                    const TensorShape& filter, const TensorShape& out_backprop, Dims* d) {
  if (input.dims() != 4) return errors::InvalidArgument(label, ": input must be 4-dimensional");
  if (filter.dims() != 4) return errors::InvalidArgument(label, ": filter must be 4-dimensional");
  if (out_backprop.dims() != 4) return errors::InvalidArgument(label, ": out_backprop must be 4-dimensional");
  const int rows = a.nchw ? 2 : 1, cols = a.nchw ? 3 : 2, depth = a.nchw ? 1 : 3;
  d->batch = input.dim_size(0);
  if (d->batch != out_backprop.dim_size(0)) {
    return errors::InvalidArgument(label, ": input and out_backprop must have the same batch size");
  }
  d->in_rows = input.dim_size(rows);
  d->in_cols = input.dim_size(cols);
  d->in_depth = input.dim_size(depth);
  d->filter_rows = filter.dim_size(0);
  d->filter_cols = filter.dim_size(1);
  if (d->in_depth != filter.dim_size(2)) {
    return errors::InvalidArgument(label, ": input and filter must have the same in_depth");
  }
  d->multiplier = filter.dim_size(3);
  d->out_depth = out_backprop.dim_size(depth);
  if (d->multiplier * d->in_depth != d->out_depth) {
    return errors::InvalidArgument(label, ": depth_multiplier * in_depth not equal to out_depth");
  }
  TA_RETURN_IF_ERROR(SpatialDims(a, d));
  if (out_backprop.dim_size(rows) != d->out_rows) {
    return errors::InvalidArgument(label, ": Number of rows of out_backprop doesn't match computed: actual = ",
                                   out_backprop.dim_size(rows), ", computed = ", d->out_rows);
  }
  if (out_backprop.dim_size(cols) != d->out_cols) {
    return errors::InvalidArgument(label, ": Number of cols of out_backprop doesn't match computed: actual = ",
                                   out_backprop.dim_size(cols), ", computed = ", d->out_cols);
  }
  return Status::OK();
}

// acc[o] = Round(acc[o] + a[o] * b[o]) over n channels: the one multiply-add every sum here
// is made of, vectorised over the channels.
template <class T, class F>
inline void MulAdd(int64_t n, const F* __restrict a, const F* __restrict b, F* __restrict acc) {
  if constexpr (std::is_same_v<T, F>) {
    for (int64_t o = 0; o < n; ++o) acc[o] = acc[o] + a[o] * b[o];
  } else {
    for (int64_t o = 0; o < n; ++o) acc[o] = Arith<T>::Round(acc[o] + a[o] * b[o]);
  }
}

// The input pixel's in_depth values repeated multiplier times each (as the output channels
// use them), or the pixel itself when the multiplier is 1.
template <class F>
const F* Expanded(const F* pixel, int64_t in_depth, int64_t multiplier, F* buffer) {
  if (multiplier == 1) return pixel;
  for (int64_t c = 0; c < in_depth; ++c) std::fill(buffer + c * multiplier, buffer + (c + 1) * multiplier, pixel[c]);
  return buffer;
}

template <class T>
class DepthwiseConv2dNativeOp : public OpKernel {
  using F = typename Arith<T>::F;

 public:
  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadDepthwiseAttrs(ctx, /*forward=*/true, &attrs_));
    OP_REQUIRES_OK(ctx, epilogue_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument("input must be 4-dimensional", input.shape().DebugString()));
    OP_REQUIRES(ctx, filter.dims() == 4,
                errors::InvalidArgument("filter must be 4-dimensional: ", filter.shape().DebugString()));
    Dims d;
    const bool nchw = attrs_.nchw;
    d.batch = input.dim_size(0);
    d.in_rows = input.dim_size(nchw ? 2 : 1);
    d.in_cols = input.dim_size(nchw ? 3 : 2);
    d.in_depth = input.dim_size(nchw ? 1 : 3);
    OP_REQUIRES(ctx, d.in_depth == filter.dim_size(2),
                errors::InvalidArgument("input and filter must have the same depth: ", d.in_depth, " vs ",
                                        filter.dim_size(2)));
    d.filter_rows = filter.dim_size(0);
    d.filter_cols = filter.dim_size(1);
    d.multiplier = filter.dim_size(3);
    d.out_depth = d.in_depth * d.multiplier;
    OP_REQUIRES_OK(ctx, SpatialDims(attrs_, &d));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Shape4(nchw, d.batch, d.out_rows, d.out_cols, d.out_depth), &output));
    ChannelAffine<T> affine;
    if (epilogue_.active()) OP_REQUIRES_OK(ctx, epilogue_.Channels(*this, ctx, 2, *output, &affine));
    if (output->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, RefuseNchw(nchw));
    if constexpr (std::is_same_v<T, float>) {
      // The fused op only: its values differ from TensorFlow's unfused ones in rounding
      // anyway, where the plain op keeps TensorFlow's order of sums bit for bit.
      if (epilogue_.active() && OnednnConv::Enabled()) {
        conv::ConvDims cd;
        cd.batch = d.batch;
        cd.in_rows = d.in_rows;
        cd.in_cols = d.in_cols;
        cd.in_depth = d.in_depth;
        cd.filter_rows = d.filter_rows;
        cd.filter_cols = d.filter_cols;
        cd.out_depth = d.out_depth;
        cd.stride_rows = cd.stride_cols = d.stride;
        cd.out_rows = d.out_rows;
        cd.out_cols = d.out_cols;
        cd.pad_top = d.pad_top;
        cd.pad_left = d.pad_left;
        cd.groups = d.in_depth;  // [rows, cols, depth, multiplier] is HWIO [rows, cols, 1, depth * multiplier]
        if (onednn_.Run(ctx, cd, input.base<float>(), filter, affine, epilogue_, output->base<float>())) return;
      }
    }

    Tensor input_copy, filter_copy;
    const F* in = AsArith<T>(ctx, input, &input_copy);
    const F* f = AsArith<T>(ctx, filter, &filter_copy);
    if (in == nullptr || f == nullptr) return;
    T* out = output->base<T>();
    const int64_t taps = d.filter_rows * d.filter_cols;
    // Global output rows (image * out_rows + row), whose outputs are contiguous.
    CwiseParallelFor(ctx, d.batch * d.out_rows, 3 * d.out_cols * taps * d.out_depth, [&](int64_t begin, int64_t end) {
      std::vector<F> acc(d.out_depth), expanded(d.out_depth), zeros(d.in_depth, F(0));
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / d.out_rows, out_r = row % d.out_rows;
        const F* image = in + b * d.in_rows * d.in_cols * d.in_depth;
        for (int64_t out_c = 0; out_c < d.out_cols; ++out_c) {
          std::fill(acc.begin(), acc.end(), F(0));
          for (int64_t fr = 0; fr < d.filter_rows; ++fr) {
            const int64_t ir = out_r * d.stride - d.pad_top + fr;
            for (int64_t fc = 0; fc < d.filter_cols; ++fc) {
              const int64_t ic = out_c * d.stride - d.pad_left + fc;
              const bool inside = ir >= 0 && ir < d.in_rows && ic >= 0 && ic < d.in_cols;
              // A tap in the padding still adds f * 0 (NaN where f is infinite), as TensorFlow.
              const F* pixel = inside ? image + (ir * d.in_cols + ic) * d.in_depth : zeros.data();
              const F* x = Expanded(pixel, d.in_depth, d.multiplier, expanded.data());
              MulAdd<T>(d.out_depth, f + (fr * d.filter_cols + fc) * d.out_depth, x, acc.data());
            }
          }
          ConvertElements(acc.data(), out + (row * d.out_cols + out_c) * d.out_depth, d.out_depth);
        }
        epilogue_.Apply(out + row * d.out_cols * d.out_depth, d.out_cols, d.out_depth, d.out_depth, affine);
      }
    });
  }

 private:
  DepthwiseAttrs attrs_;
  FusedEpilogue epilogue_;  // _FusedDepthwiseConv2dNative's per-channel steps and activation
  OnednnConv onednn_;
};

template <class T>
class DepthwiseConv2dNativeBackpropInputOp : public OpKernel {
  using F = typename Arith<T>::F;

 public:
  explicit DepthwiseConv2dNativeBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadDepthwiseAttrs(ctx, /*forward=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(ctx->input(0), "input_sizes", "Conv2DBackpropInput", &input_shape));
    Dims d;
    OP_REQUIRES_OK(ctx, GradientDims(attrs_, "DepthwiseConv2DBackpropInput", input_shape, filter.shape(),
                                     out_backprop.shape(), &d));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, RefuseNchw(attrs_.nchw));

    Tensor filter_copy, dy_copy;
    const F* f = AsArith<T>(ctx, filter, &filter_copy);
    const F* dy = AsArith<T>(ctx, out_backprop, &dy_copy);
    if (f == nullptr || dy == nullptr) return;
    T* out = output->base<T>();
    const int64_t taps = d.filter_rows * d.filter_cols, s = d.stride;
    CwiseParallelFor(ctx, d.batch * d.in_rows, 3 * d.in_cols * taps * d.out_depth, [&](int64_t begin, int64_t end) {
      std::vector<F> acc(d.out_depth), sum(d.in_depth), zeros(d.out_depth, F(0));
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / d.in_rows, in_r = row % d.in_rows;
        const F* image_dy = dy + b * d.out_rows * d.out_cols * d.out_depth;
        for (int64_t in_c = 0; in_c < d.in_cols; ++in_c) {
          std::fill(acc.begin(), acc.end(), F(0));
          for (int64_t fr = 0; fr < d.filter_rows; ++fr) {
            const int64_t r = in_r + d.pad_top - fr;  // out_r * stride, if a tap fr reached here
            const bool row_hit = r >= 0 && r % s == 0 && r / s < d.out_rows;
            for (int64_t fc = 0; fc < d.filter_cols; ++fc) {
              const int64_t c = in_c + d.pad_left - fc;
              const bool hit = row_hit && c >= 0 && c % s == 0 && c / s < d.out_cols;
              const F* g = hit ? image_dy + ((r / s) * d.out_cols + c / s) * d.out_depth : zeros.data();
              MulAdd<T>(d.out_depth, f + (fr * d.filter_cols + fc) * d.out_depth, g, acc.data());
            }
          }
          T* dst = out + (row * d.in_cols + in_c) * d.in_depth;
          if (d.multiplier == 1) {
            ConvertElements(acc.data(), dst, d.in_depth);
            continue;
          }
          // The multiplier's outputs of a channel, added in order from 0.
          for (int64_t ch = 0; ch < d.in_depth; ++ch) {
            F total = F(0);
            for (int64_t m = 0; m < d.multiplier; ++m) total = Arith<T>::Round(total + acc[ch * d.multiplier + m]);
            sum[ch] = total;
          }
          ConvertElements(sum.data(), dst, d.in_depth);
        }
      }
    });
  }

 private:
  DepthwiseAttrs attrs_;
};

template <class T>
class DepthwiseConv2dNativeBackpropFilterOp : public OpKernel {
  using F = typename Arith<T>::F;

 public:
  explicit DepthwiseConv2dNativeBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadDepthwiseAttrs(ctx, /*forward=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(ctx->input(1), "filter_sizes", "Conv2DBackpropFilter", &filter_shape));
    Dims d;
    OP_REQUIRES_OK(ctx, GradientDims(attrs_, "DepthwiseConv2DBackpropFilter", input.shape(), filter_shape,
                                     out_backprop.shape(), &d));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &output));
    T* out = output->base<T>();
    const int64_t taps = d.filter_rows * d.filter_cols, size = taps * d.out_depth;
    // TensorFlow leaves the output unwritten when out_backprop is empty; zeros here.
    std::fill(out, out + size, T(0));
    if (out_backprop.NumElements() == 0 || size == 0) return;
    OP_REQUIRES_OK(ctx, RefuseNchw(attrs_.nchw));

    Tensor input_copy, dy_copy;
    const F* in = AsArith<T>(ctx, input, &input_copy);
    const F* dy = AsArith<T>(ctx, out_backprop, &dy_copy);
    if (in == nullptr || dy == nullptr) return;
    // One partial gradient per image (TensorFlow's order: each image's sum, then the images
    // added in order), the images spread over the threads.
    std::vector<F> partial(d.batch * size);
    CwiseParallelFor(ctx, d.batch, 3 * d.out_rows * d.out_cols * size, [&](int64_t begin, int64_t end) {
      std::vector<F> expanded(d.out_depth), zeros(d.in_depth, F(0));
      for (int64_t b = begin; b < end; ++b) {
        F* acc = partial.data() + b * size;
        std::fill(acc, acc + size, F(0));
        const F* image = in + b * d.in_rows * d.in_cols * d.in_depth;
        const F* image_dy = dy + b * d.out_rows * d.out_cols * d.out_depth;
        for (int64_t out_r = 0; out_r < d.out_rows; ++out_r) {
          for (int64_t out_c = 0; out_c < d.out_cols; ++out_c) {
            const F* g = image_dy + (out_r * d.out_cols + out_c) * d.out_depth;
            for (int64_t fr = 0; fr < d.filter_rows; ++fr) {
              const int64_t ir = out_r * d.stride - d.pad_top + fr;
              for (int64_t fc = 0; fc < d.filter_cols; ++fc) {
                const int64_t ic = out_c * d.stride - d.pad_left + fc;
                const bool inside = ir >= 0 && ir < d.in_rows && ic >= 0 && ic < d.in_cols;
                const F* pixel = inside ? image + (ir * d.in_cols + ic) * d.in_depth : zeros.data();
                const F* x = Expanded(pixel, d.in_depth, d.multiplier, expanded.data());
                MulAdd<T>(d.out_depth, g, x, acc + (fr * d.filter_cols + fc) * d.out_depth);
              }
            }
          }
        }
      }
    });
    std::vector<F> total(size, F(0));
    for (int64_t b = 0; b < d.batch; ++b) {
      const F* p = partial.data() + b * size;
      for (int64_t i = 0; i < size; ++i) total[i] = Arith<T>::Round(total[i] + p[i]);
    }
    ConvertElements(total.data(), out, size);
  }

 private:
  DepthwiseAttrs attrs_;
};

#define TA_REGISTER_DEPTHWISE(T)                                                                                 \
  REGISTER_KERNEL(Name("DepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<T>("T"),                       \
                  DepthwiseConv2dNativeOp<T>);                                                                   \
  REGISTER_KERNEL(Name("DepthwiseConv2dNativeBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"),          \
                  DepthwiseConv2dNativeBackpropInputOp<T>);                                                      \
  REGISTER_KERNEL(Name("DepthwiseConv2dNativeBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
                  DepthwiseConv2dNativeBackpropFilterOp<T>)
TA_REGISTER_DEPTHWISE(float);
TA_REGISTER_DEPTHWISE(double);
REGISTER_KERNEL(Name("_FusedDepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                DepthwiseConv2dNativeOp<float>);
REGISTER_KERNEL(Name("_FusedDepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                DepthwiseConv2dNativeOp<double>);
TA_REGISTER_DEPTHWISE(Eigen::half);
TA_REGISTER_DEPTHWISE(Eigen::bfloat16);
#undef TA_REGISTER_DEPTHWISE

}  // namespace
}  // namespace tensoract
