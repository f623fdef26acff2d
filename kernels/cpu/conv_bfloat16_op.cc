// _MklNativeFusedConv2D and Conv2D in bfloat16 on the CPU: the convolution a graph that
// keeps its activations in bfloat16 runs (graph/optimizer/mixed_precision.h makes it of a marked
// _FusedConv2D; TensorFlow's oneDNN rewrite makes the same op). Its per-channel args stay
// float, its input, filter, residual operand and output are bfloat16. oneDNN's bfloat16
// kernels (AMX, AVX512-BF16) read the bfloat16 input and filter, sum in float, apply the per-channel steps, the residual and the activation in float, and
// round the output once (kernels/cpu/onednn_conv.h, RunBfloat16). Where oneDNN is not built
// in, has no kernel for the shape, or fails, the float kernel of the same node computes it
// on widened copies (kernels/cpu/via_float_op.h), as half's and bfloat16's Conv2D do.
#include <Eigen/Core>
#include <cstdint>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/onednn_conv.h"
#include "kernels/cpu/via_float_op.h"

namespace tensoract {
namespace {

using bfloat16 = Eigen::bfloat16;

class Bfloat16ConvOp : public ViaFloatOp<bfloat16> {
 public:
  explicit Bfloat16ConvOp(OpKernelConstruction* ctx) : ViaFloatOp<bfloat16>(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/true, /*has_ksize=*/false, &attrs_));
    OP_REQUIRES_OK(ctx, epilogue_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    if (!TryOnednn(ctx)) ViaFloatOp<bfloat16>::Compute(ctx);
  }

 private:
  // True when oneDNN computed the output; false (nothing allocated) for the float kernel.
  bool TryOnednn(OpKernelContext* ctx) {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    conv::ConvDims d;
    // Shapes the float kernel refuses are refused there, in its words.
    if (!conv::ConvDimsFromShapes(*this, attrs_, input.shape(), filter.shape(), &d, /*allow_groups=*/true).ok()) {
      return false;
    }
    if (!OnednnConv::Suits(d, /*bfloat16_products=*/true) || d.patch_size() == 0) return false;
    const TensorShape out_shape({d.batch, d.out_rows, d.out_cols, d.out_depth});
    if (out_shape.num_elements() == 0) return false;
    // A residual Add's operand no one else reads becomes the output: oneDNN's sum post-op
    // adds to what the destination holds, so it is not copied there first (ResNet50 at batch
    // 1: that copy was 5.9% of the CPU time).
    const int addend_input = epilogue_.active() && epilogue_.adds() ? 2 + epilogue_.num_args() - 1 : -1;
    Tensor* out = nullptr;
    const Status allocated = addend_input >= 0 ? ctx->forward_input_or_allocate_output(addend_input, 0, out_shape, &out)
                                               : ctx->allocate_output(0, out_shape, &out);
    if (!allocated.ok()) {
      ctx->SetStatus(allocated);
      return true;
    }
    const bool in_place = addend_input >= 0 && out->data() == ctx->input(addend_input).data();
    // The per-channel steps composed in float for oneDNN's post-ops. Args the float kernel
    // refuses are refused there, in its words.
    ChannelAffine<float> affine;
    const bfloat16* addend = nullptr;
    if (epilogue_.active() && !epilogue_.Channels<float, bfloat16>(*this, ctx, 2, *out, &affine, &addend).ok()) {
      return false;
    }
    const bool ran = onednn_.RunBfloat16(ctx, d, static_cast<const uint16_t*>(input.data()), filter, affine,
                                         reinterpret_cast<const uint16_t*>(addend), epilogue_,
                                         static_cast<uint16_t*>(out->data()));
    // Where oneDNN failed part way, the addend may be partly overwritten: no float kernel can
    // start again from it.
    if (!ran && in_place) {
      ctx->SetStatus(errors::Internal("node '", name(), "' (op '", type_string(),
                                      "'): oneDNN failed while adding the residual in place (said above)"));
      return true;
    }
    return ran;
  }

  conv::WindowAttrs attrs_;
  FusedEpilogue epilogue_;
  OnednnConv onednn_;
};

REGISTER_KERNEL(Name("_MklNativeFusedConv2D").Device(DEVICE_CPU).TypeConstraint<bfloat16>("T"), Bfloat16ConvOp);
// A graph in bfloat16 of its own (Keras' mixed_bfloat16 policy) holds plain Conv2Ds of it.
REGISTER_KERNEL(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<bfloat16>("T"), Bfloat16ConvOp);

}  // namespace
}  // namespace tensoract
