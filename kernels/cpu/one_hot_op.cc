// OneHot on the CPU: the output [prefix, depth, suffix] (the depth axis where `axis` says)
// filled with off_value, then on_value written at each in-range index.
#include <cstring>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices_t = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    const int rank = indices_t.dims();
    OP_REQUIRES(ctx, axis_ == -1 || (axis_ >= 0 && axis_ <= rank),
                errors::InvalidArgument(NodePrefix(*this), "Expected axis to be -1 or between [0, ", rank + 1,
                                        ").  But received: ", axis_));
    OP_REQUIRES(ctx, depth_t.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "depth must be a scalar, but got: ",
                                        depth_t.shape().DebugString()));
    OP_REQUIRES(ctx, on.dims() == 0 && off.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "on_value and off_value must be scalars, but got: ",
                                        on.shape().DebugString(), " and ", off.shape().DebugString()));
    const int64_t depth = depth_t.base<int32_t>()[0];
    OP_REQUIRES(ctx, depth >= 0,
                errors::InvalidArgument(NodePrefix(*this), "depth must be non-negative, got: ", depth));
    const int axis = axis_ == -1 ? rank : static_cast<int>(axis_);
    std::vector<int64_t> dims = indices_t.shape().dim_sizes();
    int64_t suffix = 1;
    for (int i = axis; i < rank; ++i) suffix *= dims[i];
    dims.insert(dims.begin() + axis, depth);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    FillElements(ctx, &off, out);
    const std::vector<int64_t> indices = IndexValues(indices_t);
    const bool is_string = out->dtype() == tensorflow::DT_STRING;
    const size_t size = is_string ? 0 : DataTypeSize(out->dtype());
    for (size_t i = 0; i < indices.size(); ++i) {
      const int64_t v = indices_t.dtype() == tensorflow::DT_UINT8 ? static_cast<uint8_t>(indices[i]) : indices[i];
      if (v < 0 || v >= depth) continue;
      const int64_t p = i / suffix, s = i % suffix;
      const int64_t at = (p * depth + v) * suffix + s;
      if (is_string) out->base<std::string>()[at] = on.base<std::string>()[0];
      else std::memcpy(static_cast<char*>(out->data()) + at * size, on.data(), size);
    }
  }

 private:
  int64_t axis_ = -1;
};

REGISTER_KERNEL(Name("OneHot").Device(DEVICE_CPU), OneHotOp);

}  // namespace
}  // namespace tensoract
