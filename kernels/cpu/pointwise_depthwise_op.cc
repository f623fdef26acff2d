// _FusedConv2DWithDepthwise on the CPU (graph/optimizer/pointwise_depthwise_fusion.h): an
// inverted residual block's pointwise convolution that expands the channels, the depthwise
// one, and (where the node has it) the pointwise projection back, as one kernel.
//
// Unfused, the expanded tensor is written to memory whole and read back, and so is the
// filtered one: at batch 32 the expansions of MobileNetV2's first blocks (112 x 112 x 96 and
// 56 x 56 x 144 floats an image) are most of its memory traffic, and a depthwise layer of
// 112 x 112 x 96 ran at a quarter of its speed on the same image in cache. Here each task
// takes an image (or a part of its output rows) and walks down it a band of output rows at a
// time: the pointwise convolution computes the expanded rows the band's windows reach into a
// buffer that stays in L2, the depthwise one reads them from there into a second buffer (or
// the output), the projection reads that. Rows a band shares with the next (the windows'
// overlap) are kept, not computed again.
//
// Every convolution runs on oneDNN (OnednnConv::Prepare/RunPiece), each band of each as it
// would run unfused: the values are the nodes' to the last bit (with products in bfloat16
// too: a pointwise convolution rounds its band of input as it would all of it). Where oneDNN
// is off or has no kernel for a shape, the convolutions run as their own kernels (made here
// from the fused node's prefixed attrs), one after the other, with the tensors in memory.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "graph/optimizer/mixed_precision.h"
#include "graph/optimizer/pointwise_depthwise_fusion.h"
#include "kernels/cpu/bfloat16_products.h"
#include "kernels/cpu/int8_products.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/onednn_conv.h"
#include "kernels/cpu/sub_kernels.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Bytes of expanded rows a band keeps in cache (a core's L2 is 1-2 MiB: room for the band's
// input and output rows beside it).
constexpr int64_t kBandBytes = 768 << 10;

class PointwiseDepthwiseOp : public OpKernel {
 public:
  explicit PointwiseDepthwiseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_pointwise_args", &pointwise_args_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_depthwise_args", &depthwise_args_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_project_inputs", &project_inputs_));
    // As the unfused nodes: only the pointwise convolutions are products the session's
    // bfloat16 option rounds (graph/optimizer/mixed_precision.h), and only where this CPU
    // multiplies bfloat16 in hardware (WantsBfloat16Products, which their kernels ask too).
    NodeDef pointwise = SubNodeDef(ctx->def(), "_FusedConv2D", kPointwiseAttrPrefix);
    NodeDef project = SubNodeDef(ctx->def(), "_FusedConv2D", kProjectAttrPrefix);
    if (ctx->def().attr().count(kBfloat16ProductsAttr) != 0) {
      (*pointwise.mutable_attr())[kBfloat16ProductsAttr] = ctx->def().attr().at(kBfloat16ProductsAttr);
      (*project.mutable_attr())[kBfloat16ProductsAttr] = ctx->def().attr().at(kBfloat16ProductsAttr);
    }
    pointwise_onednn_.set_bfloat16_products(WantsBfloat16Products(ctx));
    project_onednn_.set_bfloat16_products(WantsBfloat16Products(ctx));
    pointwise_onednn_.set_int8_products(WantsInt8Products(ctx));
    project_onednn_.set_int8_products(WantsInt8Products(ctx));
    const NodeDef depthwise = SubNodeDef(ctx->def(), "_FusedDepthwiseConv2dNative", kDepthwiseAttrPrefix);
    OP_REQUIRES_OK(ctx, MakeSubKernel(ctx, pointwise, &pointwise_, &pointwise_epilogue_));
    OP_REQUIRES_OK(ctx, MakeSubKernel(ctx, depthwise, &depthwise_, &depthwise_epilogue_));
    if (project_inputs_ > 0) OP_REQUIRES_OK(ctx, MakeSubKernel(ctx, project, &project_, &project_epilogue_));
    OpKernelConstruction depthwise_ctx(ctx->device(), depthwise, {}, {});
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(&depthwise_ctx, /*has_dilations=*/true, /*has_ksize=*/false,
                                              &depthwise_attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& pw_filter = ctx->input(1);
    const Tensor& dw_filter = ctx->input(2 + pointwise_args_);
    OP_REQUIRES(ctx, input.dims() == 4 && pw_filter.dims() == 4 && dw_filter.dims() == 4,
                errors::InvalidArgument(conv::NodeContext(*this), ": input, pointwise and depthwise filters must be "
                                        "4-dimensional, got ", input.shape().DebugString(), ", ",
                                        pw_filter.shape().DebugString(), " and ", dw_filter.shape().DebugString()));
    bool fusable = OnednnConv::Enabled() && pw_filter.dim_size(0) == 1 && pw_filter.dim_size(1) == 1 &&
                   pw_filter.dim_size(2) == input.dim_size(3) && dw_filter.dim_size(2) == pw_filter.dim_size(3) &&
                   dw_filter.dim_size(3) == 1;
    if (project_inputs_ > 0) {
      const Tensor& filter = ctx->input(ProjectInput());
      fusable = fusable && filter.dims() == 4 && filter.dim_size(0) == 1 && filter.dim_size(1) == 1 &&
                filter.dim_size(2) == dw_filter.dim_size(2);
    }
    if (!fusable || !Banded(ctx, input, pw_filter, dw_filter)) {
      if (ctx->status().ok()) Unfused(ctx);
    }
  }

 private:
  // Where the projection's filter is among the inputs (its args follow it).
  int ProjectInput() const { return static_cast<int>(3 + pointwise_args_ + depthwise_args_); }

  // The convolutions one after the other, each as its own kernel.
  void Unfused(OpKernelContext* ctx) {
    std::vector<Tensor> pw_inputs, dw_inputs, project_inputs;
    for (int i = 0; i < 2 + pointwise_args_; ++i) pw_inputs.push_back(ctx->input(i));
    Tensor expanded, filtered, out;
    OP_REQUIRES_OK(ctx, RunSubKernel(ctx, pointwise_.get(), pw_inputs, &expanded));
    dw_inputs.push_back(expanded);
    for (int i = 0; i < 1 + depthwise_args_; ++i) dw_inputs.push_back(ctx->input(2 + pointwise_args_ + i));
    OP_REQUIRES_OK(ctx, RunSubKernel(ctx, depthwise_.get(), dw_inputs, &filtered));
    if (project_inputs_ == 0) {
      ctx->set_output(0, filtered);
      return;
    }
    project_inputs.push_back(filtered);
    for (int i = 0; i < project_inputs_; ++i) project_inputs.push_back(ctx->input(ProjectInput() + i));
    OP_REQUIRES_OK(ctx, RunSubKernel(ctx, project_.get(), project_inputs, &out));
    ctx->set_output(0, out);
  }

  // One band: the pointwise convolution of expanded rows [fresh_begin, rows_end) into the
  // buffer (after the rows it keeps from the band before, from rows_begin), then the
  // depthwise one of output rows [out_begin, out_end) from buffer rows [rows_begin, rows_end),
  // then the projection of those rows.
  struct Band {
    int64_t rows_begin, fresh_begin, rows_end, out_begin, out_end;
    conv::ConvDims pointwise, depthwise, project;
  };

  // The bands of output rows [out_begin, out_end) of one image, in order.
  static std::vector<Band> Bands(const conv::ConvDims& d, int64_t in_depth, int64_t out_depth, int64_t out_begin,
                                 int64_t out_end) {
    const int64_t row_bytes = d.in_cols * d.in_depth * int64_t{sizeof(float)};
    const int64_t rows = std::max<int64_t>(d.filter_rows, kBandBytes / std::max<int64_t>(row_bytes, 1));
    const int64_t per_band = std::max<int64_t>(1, (rows - d.filter_rows) / d.stride_rows + 1);
    std::vector<Band> bands;
    int64_t computed_end = 0;  // expanded rows already in the buffer end here
    for (int64_t o = out_begin; o < out_end; o += per_band) {
      Band b;
      b.out_begin = o;
      b.out_end = std::min(out_end, o + per_band);
      const int64_t first = b.out_begin * d.stride_rows - d.pad_top;  // may be in the padding
      const int64_t last = (b.out_end - 1) * d.stride_rows - d.pad_top + (d.filter_rows - 1) * d.dilation_rows;
      b.rows_begin = std::max<int64_t>(first, 0);
      b.rows_end = std::min(last + 1, d.in_rows);
      b.fresh_begin = bands.empty() ? b.rows_begin : std::max(b.rows_begin, computed_end);
      computed_end = b.rows_end;
      b.pointwise = conv::PointwiseDims(b.rows_end - b.fresh_begin, d.in_cols, in_depth, d.in_depth);
      b.depthwise = d;
      b.depthwise.batch = 1;
      b.depthwise.in_rows = b.rows_end - b.rows_begin;
      b.depthwise.out_rows = b.out_end - b.out_begin;
      b.depthwise.pad_top = b.rows_begin - first;
      b.project = conv::PointwiseDims(b.out_end - b.out_begin, d.out_cols, d.out_depth, out_depth);
      bands.push_back(b);
    }
    return bands;
  }

  // The fused path; false (having written nothing) where oneDNN cannot run a piece.
  bool Banded(OpKernelContext* ctx, const Tensor& input, const Tensor& pw_filter, const Tensor& dw_filter) {
    conv::ConvDims d;  // the depthwise convolution of the whole expanded tensor
    d.batch = input.dim_size(0);
    d.in_rows = input.dim_size(1);
    d.in_cols = input.dim_size(2);
    d.in_depth = d.out_depth = d.groups = pw_filter.dim_size(3);
    d.filter_rows = dw_filter.dim_size(0);
    d.filter_cols = dw_filter.dim_size(1);
    Status s = conv::ComputeConvDims(depthwise_attrs_, &d);
    if (!s.ok()) {
      ctx->SetStatus(errors::InvalidArgument(conv::NodeContext(*this), ": ", s.message()));
      return true;
    }
    const bool projected = project_inputs_ > 0;
    const Tensor* project_filter = projected ? &ctx->input(ProjectInput()) : nullptr;
    const int64_t out_depth = projected ? project_filter->dim_size(3) : d.out_depth;
    Tensor* output = nullptr;
    s = ctx->allocate_output(0, TensorShape({d.batch, d.out_rows, d.out_cols, out_depth}), &output);
    if (!s.ok() || output->NumElements() == 0) {
      ctx->SetStatus(s);
      return true;
    }
    // The per-channel values of each convolution (the expanded and filtered tensors are not
    // whole anywhere: a tensor of their depth stands for them).
    const Tensor channels(tensorflow::DT_FLOAT, TensorShape({d.in_depth}));
    ChannelAffine<float> pw_affine, dw_affine, project_affine;
    s = pointwise_epilogue_.Channels(*this, ctx, 2, channels, &pw_affine);
    if (s.ok()) {
      s = depthwise_epilogue_.Channels(*this, ctx, 3 + pointwise_args_, projected ? channels : *output, &dw_affine);
    }
    if (s.ok() && projected) s = project_epilogue_.Channels(*this, ctx, ProjectInput() + 1, *output, &project_affine);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return true;
    }

    // Tasks: whole images while there is one per thread, else one part of each image's
    // rows per thread. One part a thread, not two: each thread then takes the same rows of
    // every block (the upper half, the lower half), whose input the block before it left
    // in that core's L2 (MobileNetV2 at batch 1 on a Zen 3, six alternations: mean of the
    // medians 9.40 against 10.43 ms, best minimum 6.44 against 7.28).
    const int threads = conv::NumThreads(ctx);
    const int64_t parts = std::min<int64_t>(d.out_rows, (threads + d.batch - 1) / d.batch);
    std::vector<std::vector<Band>> part_bands(parts);
    // Every band's primitives and filter layouts, before any runs (laying a filter out may
    // use the device's threads).
    using Pieces = std::map<std::vector<int64_t>, std::shared_ptr<const OnednnConv::Piece>>;
    Pieces pw_pieces, dw_pieces, project_pieces;
    auto prepare = [&](OnednnConv* onednn, const conv::ConvDims& dims, const Tensor& filter,
                       const ChannelAffine<float>& affine, const FusedEpilogue& epilogue, Pieces* pieces) {
      if (dims.in_rows == 0 || pieces->count(conv::DimsKey(dims)) != 0) return true;
      auto piece = onednn->Prepare(ctx, dims, filter, affine, epilogue);
      if (piece == nullptr) return false;
      (*pieces)[conv::DimsKey(dims)] = std::move(piece);
      return true;
    };
    const int64_t in_depth = input.dim_size(3);
    int64_t expanded_rows = 0, filtered_rows = 0;  // the buffers' sizes
    for (int64_t p = 0; p < parts; ++p) {
      part_bands[p] = Bands(d, in_depth, out_depth, d.out_rows * p / parts, d.out_rows * (p + 1) / parts);
      for (const Band& b : part_bands[p]) {
        if (!prepare(&pointwise_onednn_, b.pointwise, pw_filter, pw_affine, pointwise_epilogue_, &pw_pieces) ||
            !prepare(&depthwise_onednn_, b.depthwise, dw_filter, dw_affine, depthwise_epilogue_, &dw_pieces) ||
            (projected && !prepare(&project_onednn_, b.project, *project_filter, project_affine, project_epilogue_,
                                   &project_pieces))) {
          return false;
        }
        expanded_rows = std::max(expanded_rows, b.rows_end - b.rows_begin);
        filtered_rows = std::max(filtered_rows, b.out_end - b.out_begin);
      }
    }
    const int64_t row_floats = d.in_cols * d.in_depth, out_row_floats = d.out_cols * out_depth;
    const float* in = input.base<float>();
    float* out = output->base<float>();
    std::atomic<bool> failed{false};
    CwiseParallelFor(ctx, d.batch * parts, int64_t{1} << 30, [&](int64_t first, int64_t last) {
      // The thread's buffers, kept between calls: fresh ones of this size are pages mapped,
      // faulted in and zeroed on every call. Aligned to 64 bytes (a large std::vector's
      // floats start 16 bytes into a page, and every vector load straddles two lines).
      thread_local std::vector<float, Eigen::aligned_allocator<float>> expanded, filtered;
      const size_t expanded_floats = expanded_rows * row_floats;
      const size_t filtered_floats = projected ? filtered_rows * d.out_cols * d.out_depth : 0;
      if (expanded.size() < expanded_floats) expanded.resize(expanded_floats);
      if (filtered.size() < filtered_floats) filtered.resize(filtered_floats);
      for (int64_t task = first; task < last && !failed; ++task) {
        const int64_t image = task / parts;
        const float* image_in = in + image * d.in_rows * d.in_cols * in_depth;
        const int64_t image_out = image * d.out_rows * out_row_floats;  // where its output starts
        int64_t held_begin = 0, held_end = 0;  // expanded rows in the buffer
        for (const Band& b : part_bands[task % parts]) {
          // Keep the rows this band shares with the last, at the buffer's start.
          if (b.fresh_begin > b.rows_begin) {
            std::copy(expanded.data() + (b.rows_begin - held_begin) * row_floats,
                      expanded.data() + (held_end - held_begin) * row_floats, expanded.data());
          }
          float* fresh = expanded.data() + (b.fresh_begin - b.rows_begin) * row_floats;
          const int64_t band_out = image_out + b.out_begin * out_row_floats;
          bool ran = b.pointwise.in_rows == 0 ||
                     pointwise_onednn_.RunPiece(ctx, *pw_pieces.at(conv::DimsKey(b.pointwise)),
                                                image_in + b.fresh_begin * d.in_cols * in_depth, pw_affine, fresh);
          held_begin = b.rows_begin;
          held_end = b.rows_end;
          ran = ran && depthwise_onednn_.RunPiece(ctx, *dw_pieces.at(conv::DimsKey(b.depthwise)), expanded.data(),
                                                  dw_affine, projected ? filtered.data() : out + band_out);
          ran = ran && (!projected ||
                        project_onednn_.RunPiece(ctx, *project_pieces.at(conv::DimsKey(b.project)), filtered.data(),
                                                 project_affine, out + band_out,
                                                 project_affine.addend ? project_affine.addend + band_out : nullptr));
          if (!ran) {
            failed = true;
            return;
          }
        }
      }
    });
    if (failed) {  // said on stderr once; the whole output again, unfused
      Unfused(ctx);
    }
    return true;
  }

  int64_t pointwise_args_ = 0, depthwise_args_ = 0, project_inputs_ = 0;
  std::unique_ptr<OpKernel> pointwise_, depthwise_, project_;  // the unfused path's kernels
  FusedEpilogue pointwise_epilogue_, depthwise_epilogue_, project_epilogue_;
  conv::WindowAttrs depthwise_attrs_;
  OnednnConv pointwise_onednn_, depthwise_onednn_, project_onednn_;
};

REGISTER_KERNEL(Name("_FusedConv2DWithDepthwise").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                PointwiseDepthwiseOp);

}  // namespace
}  // namespace tensoract
