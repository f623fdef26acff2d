// Pad and PadV2 on the CPU: the output filled with the constant, the input copied into
// its middle box by StridedCopy.
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings_t = ctx->input(1);
    const int rank = input.dims();
    OP_REQUIRES(ctx, paddings_t.dims() == 2 && paddings_t.dim_size(1) == 2,
                errors::InvalidArgument(NodePrefix(*this), "paddings must be a matrix with 2 columns: ",
                                        paddings_t.shape().DebugString()));
    OP_REQUIRES(ctx, paddings_t.dim_size(0) == rank,
                errors::InvalidArgument(NodePrefix(*this), "The first dimension of paddings must be the rank of inputs",
                                        paddings_t.shape().DebugString(), " ", input.shape().DebugString()));
    const Tensor* constant = nullptr;
    if (ctx->num_inputs() == 3) {
      constant = &ctx->input(2);
      OP_REQUIRES(ctx, constant->dims() == 0,
                  errors::InvalidArgument(NodePrefix(*this), "constant_values must be a scalar. Got: ",
                                          constant->shape().DebugString()));
    }
    const std::vector<int64_t> paddings = IndexValues(paddings_t);
    std::vector<int64_t> dims(rank);
    for (int i = 0; i < rank; ++i) {
      const int64_t before = paddings[2 * i], after = paddings[2 * i + 1];
      OP_REQUIRES(ctx, before >= 0 && after >= 0,
                  errors::InvalidArgument(NodePrefix(*this), "Paddings must be non-negative: ", before, " ", after));
      dims[i] = input.dim_size(i) + before + after;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    FillElements(ctx, constant, out);
    StridedView dst{0, RowMajorStrides(out->shape())};
    for (int i = 0; i < rank; ++i) dst.base += paddings[2 * i] * dst.strides[i];
    StridedCopy(ctx, input, {0, RowMajorStrides(input.shape())}, out, dst, input.shape().dim_sizes());
  }
};

REGISTER_KERNEL(Name("Pad").Device(DEVICE_CPU), PadOp);
REGISTER_KERNEL(Name("PadV2").Device(DEVICE_CPU), PadOp);
// On a GPU the same kernel (its element moves go to the GPU: strided_copy.h); index
// inputs must be int32, which stays in host memory there.
REGISTER_KERNEL(Name("Pad").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tpaddings"), PadOp);
REGISTER_KERNEL(Name("PadV2").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tpaddings"), PadOp);

}  // namespace
}  // namespace tensoract
