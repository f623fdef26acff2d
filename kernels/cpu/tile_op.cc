// Tile and BroadcastTo on the CPU. Both read each input element many times: seen as a box
// over (repeat, element) pairs per dimension, with input stride 0 along the repeats, they
// are one StridedCopy.
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& multiples_t = ctx->input(1);
    const int rank = input.dims();
    OP_REQUIRES(ctx, multiples_t.dims() == 1 && multiples_t.NumElements() == rank,
                errors::InvalidArgument(NodePrefix(*this), "Expected multiples argument to be a vector of length ",
                                        rank, " but got length ", multiples_t.NumElements()));
    const std::vector<int64_t> multiples = IndexValues(multiples_t);
    std::vector<int64_t> out_dims(rank), box, src_strides;
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, multiples[i] >= 0,
                  errors::InvalidArgument(NodePrefix(*this), "Expected multiples[", i, "] >= 0, but got ",
                                          multiples[i]));
      out_dims[i] = input.dim_size(i) * multiples[i];
      box.push_back(multiples[i]);
      box.push_back(input.dim_size(i));
      src_strides.push_back(0);
      src_strides.push_back(in_strides[i]);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    StridedCopy(ctx, input, {0, src_strides}, out, {0, RowMajorStrides(TensorShape(box))}, box);
  }
};

class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "shape must be a vector, not ",
                                        shape_t.shape().DebugString()));
    const std::vector<int64_t> dims = IndexValues(shape_t);
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d >= 0, errors::InvalidArgument(NodePrefix(*this), "shape has a negative dimension ", d));
    }
    const int rank = static_cast<int>(dims.size());
    const TensorShape out_shape(dims);
    OP_REQUIRES(ctx, input.dims() <= rank,
                errors::InvalidArgument(NodePrefix(*this), "Rank of input (", input.dims(),
                                        ") must be no greater than rank of output shape (", rank, ")."));
    const int offset = rank - input.dims();
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
    std::vector<int64_t> src_strides(rank, 0);
    for (int i = 0; i < input.dims(); ++i) {
      const int64_t d = input.dim_size(i);
      OP_REQUIRES(ctx, d == dims[offset + i] || d == 1,
                  errors::InvalidArgument(NodePrefix(*this), "Incompatible shapes: ", input.shape().DebugString(),
                                          " vs. ", out_shape.DebugString()));
      if (d != 1) src_strides[offset + i] = in_strides[i];
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    StridedCopy(ctx, input, {0, src_strides}, out, {0, RowMajorStrides(out_shape)}, dims);
  }
};

REGISTER_KERNEL(Name("Tile").Device(DEVICE_CPU), TileOp);
REGISTER_KERNEL(Name("BroadcastTo").Device(DEVICE_CPU), BroadcastToOp);
// On a GPU the same kernel (its element moves go to the GPU: strided_copy.h); index
// inputs must be int32, which stays in host memory there.
REGISTER_KERNEL(Name("Tile").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tmultiples"), TileOp);
REGISTER_KERNEL(Name("BroadcastTo").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tidx"), BroadcastToOp);

}  // namespace
}  // namespace tensoract
