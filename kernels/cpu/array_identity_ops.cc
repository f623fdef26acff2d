// Identity-like kernels: StopGradient, PreventGradient and IdentityN forward their inputs'
// buffers (they matter only to gradients); Snapshot copies its input into a new buffer.
// None reads elements on the host, so the GPU runs them too.
#include <cstring>

#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) ctx->set_output(i, ctx->input(i));
  }
  bool IsExpensive() const override { return false; }
};

class SnapshotOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto copy = ctx->device()->CopyOnDevice(ctx->input(0));
    OP_REQUIRES_OK(ctx, copy.status());
    ctx->set_output(0, std::move(copy).value());
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("StopGradient").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("PreventGradient").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("IdentityN").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("Snapshot").Device(DEVICE_CPU), SnapshotOp);
REGISTER_KERNEL(Name("StopGradient").Device(DEVICE_GPU), ForwardOp);
REGISTER_KERNEL(Name("PreventGradient").Device(DEVICE_GPU), ForwardOp);
REGISTER_KERNEL(Name("IdentityN").Device(DEVICE_GPU), ForwardOp);
REGISTER_KERNEL(Name("Snapshot").Device(DEVICE_GPU), SnapshotOp);

}  // namespace
}  // namespace tensoract
