// The call-frame kernels (_Arg, _Retval) and NoOp. All run inline in the executor, which
// owns the call frame.
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("index", &index_);
    if (!s.ok()) ctx->SetStatus(s);
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->call_frame() != nullptr, errors::Internal("_Arg '", name(), "' runs without a call frame"));
    Tensor value;
    OP_REQUIRES_OK(ctx, ctx->call_frame()->GetArg(index_, &value));
    ctx->set_output(0, value);
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t index_ = 0;
};

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("index", &index_);
    if (!s.ok()) ctx->SetStatus(s);
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->call_frame() != nullptr, errors::Internal("_Retval '", name(), "' runs without a call frame"));
    OP_REQUIRES_OK(ctx, ctx->call_frame()->SetRetval(static_cast<int>(index_), ctx->input(0)));
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t index_ = 0;
};

class NoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("_Arg").Device(DEVICE_CPU), ArgOp);
REGISTER_KERNEL(Name("_Retval").Device(DEVICE_CPU), RetvalOp);
REGISTER_KERNEL(Name("NoOp").Device(DEVICE_CPU), NoOp);
REGISTER_KERNEL(Name("NoOp").Device(DEVICE_GPU), NoOp);

}  // namespace
}  // namespace tensoract
