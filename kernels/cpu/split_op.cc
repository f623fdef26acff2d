// Split, SplitV and Unpack on the CPU: each output is a box of the input along one axis,
// copied by StridedCopy (Unpack's outputs drop the axis).
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

// Copies input[..., offset : offset + size, ...] (along `axis`) into a new output `i` of
// shape `out_shape` (which has as many elements).
void CopyAlongAxis(OpKernelContext* ctx, int i, const Tensor& input, int axis, int64_t offset, int64_t size,
                   const TensorShape& out_shape) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(i, out_shape, &out));
  std::vector<int64_t> box = input.shape().dim_sizes();
  box[axis] = size;
  StridedView src{0, RowMajorStrides(input.shape())};
  src.base = offset * src.strides[axis];
  StridedCopy(ctx, input, src, out, {0, RowMajorStrides(TensorShape(box))}, box);
}

// split_dim, a scalar, normalised to [0, rank).
bool ReadSplitDim(OpKernelContext* ctx, const OpKernel& k, const Tensor& t, int rank, int* axis) {
  if (t.NumElements() != 1) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "split_dim must be a scalar but has shape ",
                                           t.shape().DebugString()));
    return false;
  }
  const int64_t d = IndexValues(t)[0];
  if (d < -rank || d >= rank) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "-input rank(-", rank, ") <= split_dim < input rank (", rank,
                                           "), but got ", d));
    return false;
  }
  *axis = static_cast<int>(d < 0 ? d + rank : d);
  return true;
}

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(1);
    int axis = 0;
    if (!ReadSplitDim(ctx, *this, ctx->input(0), input.dims(), &axis)) return;
    const int n = num_outputs();
    const int64_t dim = input.dim_size(axis);
    OP_REQUIRES(ctx, dim % n == 0,
                errors::InvalidArgument(NodePrefix(*this), "Number of ways to split should evenly divide the split "
                                        "dimension, but got split_dim ", axis, " (size = ", dim, ") and num_split ", n));
    std::vector<int64_t> dims = input.shape().dim_sizes();
    dims[axis] = dim / n;
    for (int i = 0; i < n; ++i) CopyAlongAxis(ctx, i, input, axis, i * (dim / n), dim / n, TensorShape(dims));
  }
};

class SplitVOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int axis = 0;
    if (!ReadSplitDim(ctx, *this, ctx->input(2), input.dims(), &axis)) return;
    const int n = num_outputs();
    std::vector<int64_t> sizes = IndexValues(ctx->input(1));
    OP_REQUIRES(ctx, ctx->input(1).dims() == 1 && static_cast<int>(sizes.size()) == n,
                errors::InvalidArgument(NodePrefix(*this), "size_splits must be a vector of num_split = ", n,
                                        " elements, but has shape ", ctx->input(1).shape().DebugString()));
    const int64_t dim = input.dim_size(axis);
    if (n == 1) {
      // TensorFlow's one-output case: the input itself, its size given exactly (not -1).
      OP_REQUIRES(ctx, sizes[0] == dim,
                  errors::InvalidArgument(NodePrefix(*this), "If there is only one output, it must have the same size "
                                          "as the input. Input size: ", dim, " output size: ", sizes[0]));
      ctx->set_output(0, input);
      return;
    }
    int64_t total = 0;
    int unknown = -1;
    for (int i = 0; i < n; ++i) {
      if (sizes[i] == -1) {
        OP_REQUIRES(ctx, unknown < 0,
                    errors::InvalidArgument(NodePrefix(*this), "There can only be one -1 in the input."));
        unknown = i;
      } else {
        OP_REQUIRES(ctx, sizes[i] >= 0,
                    errors::InvalidArgument(NodePrefix(*this), "Split size at index ", i,
                                            " must be >= 0. Got: ", sizes[i]));
        total += sizes[i];
      }
    }
    OP_REQUIRES(ctx, (unknown < 0 && total == dim) || (unknown >= 0 && total <= dim),
                errors::InvalidArgument(NodePrefix(*this), "Determined shape must either match input shape along "
                                        "split_dim exactly if fully specified, or be less than the size of the input "
                                        "along split_dim if not fully specified.  Got: ", total));
    if (unknown >= 0) sizes[unknown] = dim - total;
    std::vector<int64_t> dims = input.shape().dim_sizes();
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      dims[axis] = sizes[i];
      CopyAlongAxis(ctx, i, input, axis, offset, sizes[i], TensorShape(dims));
      offset += sizes[i];
    }
  }
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    int64_t axis = axis_;
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                errors::InvalidArgument(NodePrefix(*this), "axis = ", axis_, " not in [", -rank, ", ", rank, ")"));
    if (axis < 0) axis += rank;
    const int n = num_outputs();
    OP_REQUIRES(ctx, input.dim_size(static_cast<int>(axis)) == n,
                errors::InvalidArgument(NodePrefix(*this), "Input shape axis ", axis, " must equal ", n, ", got shape ",
                                        input.shape().DebugString()));
    std::vector<int64_t> dims = input.shape().dim_sizes();
    dims.erase(dims.begin() + axis);
    for (int i = 0; i < n; ++i) CopyAlongAxis(ctx, i, input, static_cast<int>(axis), i, 1, TensorShape(dims));
  }

 private:
  int64_t axis_ = 0;
};

REGISTER_KERNEL(Name("Split").Device(DEVICE_CPU), SplitOp);
REGISTER_KERNEL(Name("SplitV").Device(DEVICE_CPU), SplitVOp);
REGISTER_KERNEL(Name("Unpack").Device(DEVICE_CPU), UnpackOp);
// On a GPU the same kernel (its element moves go to the GPU: strided_copy.h); index
// inputs must be int32, which stays in host memory there.
REGISTER_KERNEL(Name("Split").Device(DEVICE_GPU), SplitOp);
REGISTER_KERNEL(Name("SplitV").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tlen"), SplitVOp);
REGISTER_KERNEL(Name("Unpack").Device(DEVICE_GPU), UnpackOp);

}  // namespace
}  // namespace tensoract
