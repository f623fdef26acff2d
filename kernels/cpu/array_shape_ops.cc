// Kernels that change or report a shape without touching the elements: Reshape,
// ExpandDims and Squeeze forward their input's buffer under a new shape; Shape, ShapeN, Size
// and Rank write it; PlaceholderWithDefault forwards its default.
// All are cheap and run inline.
#include <set>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// The integer values of a shape-like input (int32 or int64).
std::vector<int64_t> IntValues(const Tensor& t) {
  std::vector<int64_t> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v[i] = t.dtype() == tensorflow::DT_INT32 ? t.base<int32_t>()[i] : t.base<int64_t>()[i];
  }
  return v;
}

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    OP_REQUIRES(ctx, sizes.dims() == 1,
                errors::InvalidArgument(KernelWhere(*this), "sizes input must be 1-D, not ", sizes.shape().DebugString()));
    std::vector<int64_t> dims = IntValues(sizes);
    // TensorFlow's rule (reshape_op.h): the known sizes' product leaves out zeros, and
    // when a size is 0 the input's zero dimensions are left out too, so that -1 can still
    // be inferred: [0, 3] to [-1, 0] is [3, 0].
    int64_t product = 1;
    int unknown = -1;
    bool sizes_have_zero = false;
    for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
      if (dims[i] == -1) {
        OP_REQUIRES(ctx, unknown < 0,
                    errors::InvalidArgument(KernelWhere(*this), "Only one input size may be -1, not both ", unknown,
                                            " and ", i));
        unknown = i;
      } else {
        OP_REQUIRES(ctx, dims[i] >= 0,
                    errors::InvalidArgument(KernelWhere(*this), "Size ", i, " must be non-negative, not ", dims[i]));
        if (dims[i] == 0) {
          sizes_have_zero = true;
        } else {
          product *= dims[i];
        }
      }
    }
    const int64_t n = input.NumElements();
    if (unknown >= 0) {
      int64_t counted = 1;
      bool input_has_zero = false;
      for (int d = 0; d < input.dims(); ++d) {
        if (input.dim_size(d) > 0 || !sizes_have_zero) {
          counted *= input.dim_size(d);
        } else {
          input_has_zero = true;
        }
      }
      const int64_t missing = counted / product;
      OP_REQUIRES(ctx, input_has_zero || product * missing == counted,
                  errors::InvalidArgument(KernelWhere(*this), "Input to reshape is a tensor with ", n,
                                          " values, but the requested shape requires a multiple of ", product));
      dims[unknown] = missing;
    }
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    OP_REQUIRES(ctx, total == n,
                errors::InvalidArgument(KernelWhere(*this), "Input to reshape is a tensor with ", n,
                                        " values, but the requested shape has ", total));
    StatusOr<Tensor> out = input.Reshaped(TensorShape(dims));
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *out);
  }
};

class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < num_outputs(); ++i) {
      const Tensor& input = ctx->input(i);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({input.dims()}), &out));
      for (int d = 0; d < input.dims(); ++d) {
        if (output_types()[i] == tensorflow::DT_INT32) {
          OP_REQUIRES(ctx, input.dim_size(d) <= INT32_MAX,
                      errors::InvalidArgument(KernelWhere(*this), "Shape output type is 32-bit but dim ", d, " is ",
                                              input.dim_size(d)));
          out->base<int32_t>()[d] = static_cast<int32_t>(input.dim_size(d));
        } else {
          out->base<int64_t>()[d] = input.dim_size(d);
        }
      }
    }
  }
};

class ExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    OP_REQUIRES(ctx, dim_t.NumElements() == 1,
                errors::InvalidArgument(KernelWhere(*this), "'dim' must be a tensor with a single value"));
    const int rank = input.dims();
    int64_t dim = IntValues(dim_t)[0];
    OP_REQUIRES(ctx, dim >= -1 - rank && dim <= rank,
                errors::InvalidArgument(KernelWhere(*this), "Tried to expand dim index ", dim, " for tensor with ", rank,
                                        " dimensions."));
    if (dim < 0) dim += rank + 1;
    std::vector<int64_t> dims = input.shape().dim_sizes();
    dims.insert(dims.begin() + dim, 1);
    StatusOr<Tensor> out = input.Reshaped(TensorShape(dims));
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *out);
  }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("squeeze_dims", &squeeze_dims_);
    if (!s.ok()) ctx->SetStatus(s);
  }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    std::set<int64_t> wanted;
    for (int64_t idx : squeeze_dims_) {
      OP_REQUIRES(ctx, idx >= -rank && idx < rank,
                  errors::InvalidArgument(KernelWhere(*this), "Tried to squeeze dim index ", idx, " for tensor with ", rank,
                                          " dimensions."));
      wanted.insert(idx < 0 ? idx + rank : idx);
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) {
      const int64_t size = input.dim_size(d);
      if (wanted.empty()) {
        if (size != 1) dims.push_back(size);
      } else if (wanted.count(d)) {
        OP_REQUIRES(ctx, size == 1,
                    errors::InvalidArgument(KernelWhere(*this), "Can not squeeze dim[", d,
                                            "], expected a dimension of 1, got ", size));
      } else {
        dims.push_back(size);
      }
    }
    StatusOr<Tensor> out = input.Reshaped(TensorShape(dims));
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *out);
  }

 private:
  std::vector<int64_t> squeeze_dims_;
};

// Size and Rank: one scalar from the input's shape.
class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const int64_t n = ctx->input(0).NumElements();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    if (output_types()[0] == tensorflow::DT_INT32) {
      OP_REQUIRES(ctx, n <= INT32_MAX,
                  errors::InvalidArgument(KernelWhere(*this), "Number of elements was larger than representable by 32-bit "
                                          "output type"));
      out->base<int32_t>()[0] = static_cast<int32_t>(n);
    } else {
      out->base<int64_t>()[0] = n;
    }
  }
};

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->base<int32_t>()[0] = ctx->input(0).dims();
  }
};

// PlaceholderWithDefault: its input (the default) when not fed; a feed replaces the node.
class ForwardInputOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
};

REGISTER_KERNEL(Name("Reshape").Device(DEVICE_CPU), ReshapeOp);
REGISTER_KERNEL(Name("ShapeN").Device(DEVICE_CPU), ShapeOp);
REGISTER_KERNEL(Name("Size").Device(DEVICE_CPU), SizeOp);
REGISTER_KERNEL(Name("Rank").Device(DEVICE_CPU), RankOp);
REGISTER_KERNEL(Name("PlaceholderWithDefault").Device(DEVICE_CPU), ForwardInputOp);
REGISTER_KERNEL(Name("Shape").Device(DEVICE_CPU), ShapeOp);
REGISTER_KERNEL(Name("ExpandDims").Device(DEVICE_CPU), ExpandDimsOp);
REGISTER_KERNEL(Name("Squeeze").Device(DEVICE_CPU), SqueezeOp);
// On a GPU the same kernels: they read only shapes, and int32 shape tensors are in host
// memory there (IsHostMemoryType). An int64 shape would be in the GPU's memory: not here.
REGISTER_KERNEL(Name("Reshape").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tshape"), ReshapeOp);
REGISTER_KERNEL(Name("Shape").Device(DEVICE_GPU).TypeConstraint<int32_t>("out_type"), ShapeOp);
REGISTER_KERNEL(Name("ShapeN").Device(DEVICE_GPU).TypeConstraint<int32_t>("out_type"), ShapeOp);
REGISTER_KERNEL(Name("Size").Device(DEVICE_GPU).TypeConstraint<int32_t>("out_type"), SizeOp);
REGISTER_KERNEL(Name("Rank").Device(DEVICE_GPU), RankOp);
REGISTER_KERNEL(Name("ExpandDims").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tdim"), ExpandDimsOp);
REGISTER_KERNEL(Name("Squeeze").Device(DEVICE_GPU), SqueezeOp);

}  // namespace
}  // namespace tensoract
