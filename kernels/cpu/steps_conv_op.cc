// _FusedChannelStepsConv2D on the CPU (graph/optimizer/steps_conv_fusion.h): a pre-activation
// (per-channel steps and an activation) and the 1x1 convolution that reads it, as one kernel.
//
// DenseNet's layers each apply a batch norm and Relu to the whole concatenated block so far
// and then a 1x1 convolution; unfused, the activated block is written to memory and read
// back by the convolution (DenseNet121 at batch 32: 128 ms a step in the steps alone). Here
// each task takes a band of rows of an image: the band is copied into a buffer that stays in
// L2, the steps applied there (the _FusedChannelSteps kernel's arithmetic), and the
// convolution reads it from there on oneDNN (OnednnConv::Prepare/RunPiece), as it would run
// unfused: the values are the two nodes' to the last bit. Where oneDNN is off or has no
// kernel for the shape, the two nodes' own kernels run one after the other.
//
// x may come in pieces along the channels (num_pieces, the concatenation the node took in:
// graph/optimizer/steps_conv_fusion.h): a band's pixels are then gathered from the pieces,
// and the block so far is never written whole.
//
// In bfloat16 (a graph keeping its activations in bfloat16, graph/optimizer/mixed_precision.h:
// DenseNet's blocks, whose pieces are then bfloat16): a band's pixels are widened to float,
// the steps applied in float, the band rounded once to bfloat16 and convolved on oneDNN's
// bfloat16 kernels into a bfloat16 output, as the two nodes would run in bfloat16 (the
// steps' arithmetic in float, as TensorFlow's bfloat16 element-wise kernels do). The steps'
// and the convolution's per-channel args stay float. Where oneDNN cannot run it, the float
// kernel runs on widened copies (ViaFloatOp).
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "base/bfloat16_rounding.h"
#include "graph/optimizer/mixed_precision.h"
#include "graph/optimizer/steps_conv_fusion.h"
#include "kernels/cpu/bfloat16_products.h"
#include "kernels/cpu/int8_products.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/onednn_conv.h"
#include "kernels/cpu/sub_kernels.h"
#include "kernels/cpu/via_float_op.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Bytes of a band's rows (the copy the steps apply to, in a core's L2).
constexpr int64_t kBandBytes = 512 << 10;

// A band's values (aligned as Eigen's loads and stores assume).
template <class V>
using BandBuffer = std::vector<V, Eigen::aligned_allocator<V>>;

// T: float, or bfloat16 (x, the filter and the output; the args float either way).
template <class T>
class StepsConvOp : public OpKernel {
  static constexpr bool kBfloat16 = std::is_same_v<T, Eigen::bfloat16>;

 public:
  explicit StepsConvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (!ctx->GetAttr("num_pieces", &pieces_).ok()) pieces_ = 1;
    OP_REQUIRES(ctx, pieces_ >= 1, errors::InvalidArgument(CwiseNodeContext(*this), ": num_pieces must be at least 1, got ", pieces_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_step_args", &step_args_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_args", &conv_args_));
    std::string convolution;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("convolution", &convolution));
    // The convolution rounds its operands to bfloat16 as it would unfused (its own kernel asks
    // WantsBfloat16Products too: the attr, and a CPU with the units).
    NodeDef conv = SubNodeDef(ctx->def(), convolution, kConvAttrPrefix);
    if (ctx->def().attr().count(kBfloat16ProductsAttr) != 0) {
      (*conv.mutable_attr())[kBfloat16ProductsAttr] = ctx->def().attr().at(kBfloat16ProductsAttr);
    }
    onednn_.set_bfloat16_products(WantsBfloat16Products(ctx));
    onednn_.set_int8_products(WantsInt8Products(ctx));
    OP_REQUIRES_OK(ctx, MakeSubKernel(ctx, SubNodeDef(ctx->def(), "_FusedChannelSteps", kStepsAttrPrefix), &steps_,
                                      &steps_epilogue_));
    OP_REQUIRES_OK(ctx, MakeSubKernel(ctx, conv, &conv_, &conv_epilogue_));
    if constexpr (kBfloat16) via_float_ = std::make_unique<ViaFloatOp<T>>(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    int64_t depth = 0;  // x's channels, all its pieces'
    OP_REQUIRES_OK(ctx, CheckPieces(ctx, &depth));
    const Tensor& x = ctx->input(0);
    const Tensor& filter = ctx->input(pieces_ + step_args_);
    const bool fusable = OnednnConv::Enabled() && x.dims() == 4 && filter.dims() == 4 && filter.dim_size(0) == 1 &&
                         filter.dim_size(1) == 1 && filter.dim_size(2) == depth && depth >= 3 &&
                         filter.dim_size(3) >= 16;
    if (!fusable || !Banded(ctx, x, depth, filter)) {
      if (ctx->status().ok()) Fallback(ctx, depth);
    }
  }

 private:
  // The pieces are 4-D tensors of one batch, rows and columns: their depths add up to *depth.
  Status CheckPieces(OpKernelContext* ctx, int64_t* depth) const {
    const Tensor& first = ctx->input(0);
    *depth = 0;
    for (int i = 0; i < pieces_; ++i) {
      const Tensor& p = ctx->input(i);
      if (p.dims() != 4 || (i > 0 && (p.dim_size(0) != first.dim_size(0) || p.dim_size(1) != first.dim_size(1) ||
                                       p.dim_size(2) != first.dim_size(2)))) {
        return errors::InvalidArgument(CwiseNodeContext(*this), ": the pieces of x must be 4-dimensional with the same batch, rows and "
                                       "columns; piece 0 is ", first.shape().DebugString(), ", piece ", i, " ",
                                       p.shape().DebugString());
      }
      *depth += p.dim_size(3);
    }
    return Status::OK();
  }

  // x whole: the one piece, or the pieces side by side along the channels.
  Status Whole(OpKernelContext* ctx, int64_t depth, Tensor* out) const {
    if (pieces_ == 1) {
      *out = ctx->input(0);
      return Status::OK();
    }
    const Tensor& first = ctx->input(0);
    TA_ASSIGN_OR_RETURN(*out, Tensor::Allocate(ctx->device()->allocator(), tensorflow::DT_FLOAT,
                                               TensorShape({first.dim_size(0), first.dim_size(1), first.dim_size(2),
                                                            depth})));
    GatherPixels(ctx, depth, 0, first.dim_size(0) * first.dim_size(1) * first.dim_size(2), out->base<float>());
    return Status::OK();
  }

  // Pixels [begin, end) of x, their channels from each piece in turn, to `to` (widened).
  void GatherPixels(OpKernelContext* ctx, int64_t depth, int64_t begin, int64_t end, float* to) const {
    auto copy = [](const T* from, int64_t n, float* to) {
      if constexpr (kBfloat16) WidenBfloat16(reinterpret_cast<const uint16_t*>(from), to, n);
      else std::copy(from, from + n, to);
    };
    if (pieces_ == 1) {
      copy(ctx->input(0).base<T>() + begin * depth, (end - begin) * depth, to);
      return;
    }
    for (int64_t p = begin; p < end; ++p) {
      for (int i = 0; i < pieces_; ++i) {
        const Tensor& piece = ctx->input(i);
        const int64_t d = piece.dim_size(3);
        copy(piece.base<T>() + p * d, d, to);
        to += d;
      }
    }
  }

  // The whole output by the two nodes' kernels: float's, or on widened copies.
  void Fallback(OpKernelContext* ctx, int64_t depth) {
    if constexpr (kBfloat16) via_float_->Compute(ctx);
    else Unfused(ctx, depth);
  }

  // Float only.
  void Unfused(OpKernelContext* ctx, int64_t depth) {
    std::vector<Tensor> step_inputs(1), conv_inputs(1);
    OP_REQUIRES_OK(ctx, Whole(ctx, depth, &step_inputs[0]));
    for (int i = 0; i < step_args_; ++i) step_inputs.push_back(ctx->input(pieces_ + i));
    OP_REQUIRES_OK(ctx, RunSubKernel(ctx, steps_.get(), step_inputs, &conv_inputs[0]));
    for (int i = 0; i < 1 + conv_args_; ++i) conv_inputs.push_back(ctx->input(pieces_ + step_args_ + i));
    Tensor out;
    OP_REQUIRES_OK(ctx, RunSubKernel(ctx, conv_.get(), conv_inputs, &out));
    ctx->set_output(0, out);
  }

  // The fused path; false (having written nothing) where oneDNN cannot run a piece.
  bool Banded(OpKernelContext* ctx, const Tensor& x, int64_t depth, const Tensor& filter) {
    const int64_t batch = x.dim_size(0), rows = x.dim_size(1), cols = x.dim_size(2);
    const int64_t out_depth = filter.dim_size(3);
    Tensor* output = nullptr;
    Status s = ctx->allocate_output(0, TensorShape({batch, rows, cols, out_depth}), &output);
    if (!s.ok() || output->NumElements() == 0) {
      ctx->SetStatus(s);
      return true;
    }
    ChannelAffine<float> step_affine, conv_affine;
    // The steps' arguments are checked against x's depth: of its one piece, or of a float
    // pixel of that depth standing for the pieces or a bfloat16 x (the steps hold no Add,
    // whose operand would need x's whole shape: steps_conv_fusion.h).
    Tensor depth_of_x = x;
    if (pieces_ > 1 || kBfloat16) {
      auto pixel = Tensor::Allocate(cpu_allocator(), tensorflow::DT_FLOAT, TensorShape({1, 1, 1, depth}));
      if (!pixel.ok()) {
        ctx->SetStatus(pixel.status());
        return true;
      }
      depth_of_x = std::move(pixel).value();
    }
    s = steps_epilogue_.Channels(*this, ctx, pieces_, depth_of_x, &step_affine);
    if (s.ok() && conv_epilogue_.active()) {
      s = conv_epilogue_.Channels<float, T>(*this, ctx, pieces_ + 1 + step_args_, *output, &conv_affine);
    }
    if (!s.ok()) {
      ctx->SetStatus(s);
      return true;
    }
    // Bands of whole rows, at least two a thread in all.
    const int64_t row_floats = cols * depth;
    const int threads = conv::NumThreads(ctx);
    int64_t per_band = std::clamp<int64_t>(kBandBytes / (row_floats * int64_t{sizeof(float)}), 1, rows);
    per_band = std::min(per_band, std::max<int64_t>(1, batch * rows / (2 * threads)));
    const int64_t bands_per_image = (rows + per_band - 1) / per_band;
    // The primitives of the bands' two heights, and the filter's layout, before any runs.
    std::map<int64_t, std::shared_ptr<const OnednnConv::Piece>> pieces;
    for (int64_t band_rows : {per_band, rows - (bands_per_image - 1) * per_band}) {
      if (pieces.count(band_rows) != 0) continue;
      auto piece = onednn_.Prepare(ctx, conv::PointwiseDims(band_rows, cols, depth, out_depth), filter, conv_affine,
                                   conv_epilogue_, /*bfloat16_activations=*/kBfloat16);
      if (piece == nullptr) return false;
      pieces[band_rows] = std::move(piece);
    }
    T* out = output->base<T>();
    std::atomic<bool> failed{false};
    CwiseParallelFor(ctx, batch * bands_per_image, int64_t{1} << 30, [&](int64_t first, int64_t last) {
      // The thread's band (and in bfloat16 its rounding), kept between calls (a fresh one is
      // pages faulted in every call).
      thread_local BandBuffer<float> band;
      thread_local BandBuffer<uint16_t> rounded;
      const size_t band_size = static_cast<size_t>(per_band * row_floats);
      if (band.size() < band_size) band.resize(band_size);
      if (kBfloat16 && rounded.size() < band_size) rounded.resize(band_size);
      for (int64_t task = first; task < last && !failed; ++task) {
        const int64_t image = task / bands_per_image, row = (task % bands_per_image) * per_band;
        const int64_t band_rows = std::min(per_band, rows - row);
        const int64_t at = (image * rows + row) * cols;  // the band's first pixel
        GatherPixels(ctx, depth, at, at + band_rows * cols, band.data());
        steps_epilogue_.Apply(band.data(), band_rows * cols, depth, depth, step_affine);
        bool ran;
        if constexpr (kBfloat16) {
          NarrowToBfloat16(band.data(), rounded.data(), band_rows * cols * depth);
          ran = onednn_.RunPieceBfloat16(ctx, *pieces.at(band_rows), rounded.data(), conv_affine,
                                         reinterpret_cast<uint16_t*>(out + at * out_depth));
        } else {
          ran = onednn_.RunPiece(ctx, *pieces.at(band_rows), band.data(), conv_affine, out + at * out_depth);
        }
        if (!ran) failed = true;
      }
    });
    if (failed) Fallback(ctx, depth);  // said on stderr once; the whole output again
    return true;
  }

  int64_t pieces_ = 1, step_args_ = 0, conv_args_ = 0;
  std::unique_ptr<OpKernel> steps_, conv_;  // the unfused path's kernels
  FusedEpilogue steps_epilogue_, conv_epilogue_;
  OnednnConv onednn_;
  std::unique_ptr<OpKernel> via_float_;  // bfloat16's fallback: a ViaFloatOp (the float kernel on widened copies)
};

REGISTER_KERNEL(Name("_FusedChannelStepsConv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"), StepsConvOp<float>);
REGISTER_KERNEL(Name("_FusedChannelStepsConv2D").Device(DEVICE_CPU).TypeConstraint<Eigen::bfloat16>("T"),
                StepsConvOp<Eigen::bfloat16>);

}  // namespace
}  // namespace tensoract
