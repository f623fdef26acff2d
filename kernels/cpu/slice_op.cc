// Slice on the CPU: the box [begin, begin + size) of the input, copied by StridedCopy.
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_t_ = ctx->input(2);
    const int rank = input.dims();
    OP_REQUIRES(ctx, begin_t.dims() == 1 && size_t_.dims() == 1 && begin_t.NumElements() == rank &&
                         size_t_.NumElements() == rank,
                errors::InvalidArgument(NodePrefix(*this), "Expected begin and size arguments to be 1-D tensors of size ",
                                        rank, ", but got shapes ", begin_t.shape().DebugString(), " and ",
                                        size_t_.shape().DebugString(), " instead."));
    const std::vector<int64_t> begin = IndexValues(begin_t);
    std::vector<int64_t> size = IndexValues(size_t_);
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = input.dim_size(i);
      OP_REQUIRES(ctx, begin[i] >= 0 && begin[i] <= dim,
                  errors::InvalidArgument(NodePrefix(*this), "Expected begin[", i, "] in [0, ", dim, "], but got ",
                                          begin[i]));
      if (size[i] == -1) size[i] = dim - begin[i];
      OP_REQUIRES(ctx, size[i] >= 0 && begin[i] + size[i] <= dim,
                  errors::InvalidArgument(NodePrefix(*this), "Expected size[", i, "] in [0, ", dim - begin[i],
                                          "], but got ", size[i]));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(size), &out));
    StridedView src{0, RowMajorStrides(input.shape())};
    for (int i = 0; i < rank; ++i) src.base += begin[i] * src.strides[i];
    StridedCopy(ctx, input, src, out, {0, RowMajorStrides(out->shape())}, size);
  }
};

REGISTER_KERNEL(Name("Slice").Device(DEVICE_CPU), SliceOp);
// On a GPU the same kernel (its element moves go to the GPU: strided_copy.h); index
// inputs must be int32, which stays in host memory there.
REGISTER_KERNEL(Name("Slice").Device(DEVICE_GPU).TypeConstraint<int32_t>("Index"), SliceOp);

}  // namespace
}  // namespace tensoract
