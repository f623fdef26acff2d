// Array kernels on the GPU. The slicing family (Slice, StridedSlice and its gradient,
// Pad, Tile, BroadcastTo, Split, SplitV, Unpack) is the CPU's kernels run unchanged: they
// move elements through StridedCopy and FillElements (kernels/cpu/strided_copy.h), and
// this file gives those their GPU versions. Transpose and ConcatV2 are here.
#include "kernels/cpu/strided_copy.h"
#include "kernels/cpu/transpose_perm.h"
#include "kernels/gpu/gpu_op_util.h"

namespace tensoract {
namespace gpu {
namespace {

void GpuStridedCopy(OpKernelContext* ctx, const Tensor& src, const StridedView& sv, Tensor* dst, const StridedView& dv,
                    const std::vector<int64_t>& dims) {
  OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
  OP_REQUIRES(ctx, dims.size() <= static_cast<size_t>(kMaxBroadcastDims),
              errors::Unimplemented(NodePrefix(ctx->op_kernel()), "the GPU copies boxes of up to ", kMaxBroadcastDims,
                                    " dimensions, not ", dims.size()));
  StridedBox box;
  box.ndims = static_cast<int>(dims.size());
  box.src_base = sv.base;
  box.dst_base = dv.base;
  for (int d = 0; d < box.ndims; ++d) {
    box.dims[d] = dims[d];
    box.src_strides[d] = sv.strides[d];
    box.dst_strides[d] = dv.strides[d];
  }
  const bool ok = LaunchStridedCopy(src.data(), dst->data(), static_cast<int>(DataTypeSize(src.dtype())), box,
                                    StreamOf(ctx));
  OP_REQUIRES(ctx, ok, errors::Unimplemented(NodePrefix(ctx->op_kernel()), "no GPU copy for ",
                                             DataTypeString(src.dtype())));
  OP_REQUIRES_OK(ctx, EndLaunch(ctx));
}

void GpuFill(OpKernelContext* ctx, const Tensor* value, Tensor* dst) {
  OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
  const bool ok = LaunchFillBytes(value ? value->data() : nullptr, dst->data(), static_cast<int>(DataTypeSize(dst->dtype())),
                                  dst->NumElements(), StreamOf(ctx));
  OP_REQUIRES(ctx, ok, errors::Unimplemented(NodePrefix(ctx->op_kernel()), "no GPU fill for ",
                                             DataTypeString(dst->dtype())));
  OP_REQUIRES_OK(ctx, EndLaunch(ctx));
}

const bool kMoversRegistered = [] {
  RegisterDeviceElementMovers(DEVICE_GPU, GpuStridedCopy, GpuFill);
  return true;
}();

// Transpose(x, perm): perm is int32, in host memory.
class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& x = ctx->input(0);
    const int rank = x.dims();
    std::vector<int> perm;
    OP_REQUIRES_OK(ctx, ReadTransposePerm(*this, ctx->input(1), rank, &perm));
    std::vector<int64_t> out_dims(rank);
    StridedView src{0, {}}, dst{0, {}};
    const std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
    for (int d = 0; d < rank; ++d) {
      out_dims[d] = x.dim_size(perm[d]);
      src.strides.push_back(in_strides[perm[d]]);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    dst.strides = RowMajorStrides(out->shape());
    StridedCopy(ctx, x, src, out, dst, out_dims);
  }
  bool IsExpensive() const override { return false; }
};

// ConcatV2(values..., axis): axis is int32, in host memory.
class ConcatV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(0);
    const int rank = first.dims();
    int64_t axis = IndexValues(ctx->input(n))[0];
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                errors::InvalidArgument(NodePrefix(*this), "ConcatOp : Expected concatenating dimensions in the range [",
                                        -rank, ", ", rank, "), but got ", axis));
    if (axis < 0) axis += rank;
    std::vector<int64_t> out_dims = first.shape().dim_sizes();
    out_dims[axis] = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      bool same = t.dims() == rank;
      for (int d = 0; same && d < rank; ++d) same = d == axis || t.dim_size(d) == first.dim_size(d);
      OP_REQUIRES(ctx, same, errors::InvalidArgument(NodePrefix(*this), "ConcatOp : Dimension mismatch: input 0 is ",
                                                     first.shape().DebugString(), ", input ", i, " is ",
                                                     t.shape().DebugString()));
      out_dims[axis] += t.dim_size(static_cast<int>(axis));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    const std::vector<int64_t> out_strides = RowMajorStrides(out->shape());
    int64_t offset = 0;
    for (int i = 0; i < n && ctx->status().ok(); ++i) {
      const Tensor& t = ctx->input(i);
      StridedCopy(ctx, t, {0, RowMajorStrides(t.shape())}, out, {offset * out_strides[axis], out_strides},
                  t.shape().dim_sizes());
      offset += t.dim_size(static_cast<int>(axis));
    }
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("Transpose").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tperm"), TransposeOp);
REGISTER_KERNEL(Name("ConcatV2").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tidx"), ConcatV2Op);

}  // namespace
}  // namespace gpu
}  // namespace tensoract
