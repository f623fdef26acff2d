// Control-flow kernels: Switch, Merge, Enter, Exit, NextIteration, LoopCond and
// ControlTrigger (and their Ref forms). They only forward values, sharing buffers; what
// makes them control flow (dead outputs, frames, iterations) is the executor's
// (actors/executor.cc). A reference input is forwarded as the reference.
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Output `out` is input `in`: the same buffer, or the same variable for a reference.
void Forward(OpKernelContext* ctx, int in, int out) {
  if (IsRefType(ctx->op_kernel().input_types()[in])) {
    ctx->set_output_ref(out, ctx->input_ref(in));
  } else {
    ctx->set_output(out, ctx->input(in));
  }
}

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(ctx, pred.dims() == 0,
                errors::InvalidArgument("node '", name(), "' (op '", type_string(),
                                        "'): the predicate must be a scalar, but it has shape ",
                                        pred.shape().DebugString()));
    // The other output stays unset: dead.
    Forward(ctx, 0, pred.base<bool>()[0] ? 1 : 0);
  }
  bool IsExpensive() const override { return false; }
  bool CanOutputDead() const override { return true; }
};

// The executor runs a Merge once, with exactly one live input in place (the first to
// arrive); the others have no value (has_input is false).
class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      Forward(ctx, i, 0);
      Tensor* index = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({}), &index));
      index->base<int32_t>()[0] = i;
      return;
    }
    ctx->SetStatus(errors::Internal("node '", name(), "' (op '", type_string(), "') ran without a live input"));
  }
  bool IsExpensive() const override { return false; }
};

// Enter, Exit, NextIteration and LoopCond: output 0 is input 0.
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { Forward(ctx, 0, 0); }
  bool IsExpensive() const override { return false; }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL(Name("RefSwitch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL(Name("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL(Name("RefMerge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL(Name("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("RefEnter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("RefExit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("RefNextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("LoopCond").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(Name("ControlTrigger").Device(DEVICE_CPU), ControlTriggerOp);

}  // namespace
}  // namespace tensoract
