// Bitcast on the CPU: the input's bytes copied into a tensor of `type` (TensorFlow shares the
// buffer; the values are the same). One kernel for every pair of types, as TensorFlow
// registers it: a wider type needs the input's last dimension to be the sizes' ratio and
// drops it, a narrower one appends a dimension of the ratio.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &in_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("type", &out_type_));
    in_size_ = DataTypeSize(in_type_);
    out_size_ = DataTypeSize(out_type_);
    OP_REQUIRES(ctx, in_size_ > 0 && out_size_ > 0 && std::max(in_size_, out_size_) % std::min(in_size_, out_size_) == 0,
                errors::InvalidArgument(NodePrefix(*this), "cannot convert between datatype ", in_type_, " and ",
                                        out_type_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx,
                in_size_ >= out_size_ || (in.dims() > 0 && in.dim_size(in.dims() - 1) == out_size_ / in_size_),
                errors::InvalidArgument(NodePrefix(*this), "Cannot bitcast from ", in_type_, " to ", out_type_,
                                        ": shape ", in.shape().DebugString()));
    std::vector<int64_t> dims = in.shape().dim_sizes();
    if (out_size_ < in_size_) dims.push_back(in_size_ / out_size_);
    if (out_size_ > in_size_) dims.pop_back();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (in.TotalBytes() > 0) std::memcpy(out->data(), in.data(), in.TotalBytes());
  }

 private:
  DataType in_type_, out_type_;
  int in_size_ = 0, out_size_ = 0;
};

REGISTER_KERNEL(Name("Bitcast").Device(DEVICE_CPU), BitcastOp);

}  // namespace
}  // namespace tensoract
