// ConcatV2, TensorFlow 1's Concat and Pack on the CPU. Each sees its inputs as matrices
// [outer, inner_i] (outer: the dimensions before the axis) and the output as rows of the
// inputs' rows side by side; rows are copied with memcpy, split over the device's threads
// when large.
#include <unsupported/Eigen/CXX11/Tensor>

#include <cstring>
#include <vector>

#include "kernels/cpu/strided_copy.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Copies `inputs` (each [outer, inner_i] elements) into `out` ([outer, sum inner_i]).
void ConcatRows(OpKernelContext* ctx, const std::vector<const Tensor*>& inputs, int64_t outer, Tensor* out) {
  std::vector<int64_t> inner(inputs.size());
  int64_t out_inner = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    inner[i] = outer == 0 ? 0 : inputs[i]->NumElements() / outer;
    out_inner += inner[i];
  }
  if (out->NumElements() == 0) return;
  if (!DataTypeIsFixedSize(out->dtype())) {  // strings and variants, by value
    int64_t at = 0;
    for (int64_t r = 0; r < outer; ++r) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        CopyElements(*inputs[i], r * inner[i], out, at, inner[i]);
        at += inner[i];
      }
    }
    return;
  }
  const size_t size = DataTypeSize(out->dtype());
  char* base = static_cast<char*>(out->data());
  auto copy_rows = [&](Eigen::Index begin, Eigen::Index end) {
    for (Eigen::Index r = begin; r < end; ++r) {
      char* o = base + r * out_inner * size;
      for (size_t i = 0; i < inputs.size(); ++i) {
        const size_t bytes = inner[i] * size;
        if (bytes == 0) continue;
        std::memcpy(o, static_cast<const char*>(inputs[i]->data()) + r * bytes, bytes);
        o += bytes;
      }
    }
  };
  const double bytes_per_row = static_cast<double>(out_inner * size);
  if (out->NumElements() * size < (1 << 16)) {
    copy_rows(0, outer);
  } else {
    ctx->device()->eigen_cpu_device()->parallelFor(outer, Eigen::TensorOpCost(bytes_per_row, bytes_per_row, 0),
                                                   copy_rows);
  }
}

// ConcatV2 (the axis last) and TensorFlow 1's Concat (kAxisFirst: concat_dim first).
template <bool kAxisFirst>
class ConcatAxisOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const int first_value = kAxisFirst ? 1 : 0;
    const Tensor& axis_t = ctx->input(kAxisFirst ? 0 : n);
    OP_REQUIRES(ctx, axis_t.dims() == 0,
                errors::InvalidArgument(KernelWhere(*this), "Concat dim tensor should be a scalar integer, but got shape ",
                                        axis_t.shape().DebugString()));
    int64_t axis = axis_t.dtype() == tensorflow::DT_INT32 ? axis_t.base<int32_t>()[0] : axis_t.base<int64_t>()[0];
    const Tensor& first = ctx->input(first_value);
    const int rank = first.dims();
    OP_REQUIRES(ctx, (axis >= -rank && axis < rank) || (rank == 0 && axis == 0),
                errors::InvalidArgument(KernelWhere(*this), "ConcatOp : Expected concatenating dimensions in the range [",
                                        -rank, ", ", rank, "), but got ", axis));
    if (axis < 0) axis += rank;
    OP_REQUIRES(ctx, rank > 0, errors::InvalidArgument(KernelWhere(*this), "ConcatOp : Can't concatenate scalars (use tf.stack instead)"));
    std::vector<int64_t> out_dims = first.shape().dim_sizes();
    out_dims[axis] = 0;
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(first_value + i);
      OP_REQUIRES(ctx, t.dims() == rank,
                  errors::InvalidArgument(KernelWhere(*this), "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
                                          first.shape().DebugString(), " vs. shape[", i, "] = ",
                                          t.shape().DebugString()));
      for (int d = 0; d < rank; ++d) {
        if (d == axis) continue;
        OP_REQUIRES(ctx, t.dim_size(d) == first.dim_size(d),
                    errors::InvalidArgument(KernelWhere(*this), "ConcatOp : Dimension ", d,
                                            " in both shapes must be equal: shape[0] = ", first.shape().DebugString(),
                                            " vs. shape[", i, "] = ", t.shape().DebugString()));
      }
      out_dims[axis] += t.dim_size(static_cast<int>(axis));
      inputs.push_back(&t);
    }
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    ConcatRows(ctx, inputs, outer, out);
  }
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    const int64_t rank = first.dims() + 1;
    int64_t axis = axis_;
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                errors::InvalidArgument(KernelWhere(*this), "axis = ", axis_, " not in [", -rank, ", ", rank, ")"));
    if (axis < 0) axis += rank;
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument(KernelWhere(*this), "Shapes of all inputs must match: values[0].shape = ",
                                          first.shape().DebugString(), " != values[", i, "].shape = ",
                                          ctx->input(i).shape().DebugString()));
      inputs.push_back(&ctx->input(i));
    }
    std::vector<int64_t> out_dims = first.shape().dim_sizes();
    out_dims.insert(out_dims.begin() + axis, n);
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    ConcatRows(ctx, inputs, outer, out);
  }

 private:
  int64_t axis_ = 0;
};

REGISTER_KERNEL(Name("ConcatV2").Device(DEVICE_CPU), ConcatAxisOp<false>);
REGISTER_KERNEL(Name("Concat").Device(DEVICE_CPU), ConcatAxisOp<true>);
REGISTER_KERNEL(Name("Pack").Device(DEVICE_CPU), PackOp);

}  // namespace
}  // namespace tensoract
