// Conv2D's gradients through oneDNN's backward convolutions (its JIT kernels for AVX-512
// and AVX2, direct and 1x1), where they beat our GEMM-based ones: the shapes of real
// networks in training (tests/bench/RESULTS.md, issue 54: ResNet50's backward pass).
//
//   OnednnConvBackpropInput grad;                   // one per kernel instance
//   if (grad.Run(ctx, d, filter, out_backprop, input_grad)) return;
//   ... our own kernel ...
//
// Run returns false (having computed nothing that the caller keeps) where oneDNN is not
// built in, is turned off (TENSORACT_ONEDNN=0) or has only its reference loops for the shape.
// Tensors are NHWC, the filter HWIO, groups == 1, as conv::ConvDims describes them.
//
// Training changes the filter every step, so unlike OnednnConv nothing is cached but the
// primitives: each call reorders the filter into (or the filter's gradient out of) oneDNN's
// blocked layout, a pass over the filter that costs little beside the convolution.
//
// Threads: the device's pool runs pieces, each on one oneDNN thread (OnednnRunPieces). The
// input gradient is split by images (theirs are disjoint); the filter gradient sums one
// partial per thread, each over its share of the images, added up at the end.
// Thread-safe: Run may be called concurrently.
#ifndef TENSORACT_KERNELS_CPU_ONEDNN_CONV_GRAD_H_
#define TENSORACT_KERNELS_CPU_ONEDNN_CONV_GRAD_H_

#include <cstdint>
#include <vector>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/onednn_primitive_cache.h"

namespace tensoract {

class OnednnConvBackpropInput {
 public:
  OnednnConvBackpropInput();
  ~OnednnConvBackpropInput();

  // input_grad [batch, in_rows, in_cols, in_depth]: the gradient of the convolution of an
  // input with `filter` [rows, cols, in_depth, out_depth], given `out_backprop` [batch,
  // out_rows, out_cols, out_depth], the gradient of its output.
  bool Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* filter, const float* out_backprop,
           float* input_grad);

 private:
  struct Entry;
  OnednnPrimitiveCache<std::vector<int64_t>, Entry> cache_;
};

class OnednnConvBackpropFilter {
 public:
  OnednnConvBackpropFilter();
  ~OnednnConvBackpropFilter();

  // filter_grad [rows, cols, in_depth, out_depth]: the gradient of the convolution of
  // `input` with a filter, given `out_backprop`; with `bias_grad` [out_depth] also the sum
  // of out_backprop over its pixels (BiasAddGrad), on the same pass.
  bool Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const float* out_backprop,
           float* filter_grad, float* bias_grad);

 private:
  struct Entry;
  // DimsKey of the piece, then 1 with a bias gradient.
  OnednnPrimitiveCache<std::vector<int64_t>, Entry> cache_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ONEDNN_CONV_GRAD_H_
