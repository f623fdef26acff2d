// The gradients of a float convolution on images of a few pixels (ResNet's last two stages
// trained at 64x64: 4x4 and 2x2 images of 256-512 channels) as one matrix product over the
// whole batch's patches, where oneDNN's backward kernels and ours, built for larger images,
// ran at 20-50 GFLOP/s on two threads (tests/bench/RESULTS.md, issue 54):
//
//   filter_grad [k, out_depth] = im2col(input)^T [k, pixels] x out_backprop [pixels, out_depth]
//   in_backprop = col2im(out_backprop [pixels, out_depth] x filter^T [out_depth, k])
//
// with k = rows * cols * in_depth and pixels = batch * out_rows * out_cols. The products run
// on ParallelGemm (kernels/cpu/parallel_gemm.h), split by rows of the result, so no thread
// needs partial sums.
#ifndef TENSORACT_KERNELS_CPU_CONV_GRAD_SMALL_H_
#define TENSORACT_KERNELS_CPU_CONV_GRAD_SMALL_H_

#include "kernels/cpu/conv_util.h"

namespace tensoract {

// A layer these cover: not grouped, 16 or more channels on both sides, 16 output pixels or
// fewer an image.
bool SmallImageGrads(const conv::ConvDims& d);

// filter_grad [k, out_depth] and, when bias_grad is not null, bias_grad [out_depth] (the sum
// of out_backprop over its pixels), both written whole. False (nothing written) where the
// scratch could not be had.
bool SmallImageFilterGrad(OpKernelContext* ctx, const conv::ConvDims& d, const float* input,
                          const float* out_backprop, float* filter_grad, float* bias_grad);

// in_backprop (NHWC, written whole) from out_backprop and the HWIO filter. False (nothing
// written) where the scratch could not be had.
bool SmallImageInputGrad(OpKernelContext* ctx, const conv::ConvDims& d, const float* filter,
                         const float* out_backprop, float* in_backprop);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_CONV_GRAD_SMALL_H_
