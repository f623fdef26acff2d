// Conv2D and _FusedConv2D on the CPU, NHWC. Float 3x3 layers of stride 1 and 16 channels or
// more run Winograd's F(2x2, 3x3) where it wins (kernels/cpu/winograd_conv.h). Other float
// layers of 16 channels or more in and out
// (real networks', grouped ones too) go to oneDNN where it is built in (kernels/cpu/onednn_conv.h: faster on
// every such shape measured, tests/bench/RESULTS.md), the fused epilogue as its post-ops;
// in bfloat16 or 8-bit integers there where the session asked for it
// (kernels/cpu/bfloat16_products.h, kernels/cpu/int8_products.h).
// Otherwise float with the AVX-512 or AVX2 kernels (kernels/cpu/gemm.h): a 1-deep
// input (grey images) through gemm::ConvForwardDepth1, a deeper one through
// gemm::ConvForward, which reads each output pixel's input rows in place (no im2col); work
// spread over the device's threads. Otherwise (double, inputs 2-7 deep, a build without
// AVX2): im2col of a block of output rows into a scratch matrix, then one GEMM
// (gemm::Gemm) of that [pixels, rows*cols*in_depth] matrix with the filter viewed as
// [rows*cols*in_depth, out_depth] (HWIO is exactly that, row-major). A 1x1 filter with
// stride 1 needs no im2col: the input already is that matrix. A grouped convolution (a
// filter shallower than the input, as TensorFlow's CPU kernel allows) runs that path once
// per group on a copy of the group's channels.
#include <atomic>
#include <type_traits>
#include <vector>

#include "kernels/cpu/bfloat16_products.h"
#include "kernels/cpu/int8_products.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/onednn_conv.h"
#include "kernels/cpu/winograd_conv.h"

namespace tensoract {
namespace {

template <class T>
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/true, /*has_ksize=*/false, &attrs_));
    OP_REQUIRES_OK(ctx, epilogue_.Init(ctx));
    if constexpr (std::is_same_v<T, float>) {
      onednn_.set_bfloat16_products(WantsBfloat16Products(ctx));
      onednn_.set_int8_products(WantsInt8Products(ctx));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, conv::ConvDimsFromShapes(*this, attrs_, input.shape(), filter.shape(), &d,
                                                 /*allow_groups=*/true));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({d.batch, d.out_rows, d.out_cols, d.out_depth}), &out));
    ChannelAffine<T> affine;
    if (epilogue_.active()) OP_REQUIRES_OK(ctx, epilogue_.Channels(*this, ctx, 2, *out, &affine));
    if (out->NumElements() == 0) return;
    const int64_t k = d.patch_size();
    T* op = out->base<T>();
    if (k == 0) {
      std::fill(op, op + out->NumElements(), T(0));
      epilogue_.Apply(op, out->NumElements() / d.out_depth, d.out_depth, d.out_depth, affine);
      return;
    }
    const int64_t image_pixels = d.out_rows * d.out_cols;
    const T* ip = input.base<T>();
    if constexpr (std::is_same_v<T, float>) {
      if (!onednn_.bfloat16_products() && !onednn_.int8_products() && WinogradConv::Suits(d) &&
          winograd_.Run(ctx, d, ip, filter, affine, epilogue_, op)) {
        return;
      }
      if (OnednnConv::Suits(d, onednn_.bfloat16_products()) && onednn_.Run(ctx, d, ip, filter, affine, epilogue_, op)) {
        return;
      }
    }
    if (d.groups > 1) {
      ComputeGrouped(ctx, d, ip, filter.base<T>(), op);
      epilogue_.Apply(op, out->NumElements() / d.out_depth, d.out_depth, d.out_depth, affine);
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      // Deep enough inputs only: with a depth of 1 or 3 the kernel's per-tap pointer setup
      // costs more than im2col's copy.
      if (d.in_depth == 1 && d.batch > 0) {
        std::atomic<bool> done{true};
        CwiseParallelFor(ctx, d.batch, d.out_rows * d.out_cols * k * d.out_depth, [&](int64_t begin, int64_t end) {
          // Image by image, so the epilogue finds each output in cache.
          for (int64_t image = begin; image < end; ++image) {
            if (!gemm::ConvForwardDepth1(d, ip, filter.base<float>(), image, image + 1, op)) {
              done = false;
              return;
            }
            epilogue_.Apply(op + image * image_pixels * d.out_depth, image_pixels, d.out_depth, d.out_depth, affine);
          }
        });
        if (done) return;
      }
      if (gemm::HaveFastKernels() && d.in_depth >= 8) {
        gemm::PackedFilter packed;
        gemm::PackFilter(filter.base<float>(), k, d.out_depth, &packed);
        const int64_t pixels = d.batch * d.out_rows * d.out_cols;
        // Blocks of ~128 KiB of output (whole tiles of 6 or 8 pixels), so the epilogue finds
        // them in cache: a thread's whole range (the batch, with one thread) would have to
        // come back from memory (conv2 at batch 512: 26 MB).
        const int64_t block = epilogue_.active() ? std::max<int64_t>(24, (32 << 10) / d.out_depth / 24 * 24) : pixels;
        const auto convolve = [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; b += block) {
            const int64_t e = std::min(end, b + block);
            gemm::ConvForward(d, ip, packed, b, e, op);
            epilogue_.Apply(op + b * d.out_depth, e - b, d.out_depth, d.out_depth, affine);
          }
        };
        // A convolution of fewer than gemm::kParallelMacs multiply-adds stays on this thread,
        // as a MatMul of that size does: CwiseParallelFor's bar counts cycles, and a
        // multiply-add costs a fraction of one.
        if (pixels * k * d.out_depth < gemm::kParallelMacs) {
          convolve(0, pixels);
        } else {
          CwiseParallelFor(ctx, pixels, k * d.out_depth, convolve);
        }
        return;
      }
    }
    Generic(ctx, d, ip, filter.base<T>(), op, &affine);
  }

 private:
  // im2col and GEMM (or GEMM alone for a 1x1 stride-1 filter), then the epilogue with
  // `affine` unless it is null.
  void Generic(OpKernelContext* ctx, const conv::ConvDims& d, const T* ip, const T* fp, T* op,
               const ChannelAffine<T>* affine) const {
    const int64_t k = d.patch_size();
    const int64_t n = d.out_depth, pixels_per_row = d.out_cols;
    const bool direct = d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 && d.stride_cols == 1;
    const int64_t block_rows = conv::RowsPerBlock(pixels_per_row * k, sizeof(T));
    // Global output rows (image * out_rows + row): their outputs are contiguous in NHWC.
    CwiseParallelFor(ctx, d.batch * d.out_rows, pixels_per_row * k * n, [&](int64_t begin, int64_t end) {
      if (direct) {
        const int64_t m = (end - begin) * pixels_per_row;
        gemm::Gemm(false, false, m, n, k, ip + begin * pixels_per_row * k, k, fp, n,
                   op + begin * pixels_per_row * n, n, false);
        if (affine != nullptr) epilogue_.Apply(op + begin * pixels_per_row * n, m, n, n, *affine);
        return;
      }
      std::vector<T> cols(std::min(block_rows, end - begin) * pixels_per_row * k);
      for (int64_t r = begin; r < end; r += block_rows) {
        const int64_t rows = std::min(block_rows, end - r);
        conv::Im2Col(d, ip, r, r + rows, cols.data());
        gemm::Gemm(false, false, rows * pixels_per_row, n, k, cols.data(), k, fp, n, op + r * pixels_per_row * n, n,
                   false);
        if (affine != nullptr) epilogue_.Apply(op + r * pixels_per_row * n, rows * pixels_per_row, n, n, *affine);
      }
    });
  }

  // Group by group: the group's input channels and filter columns copied out dense, the
  // generic path, its output channels copied back (no epilogue: the caller applies it).
  void ComputeGrouped(OpKernelContext* ctx, const conv::ConvDims& d, const T* ip, const T* fp, T* op) const {
    conv::ConvDims g = d;
    g.groups = 1;
    g.in_depth = d.in_depth / d.groups;
    g.out_depth = d.out_depth / d.groups;
    const int64_t pixels_in = d.batch * d.in_rows * d.in_cols, pixels_out = d.batch * d.out_rows * d.out_cols;
    const int64_t taps = g.patch_size();  // filter rows: [rows, cols, in_depth / groups]
    std::vector<T> in(pixels_in * g.in_depth), filter(taps * g.out_depth), out(pixels_out * g.out_depth);
    for (int64_t group = 0; group < d.groups; ++group) {
      for (int64_t p = 0; p < pixels_in; ++p) {
        const T* src = ip + p * d.in_depth + group * g.in_depth;
        std::copy(src, src + g.in_depth, in.data() + p * g.in_depth);
      }
      for (int64_t t = 0; t < taps; ++t) {
        const T* src = fp + t * d.out_depth + group * g.out_depth;
        std::copy(src, src + g.out_depth, filter.data() + t * g.out_depth);
      }
      Generic(ctx, g, in.data(), filter.data(), out.data(), /*affine=*/nullptr);
      for (int64_t p = 0; p < pixels_out; ++p) {
        const T* src = out.data() + p * g.out_depth;
        std::copy(src, src + g.out_depth, op + p * d.out_depth + group * g.out_depth);
      }
    }
  }

  conv::WindowAttrs attrs_;
  FusedEpilogue epilogue_;  // _FusedConv2D's per-channel steps and activation
  OnednnConv onednn_;
  WinogradConv winograd_;  // 3x3 stride-1 float layers (kernels/cpu/winograd_conv.h)
};

REGISTER_KERNEL(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"), Conv2DOp<float>);
REGISTER_KERNEL(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<double>("T"), Conv2DOp<double>);
REGISTER_KERNEL(Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"), Conv2DOp<float>);
REGISTER_KERNEL(Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<double>("T"), Conv2DOp<double>);
// The float kernel of the bfloat16 convolution (kernels/cpu/conv_bfloat16_op.cc), which it
// falls back to on widened inputs.
REGISTER_KERNEL(Name("_MklNativeFusedConv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"), Conv2DOp<float>);

}  // namespace
}  // namespace tensoract
