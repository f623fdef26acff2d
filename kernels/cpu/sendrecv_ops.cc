// _Send and _Recv: the two ends of a cross-device edge (graph/partition.h adds them).
//
// Both build their rendezvous key once, from the attrs the partitioner wrote. _Send hands
// its input to the step's rendezvous and is done at once; _Recv is asynchronous: it asks
// for the value and finishes when the rendezvous answers, so the executor never blocks.
// The received value is copied into the receiving device's memory (DESIGN.md: a tensor is
// copied where it changes device), so a device's memory statistics, and what Recv
// scheduling saves, are its own.
#include "kernels/kernel_registry.h"
#include "kernels/rendezvous.h"

namespace tensoract {
namespace {

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx), key_(RendezvousKeyForKernel(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->rendezvous() != nullptr, NoRendezvousError(*this));
    // A dead input (an untaken branch) is sent as dead: the _Recv's output is dead too.
    ctx->rendezvous()->Send(ctx->step_id(), RendezvousKeyInFrame(key_, ctx->frame_id(), ctx->iter_id()),
                            ctx->input(0), ctx->is_input_dead());
  }
  bool IsExpensive() const override { return false; }
  bool RunsWithDeadInputs() const override { return true; }
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// The value changes device, so it moves into this device's memory: each device's
// statistics count what it holds. One from another process is already there (the data
// plane wrote it into this device's allocator).
class RecvOp : public RecvKernel {
 public:
  using RecvKernel::RecvKernel;

 protected:
  Allocator* ReceiveInto(OpKernelContext* ctx) const override { return ctx->device()->allocator(); }
  void Accept(OpKernelContext* ctx, const std::string&, const Tensor& value) const override {
    Allocator* mine = ctx->device()->allocator();
    ctx->set_output(0, value.buffer_allocator() == mine || value.NumElements() == 0 ? value : value.DeepCopy(mine));
  }
};

REGISTER_KERNEL(Name("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL(Name("_Recv").Device(DEVICE_CPU), RecvOp);

}  // namespace
}  // namespace tensoract
