// Float convolutions through oneDNN (Intel's Deep Neural Network Library, Debian's
// libdnnl): its JIT kernels (brgconv on AVX-512 and AVX2) for the shapes real networks have,
// where they beat our own GEMM kernels (tests/bench/RESULTS.md, issue 54), with the fused
// epilogue (kernels/cpu/fused_epilogue.h): the per-channel multiply folded into the filter
// (OnednnWeightCache), the per-channel add as the convolution's bias, a residual tensor's
// add and the activation as oneDNN post-ops, applied while each block of output is in
// registers.
//
//   OnednnConv conv;                                  // one per kernel instance
//   if (OnednnConv::Enabled() && conv.Run(ctx, d, input, filter, affine, epilogue, out)) return;
//   ... our own kernel ...
//
// Run returns false (and computes nothing) where oneDNN cannot do the convolution or is not
// built in; the caller then runs its own kernel. The input is NHWC, the filter HWIO
// [rows, cols, in_depth / groups, out_depth] (a depthwise filter [rows, cols, depth,
// multiplier] is that with groups = depth), the output NHWC.
//
// Each shape's primitive is made once and kept (OnednnPrimitiveCache). So is the filter in oneDNN's blocked
// layout (OnednnWeightCache, kernels/cpu/onednn_util.h).
//
// With set_bfloat16_products(true) (a node whose session asked for products in bfloat16,
// kernels/cpu/bfloat16_products.h) the input and the filter are rounded to bfloat16 and
// multiplied on oneDNN's bfloat16 kernels; the sums, post-ops and output stay float.
// RunBfloat16 is for a bfloat16 node (a graph that keeps its activations in bfloat16,
// graph/optimizer/mixed_precision.h): input, filter, addend and output are bfloat16, the
// sums and the post-ops float, the output rounded once.
//
// With set_int8_products(true) (a node whose session asked for products in 8-bit
// integers, kernels/cpu/int8_products.h) Run quantizes the input per call and the filter per
// output channel and convolves on oneDNN's integer kernels, the scale back, bias, addend and
// activation in float; grouped convolutions, a NaN or inf in the input or filter, and a
// shape oneDNN has no integer kernel for run in float.
//
// Threads: the device's pool runs pieces of the convolution (images, or bands of rows),
// each on one oneDNN thread; oneDNN's own OpenMP team (Debian's build) is not used.
// Thread-safety: Run may be called concurrently (the executor runs a kernel for several
// steps at once); the caches are guarded, each piece has its own scratchpad.
#ifndef TENSORACT_KERNELS_CPU_ONEDNN_CONV_H_
#define TENSORACT_KERNELS_CPU_ONEDNN_CONV_H_

#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/onednn_primitive_cache.h"
#include "kernels/cpu/weights_version.h"

namespace tensoract {

class OnednnWeightCache;

class OnednnConv {
 public:
  OnednnConv();
  ~OnednnConv();

  void set_bfloat16_products(bool on) { bfloat16_ = on; }
  bool bfloat16_products() const { return bfloat16_; }
  void set_int8_products(bool on) { int8_ = on; }
  bool int8_products() const { return int8_; }

  // Built with oneDNN and not turned off by the environment (TENSORACT_ONEDNN=0).
  static bool Enabled();
  // Enabled() and a shape oneDNN's kernels beat ours on (tests/bench/RESULTS.md, issue 54):
  // real networks' layers, with an output depth of 16 or more, RGB stems included
  // (ResNet50's 7x7 on 224x224x3 took 12% of a batch-1 step on ours, 5% on oneDNN's), and
  // grouped convolutions (ConvNeXt's depthwise 7x7), which ours run group by group on
  // copies. A depth-1 input (grayscale: Fashion-MNIST) has a kernel of its own
  // (kernels/cpu/conv_2d_op.cc, ConvForwardDepth1). Images of one row (Keras' Conv1D:
  // [batch, 1, steps, depth]) in float run faster on ours in AVX2 builds (the zoo's text CNN,
  // three Conv1D of 32 channels on 128 tokens: 1.20-1.47 ms a batch of 32 against 1.68-1.80
  // on oneDNN's, on a Zen 3) and on oneDNN's in AVX-512 builds (a Zen 4, alternating: 0.87-1.16
  // ms against 1.00-1.34 at batch 32, 0.048 against 0.052-0.069 at batch 1); bfloat16 products
  // need oneDNN's.
  static bool Suits(const conv::ConvDims& d, bool bfloat16_products = false) {
    return Enabled() && d.in_depth >= 3 && d.out_depth >= 16 &&
           (d.in_rows > 1 || bfloat16_products || kOnednnFloatOverOurs);
  }

  // out = activation(conv(input, filter) * scale + shift + addend); see the header comment.
  bool Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const Tensor& filter,
           const ChannelAffine<float>& affine, const FusedEpilogue& epilogue, float* out);
  // The same in bfloat16 (raw 16-bit values; `filter` a bfloat16 tensor); affine's scale and
  // shift float, its addend and out ignored: `addend` (nullptr: none) is laid out as out.
  bool RunBfloat16(OpKernelContext* ctx, const conv::ConvDims& d, const uint16_t* input, const Tensor& filter,
                   const ChannelAffine<float>& affine, const uint16_t* addend, const FusedEpilogue& epilogue,
                   uint16_t* out);

  // For a kernel that splits the work its own way (kernels/cpu/pointwise_depthwise_op.cc
  // runs an inverted residual block's convolutions band by band): Prepare makes the primitive
  // of one piece `d` (any batch and rows) and lays out its filter, before the pieces run;
  // nullptr where oneDNN has no kernel for it or is not built in. RunPiece then runs it on the
  // calling thread, on one oneDNN thread: out = activation(conv(input) * affine.scale +
  // affine.shift + addend), the addend (where affine has one) the piece's own part, laid out
  // as out; with bfloat16 products the piece's input is rounded first, with int8 products
  // quantized (its own scale: a primitive per scale met). False where oneDNN failed (said
  // once on stderr). With `bfloat16_activations` the piece reads and writes bfloat16 (a
  // bfloat16 `filter`), as RunBfloat16 does, and runs by RunPieceBfloat16.
  struct Piece;
  std::shared_ptr<const Piece> Prepare(OpKernelContext* ctx, const conv::ConvDims& d, const Tensor& filter,
                                       const ChannelAffine<float>& affine, const FusedEpilogue& epilogue,
                                       bool bfloat16_activations = false);
  bool RunPiece(OpKernelContext* ctx, const Piece& piece, const float* input, const ChannelAffine<float>& affine,
                float* out, const float* addend = nullptr);
  bool RunPieceBfloat16(OpKernelContext* ctx, const Piece& piece, const uint16_t* input,
                        const ChannelAffine<float>& affine, uint16_t* out);

 private:
  struct Entry;
  // One call's integer operands and scales (int8 products); nullptr where the call is float.
  struct Int8Call;
  std::unique_ptr<Int8Call> PrepareInt8(OpKernelContext* ctx, const conv::ConvDims& d, const float* input,
                                        const Tensor& filter, const ChannelAffine<float>& affine);
  // Run's and RunBfloat16's work: elements of 2 bytes (bfloat16 activations) or 4.
  bool RunPieces(OpKernelContext* ctx, const conv::ConvDims& d, const void* input, const Tensor& filter,
                 const ChannelAffine<float>& affine, const void* addend, const FusedEpilogue& epilogue, void* out,
                 bool bfloat16_activations);
  // How many pieces of output channels RunPieces splits `d` into (1: none, it splits the
  // batch or rows), for `want` pieces.
  static int64_t OutputChannelPieces(const conv::ConvDims& d, int64_t want);
  // RunPieces' work in `pieces` slices of the output channels, each its own primitive run.
  bool RunChannelPieces(OpKernelContext* ctx, const conv::ConvDims& d, const void* input, const Tensor& filter,
                        const ChannelAffine<float>& affine, const void* addend, const FusedEpilogue& epilogue,
                        void* out, bool bfloat16_activations, int64_t pieces, const Int8Call* int8);
  // The primitive of one piece's shape, made once (unsupported where oneDNN has none). With
  // `int8`, for its input's type and the output scales of channels [first_channel,
  // first_channel + d.out_depth).
  std::shared_ptr<Entry> EntryFor(const conv::ConvDims& d, bool shifted, bool added, const FusedEpilogue& epilogue,
                                  bool bfloat16_activations = false, const Int8Call* int8 = nullptr,
                                  int64_t first_channel = 0);
  // Makes the primitive of one shape and epilogue; throws dnnl::error where oneDNN has none.
  // int8_input: 0 float (or bfloat16), 1 uint8, 2 int8, with `output_scales` per channel.
  static void Make(const conv::ConvDims& d, bool shifted, bool added, const FusedEpilogue& epilogue, bool bfloat16,
                   bool bfloat16_activations, int int8_input, const std::vector<float>& output_scales, Entry* made);
  // Shape, shift, addend, activation, its alpha, bfloat16 activations, int8 input, output scales.
  using Key = std::tuple<std::vector<int64_t>, bool, bool, int, float, bool, int, std::vector<float>>;
  bool bfloat16_ = false;
  bool int8_ = false;
  // The filter's largest |w| per output channel, for int8 products; kept while it stands.
  std::mutex int8_mu_;
  WeightsVersion int8_filter_version_;   // under int8_mu_
  std::vector<float> int8_filter_largest_;  // under int8_mu_
  OnednnPrimitiveCache<Key, Entry> cache_;
  std::unique_ptr<OnednnWeightCache> weights_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ONEDNN_CONV_H_
