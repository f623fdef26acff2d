// ReverseV2 and TensorFlow 1's Reverse on the CPU: one StridedCopy whose source view starts
// at the far end of each reversed dimension and walks it backwards (negative strides), for
// every dtype. They differ only in how the reversed dimensions are named (axes, or a bool
// per dimension) and in TensorFlow's checks.
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

// input with the dimensions marked in `reversed` reversed, as output 0.
void CopyReversed(OpKernelContext* ctx, const Tensor& input, const std::vector<bool>& reversed) {
  StridedView src{0, RowMajorStrides(input.shape())};
  for (int d = 0; d < input.dims(); ++d) {
    if (!reversed[d]) continue;
    src.base += (input.dim_size(d) - 1) * src.strides[d];
    src.strides[d] = -src.strides[d];
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
  StridedCopy(ctx, input, src, out, {0, RowMajorStrides(out->shape())}, input.shape().dim_sizes());
}

class ReverseV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    // TensorFlow returns a scalar or an empty input as it is, before looking at the axes.
    if (input.dims() == 0 || input.NumElements() == 0) {
      ctx->set_output(0, input);
      return;
    }
    const int rank = input.dims();
    OP_REQUIRES(ctx, axis_t.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "'dims' must be 1-dimension, not ", axis_t.dims()));
    const std::vector<int64_t> axes = IndexValues(axis_t);
    std::vector<bool> reversed(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      // TensorFlow's message, its missing bracket included.
      OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                  errors::InvalidArgument(NodePrefix(*this), "'axis'[", i, "] = ", axes[i],
                                          " is out of valid range [0, ", rank - 1));
      OP_REQUIRES(ctx, !reversed[axis],
                  errors::InvalidArgument(NodePrefix(*this), "axis ", axis, " specified more than once."));
      reversed[axis] = true;
    }
    OP_REQUIRES(ctx, rank <= 8,
                errors::Unimplemented(NodePrefix(*this), "reverse is not implemented for tensors of rank > 8."));
    CopyReversed(ctx, input, reversed);
  }
};

// TensorFlow 1's Reverse: dims holds a bool per input dimension. TensorFlow refuses an
// input whose first dimension is 0 (though not one empty elsewhere).
class ReverseV1Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dims_t = ctx->input(1);
    if (input.dims() > 0) {
      OP_REQUIRES(ctx, input.dim_size(0) != 0,
                  errors::InvalidArgument(NodePrefix(*this), "Invalid input first dimension. Found 0."));
    }
    if (input.dims() == 0) {
      ctx->set_output(0, input);
      return;
    }
    const int rank = input.dims();
    OP_REQUIRES(ctx, dims_t.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "'dims' must be 1-dimension, not ", dims_t.dims()));
    OP_REQUIRES(ctx, dims_t.dim_size(0) == rank,
                errors::InvalidArgument(NodePrefix(*this),
                                        "'dims' must have the same number of values as 'input' has dimensions. "
                                        "'input' has ",
                                        rank, "'dims' has ", dims_t.dim_size(0), " values"));
    OP_REQUIRES(ctx, rank <= 8,
                errors::Unimplemented(NodePrefix(*this), "reverse is not implemented for tensors of rank > 8."));
    if (input.NumElements() == 0) {
      ctx->set_output(0, input);
      return;
    }
    std::vector<bool> reversed(dims_t.base<bool>(), dims_t.base<bool>() + rank);
    CopyReversed(ctx, input, reversed);
  }
};

REGISTER_KERNEL(Name("ReverseV2").Device(DEVICE_CPU), ReverseV2Op);
REGISTER_KERNEL(Name("Reverse").Device(DEVICE_CPU), ReverseV1Op);

}  // namespace
}  // namespace tensoract
