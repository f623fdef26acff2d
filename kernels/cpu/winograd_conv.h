// 3x3 float convolutions of stride 1 by Winograd's minimal filtering F(2x2, 3x3) (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks", 2016). Each 2x2 block of output
// pixels ("tile") is computed from the 4x4 input patch around it: the patch and the filter
// are each taken to a 4x4 "transformed" domain, where the convolution becomes 16 independent
// products over the channels, then brought back. Per tile that is 16 products of in_depth x
// out_depth instead of 36 (2.25 times fewer multiplications), done as 16 matrix products
// [tiles, in_depth] x [in_depth, out_depth] on the GEMM micro-kernel (kernels/cpu/gemm.h).
// The transforms only add and subtract (and halve, for the filter), so the values stay
// within float rounding of a direct convolution's (~1e-6 relative on ResNet50's layers).
//
//   WinogradConv wino;                                 // one per kernel instance
//   if (WinogradConv::Suits(d) && wino.Run(ctx, d, input, filter, affine, epilogue, out)) return;
//
// Both gradients of such a layer too (Conv2DBackpropInput, Conv2DBackpropFilter: below).
//
// Input NHWC, filter HWIO, output NHWC; any padding (SAME or VALID), the fused epilogue
// (kernels/cpu/fused_epilogue.h) applied to each tile's outputs while they are in cache, a
// per-channel scale folded into the transformed filter.
//
// The transformed filter is made once and kept while the filter's buffer, the ref
// variables' write epoch and the scale stay the same (as OnednnWeightCache keeps oneDNN's
// layout), cut into slices of output channels small enough to stay in the core's cache.
//
// Thread-safety: Run may be called concurrently; the kept filter is shared, read-only.
#ifndef TENSORACT_KERNELS_CPU_WINOGRAD_CONV_H_
#define TENSORACT_KERNELS_CPU_WINOGRAD_CONV_H_

#include <memory>
#include <mutex>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/fused_epilogue.h"

namespace tensoract {

class WinogradConv {
 public:
  WinogradConv();
  ~WinogradConv();

  // Where Winograd beat the convolutions it replaces: on AVX2 (a Zen 3), ResNet50's 3x3
  // layers ran 1.5-3.5x faster than oneDNN 2.6's direct JIT kernel (tests/bench/RESULTS.md,
  // issue 54). Off unless TENSORACT_WINOGRAD=1: its error follows the magnitudes inside a
  // 4x4 patch, not the output's, and on one image of EfficientNetV2M (random weights, 32x32,
  // batch 32) it turned float64's near-uniform probabilities into a 0.95 peak, where
  // oneDNN's direct kernel and TensorFlow's Eigen stay within 1e-3 and 2e-2. Until its error
  // is bounded (a check of each block's range, say), TensorFlow's numbers come first.
  static bool Enabled();
  // Enabled() and a convolution it computes and wins on: 3x3, stride and dilation 1, not
  // grouped, 16 or more channels in and out, an output of 5x5 or more (ResNet50's 4x4 layers
  // trained at 64x64, batch 32, ran no faster: transforming a filter that changes every
  // step ate the gain) and
  // 48 tiles or more in the batch. The transformed filter is 16/9 the filter's size and each
  // step reads it whole: with fewer tiles the products wait on memory (ResNet50's last
  // stage at batch 1, 16 tiles of 7x7 images and 16 MB a layer, ran no faster than
  // oneDNN's direct convolution reading 9 MB).
  static bool Suits(const conv::ConvDims& d);

  // out = activation(conv(input, filter) * affine.scale + affine.shift + affine.addend);
  // false (nothing written) without the GEMM's vector kernels.
  bool Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const Tensor& filter,
           const ChannelAffine<float>& affine, const FusedEpilogue& epilogue, float* out);

  // The gradient to the input of the stride-1 convolution `d` (Conv2DBackpropInput) is a
  // convolution of out_backprop with the filter reversed in rows and columns and its depths
  // swapped (gemm::BackpropInputAsConv): where that one Suits, in_backprop = it.
  static bool SuitsBackpropInput(const conv::ConvDims& d);
  bool RunBackpropInput(OpKernelContext* ctx, const conv::ConvDims& d, const float* out_backprop,
                        const Tensor& filter, float* in_backprop);

  // The filter gradient of a convolution that Suits (Conv2DBackpropFilter) by the same
  // algorithm turned around, F(3x3, 2x2): each 2x2 tile of out_backprop (E) and the 4x4 input
  // patch under it (D) add G^T [(A E A^T) . (B^T D B)] G to the 3x3 gradient; the sums over
  // tiles are 16 products V_k^T [in, tiles] x Z_k [tiles, out]. filter_grad [3, 3, in, out]
  // and, when not null, bias_grad [out] (out_backprop summed) are written whole.
  static bool RunBackpropFilter(OpKernelContext* ctx, const conv::ConvDims& d, const float* input,
                                const float* out_backprop, float* filter_grad, float* bias_grad);

 private:
  struct Transformed;
  // The filter (`flipped`: as a gradient to the input reads it), times `scale` per output
  // channel (nullptr: none), transformed and packed; the kept one while it is still that.
  std::shared_ptr<const Transformed> FilterFor(OpKernelContext* ctx, const conv::ConvDims& d, const Tensor& filter,
                                               const float* scale, bool flipped);
  // The convolution `d` with the transformed filter: tiles, products, epilogue.
  static void Compute(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const Transformed& f,
                      const ChannelAffine<float>& affine, const FusedEpilogue& epilogue, float* out);

  std::mutex mu_;
  std::shared_ptr<Transformed> kept_;  // under mu_
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_WINOGRAD_CONV_H_
