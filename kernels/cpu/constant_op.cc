// Const: its value attr, decoded once when the kernel is made; every step outputs the
// same buffer, so a constant costs nothing per step.
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const tensorflow::TensorProto* proto = nullptr;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &proto));
    auto value = Tensor::FromProto(*proto, ctx->device()->host_allocator());
    OP_REQUIRES(ctx, value.ok(), value.status().WithContext("attr 'value'"));
    DataType dtype;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    OP_REQUIRES(ctx, value->dtype() == dtype,
                errors::InvalidArgument("attr 'value' is a ", DataTypeString(value->dtype()),
                                        " tensor but attr 'dtype' says ", DataTypeString(dtype)));
    auto on_device = ctx->device()->CopyFromHost(value.value());
    OP_REQUIRES(ctx, on_device.ok(), on_device.status().WithContext(StrCat("node '", name(), "'")));
    value_ = std::move(on_device).value();
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

REGISTER_KERNEL(Name("Const").Device(DEVICE_CPU), ConstantOp);
REGISTER_KERNEL(Name("Const").Device(DEVICE_GPU), ConstantOp);

}  // namespace
}  // namespace tensoract
