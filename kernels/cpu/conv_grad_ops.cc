// Conv2D's gradients on the CPU, NHWC, as GEMMs around im2col (kernels/cpu/conv_util.h):
//
//   Conv2DBackpropInput:  cols = out_backprop [pixels, out_depth] * filter^T, then each
//                         patch element of cols is added back where im2col took it from
//                         (col2im). Images are spread over the threads: their input
//                         gradients are disjoint, while neighbouring output rows overlap.
//   Conv2DBackpropFilter: filter_grad = sum over blocks of im2col(input)^T * out_backprop;
//                         each thread accumulates its own partial sum, added up at the end.
//
// A 1x1 filter with stride 1 skips im2col and col2im. Float with the AVX-512 or AVX2 kernels
// (kernels/cpu/gemm.h) skips both altogether: the input gradient of a stride-1 convolution
// is itself a convolution (of out_backprop with the flipped filter), and the filter
// gradient accumulates input x out_backprop products in registers over rows of pixels.
//
// Float gradients of real networks' layers (a depth of 16 or more on both sides) run on
// oneDNN's backward convolutions first (kernels/cpu/onednn_conv_grad.h), as the forward
// convolution does (kernels/cpu/conv_2d_op.cc); ours run what oneDNN does not cover. Both
// gradients of a 3x3 stride-1 layer run Winograd's algorithm before that where the forward
// one would (kernels/cpu/winograd_conv.h); both gradients of a layer on images of 16 pixels
// or fewer are one product each over the batch's patches (conv_grad_small.h).
//
// _Conv2DBackpropFilterWithBias (the remapper's) is Conv2DBackpropFilter with BiasAddGrad of
// out_backprop as a second output, summed by the fast kernels on their pass over it.
#include <atomic>
#include <type_traits>

#include "kernels/cpu/conv_grad_small.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/onednn_conv_grad.h"
#include "kernels/cpu/winograd_conv.h"

namespace tensoract {
namespace {

using conv::ShapeFromSizes;

// out_backprop must have the shape the forward convolution would produce.
Status CheckOutBackprop(const OpKernel& kernel, const conv::ConvDims& d, const TensorShape& out_backprop) {
  const TensorShape want({d.batch, d.out_rows, d.out_cols, d.out_depth});
  if (out_backprop != want) {
    return errors::InvalidArgument(conv::NodeContext(kernel), ": out_backprop has shape ", out_backprop.DebugString(),
                                   " but the convolution's output has shape ", want.DebugString());
  }
  return Status::OK();
}

// oneDNN's kernels beat ours on the layers of real networks (ResNet50's backward pass,
// tests/bench/RESULTS.md, issue 54); the first layers of small networks (one input
// channel, Fashion-MNIST's CNN) stay on ours.
bool UseOnednn(const conv::ConvDims& d) { return d.in_depth >= 16 && d.out_depth >= 16; }

bool IsDirect(const conv::ConvDims& d) {
  return d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 && d.stride_cols == 1;
}

template <class T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/true, /*has_ksize=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(*this, "input_sizes", ctx->input(0), &input_shape));
    if (input_shape.dims() == 2 && out_backprop.dims() == 4 && filter.dims() == 4) {
      // Only the spatial sizes given: batch and depth follow out_backprop and the filter.
      input_shape = TensorShape({out_backprop.dim_size(0), input_shape.dim_size(0), input_shape.dim_size(1),
                                 filter.dim_size(2)});
    }
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, conv::ConvDimsFromShapes(*this, attrs_, input_shape, filter.shape(), &d));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(*this, d, out_backprop.shape()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    T* ip = out->base<T>();
    const int64_t k = d.patch_size();
    if (out->NumElements() == 0) return;
    if (out_backprop.NumElements() == 0 || k == 0) {
      std::fill(ip, ip + out->NumElements(), T(0));
      return;
    }
    const T* gp = out_backprop.base<T>();
    if constexpr (std::is_same_v<T, float>) {
      if (WinogradConv::SuitsBackpropInput(d) && winograd_.RunBackpropInput(ctx, d, gp, filter, ip)) return;
      if (SmallImageGrads(d) && SmallImageInputGrad(ctx, d, filter.base<float>(), gp, ip)) return;
      if (UseOnednn(d) && onednn_.Run(ctx, d, filter.base<float>(), gp, ip)) return;
      conv::ConvDims as_conv;
      if (gemm::HaveFastKernels() && d.out_depth >= 8 && gemm::BackpropInputAsConv(d, &as_conv)) {
        gemm::PackedFilter packed;
        gemm::PackFlippedFilter(d, filter.base<float>(), &packed);
        CwiseParallelFor(ctx, out->NumElements() / d.in_depth, k * d.out_depth, [&](int64_t begin, int64_t end) {
          gemm::ConvForward(as_conv, gp, packed, begin, end, ip);
        });
        return;
      }
    }
    const T* fp = filter.base<T>();
    const int64_t n = d.out_depth;
    const int64_t out_pixels = d.out_rows * d.out_cols;
    const int64_t in_image = d.in_rows * d.in_cols * d.in_depth;
    if (IsDirect(d)) {
      CwiseParallelFor(ctx, d.batch * out_pixels, k * n, [&](int64_t begin, int64_t end) {
        gemm::Gemm(false, true, end - begin, k, n, gp + begin * n, n, fp, n, ip + begin * k, k, false);
      });
      return;
    }
    const int64_t block_images = conv::RowsPerBlock(out_pixels * k, sizeof(T));
    CwiseParallelFor(ctx, d.batch, out_pixels * k * n, [&](int64_t begin, int64_t end) {
      std::fill(ip + begin * in_image, ip + end * in_image, T(0));
      std::vector<T> cols(std::min(block_images, end - begin) * out_pixels * k);
      for (int64_t b = begin; b < end; b += block_images) {
        const int64_t images = std::min(block_images, end - b);
        gemm::Gemm(false, true, images * out_pixels, k, n, gp + b * out_pixels * n, n, fp, n, cols.data(), k, false);
        conv::Col2ImAdd(d, cols.data(), b, b + images, ip);
      }
    });
  }

 private:
  conv::WindowAttrs attrs_;
  OnednnConvBackpropInput onednn_;
  WinogradConv winograd_;  // 3x3 stride-1 layers (kernels/cpu/winograd_conv.h)
};

// Adds each thread's partial sums into `result` (an empty partial adds nothing).
template <class T>
void AddPartials(const std::vector<std::vector<T>>& partials, T* result) {
  for (const std::vector<T>& p : partials) {
    for (size_t i = 0; i < p.size(); ++i) result[i] += p[i];
  }
}

// The filter gradient (and with `bias_grad` the bias gradient) through
// gemm::ConvBackpropFilter or its 1-deep form: images split into one part per thread; the
// first part adds straight into the zeroed results, the others into partials added at the
// end. False when that kernel does not cover `d`.
bool FastFilterGrad(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const float* out_backprop,
                    float* result, float* bias_grad) {
  const int64_t size = d.patch_size() * d.out_depth;
  const int64_t parts = std::min<int64_t>(d.batch, conv::NumThreads(ctx));
  std::vector<std::vector<float>> partial(parts), partial_bias(parts);
  std::atomic<bool> covered{true};
  CwiseParallelFor(ctx, parts, int64_t{1} << 40, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      float* dst = result;
      float* bias_dst = bias_grad;
      if (p > 0) {
        partial[p].assign(size, 0.f);
        dst = partial[p].data();
        if (bias_grad) {
          partial_bias[p].assign(d.out_depth, 0.f);
          bias_dst = partial_bias[p].data();
        }
      }
      const int64_t begin = d.batch * p / parts, end = d.batch * (p + 1) / parts;
      auto kernel = d.in_depth == 1 ? gemm::ConvBackpropFilterDepth1 : gemm::ConvBackpropFilter;
      if (!kernel(d, input, out_backprop, begin, end, dst, bias_dst)) covered = false;
    }
  });
  if (!covered) return false;
  AddPartials(partial, result);
  if (bias_grad) AddPartials(partial_bias, bias_grad);
  return true;
}

template <class T>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), with_bias_(ctx->def().op() == "_Conv2DBackpropFilterWithBias") {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/true, /*has_ksize=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(*this, "filter_sizes", ctx->input(1), &filter_shape));
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, conv::ConvDimsFromShapes(*this, attrs_, input.shape(), filter_shape, &d));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(*this, d, out_backprop.shape()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    T* bias_grad = nullptr;
    if (with_bias_) {
      Tensor* bias_out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({d.out_depth}), &bias_out));
      bias_grad = bias_out->base<T>();
    }
    const int64_t k = d.patch_size();
    const int64_t n = d.out_depth;
    T* result = out->base<T>();
    const int64_t rows = d.batch * d.out_rows;  // global output rows, as im2col counts them
    const T* ip = input.base<T>();
    const T* gp = out_backprop.base<T>();
    if constexpr (std::is_same_v<T, float>) {
      // These write every element of both results (or leave the ones below to do it all).
      if (WinogradConv::Suits(d) && WinogradConv::RunBackpropFilter(ctx, d, ip, gp, result, bias_grad)) return;
      if (SmallImageGrads(d) && SmallImageFilterGrad(ctx, d, ip, gp, result, bias_grad)) return;
      if (UseOnednn(d) && rows > 0 && d.out_cols > 0 && onednn_.Run(ctx, d, ip, gp, result, bias_grad)) return;
    }
    if (bias_grad) std::fill(bias_grad, bias_grad + d.out_depth, T(0));
    std::fill(result, result + k * n, T(0));
    if (rows == 0 || d.out_cols == 0) return;
    if constexpr (std::is_same_v<T, float>) {
      if (out->NumElements() > 0 && gemm::HaveFastKernels() && FastFilterGrad(ctx, d, ip, gp, result, bias_grad)) {
        return;
      }
    }
    if (bias_grad) {
      // The paths below make no pass of their own over out_backprop: sum it apart.
      conv::AddPixelSums(gp, rows * d.out_cols, n, bias_grad);
    }
    if (out->NumElements() == 0) return;
    const bool direct = IsDirect(d);
    const int64_t block_rows = conv::RowsPerBlock(d.out_cols * k, sizeof(T));
    // A few parts per thread, each summing its rows into its own [k, out_depth] partial.
    const int64_t parts = std::min<int64_t>(rows, 2 * conv::NumThreads(ctx));
    std::vector<std::vector<T>> partial(parts);
    const int64_t cost_per_part = rows / parts * d.out_cols * k * n;
    CwiseParallelFor(ctx, parts, cost_per_part, [&](int64_t part_begin, int64_t part_end) {
      for (int64_t p = part_begin; p < part_end; ++p) {
        const int64_t begin = rows * p / parts, end = rows * (p + 1) / parts;
        std::vector<T>& acc = partial[p];
        acc.assign(k * n, T(0));
        if (direct) {
          const int64_t m = (end - begin) * d.out_cols;
          gemm::Gemm(true, false, k, n, m, ip + begin * d.out_cols * k, k, gp + begin * d.out_cols * n, n, acc.data(),
                     n, true);
          continue;
        }
        std::vector<T> cols(std::min(block_rows, end - begin) * d.out_cols * k);
        for (int64_t r = begin; r < end; r += block_rows) {
          const int64_t m = std::min(block_rows, end - r) * d.out_cols;
          conv::Im2Col(d, ip, r, r + m / d.out_cols, cols.data());
          gemm::Gemm(true, false, k, n, m, cols.data(), k, gp + r * d.out_cols * n, n, acc.data(), n, true);
        }
      }
    });
    AddPartials(partial, result);
  }

 private:
  conv::WindowAttrs attrs_;
  const bool with_bias_;  // _Conv2DBackpropFilterWithBias: also output 1, BiasAddGrad(out_backprop)
  OnednnConvBackpropFilter onednn_;
};

#define TA_REGISTER_CONV_GRADS(T)                                                                            \
  REGISTER_KERNEL(Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"),                     \
                  Conv2DBackpropInputOp<T>);                                                                 \
  REGISTER_KERNEL(Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"),                    \
                  Conv2DBackpropFilterOp<T>);                                                                \
  REGISTER_KERNEL(Name("_Conv2DBackpropFilterWithBias").Device(DEVICE_CPU).TypeConstraint<T>("T"),           \
                  Conv2DBackpropFilterOp<T>);
TA_REGISTER_CONV_GRADS(float)
TA_REGISTER_CONV_GRADS(double)
#undef TA_REGISTER_CONV_GRADS

}  // namespace
}  // namespace tensoract
