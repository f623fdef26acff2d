// _Send and _Recv on a GPU: the GPU's end of an edge to another device.
//
// What crosses between devices is always host memory: a GPU _Send copies its input to
// pinned host memory on the device-to-host stream and leaves it in the rendezvous when the
// bytes are there (the executor hears of it as an async kernel's completion, never
// blocking); a GPU _Recv takes the host tensor and copies it into the GPU's memory on the
// host-to-device stream, finishing as soon as the copy is queued (the compute stream waits
// for it). Host-memory types (int32 shapes, IsHostMemoryType) pass through uncopied. The
// same pinned tensor is what the data plane sends to another process.
#include "kernels/gpu/gpu_context.h"
#include "kernels/gpu/gpu_device.h"
#include "kernels/kernel_registry.h"
#include "kernels/rendezvous.h"

namespace tensoract {
namespace gpu {
namespace {

class GpuSendOp : public AsyncOpKernel {
 public:
  explicit GpuSendOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(RendezvousKeyForKernel(ctx)) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (ctx->rendezvous() == nullptr) {
      ctx->SetStatus(NoRendezvousError(*this));
      return done();
    }
    Rendezvous* rendezvous = ctx->rendezvous();
    const int64_t step = ctx->step_id();
    std::string key = RendezvousKeyInFrame(key_, ctx->frame_id(), ctx->iter_id());
    const Tensor& value = ctx->input(0);
    if (ctx->is_input_dead() || IsHostMemoryType(value.dtype()) || value.buffer_allocator() == nullptr ||
        value.buffer_allocator()->IsHostMemory()) {
      rendezvous->Send(step, key, value, ctx->is_input_dead());
      return done();
    }
    ContextOf(ctx)->CopyToHost(value, [this, ctx, rendezvous, step, key, done](const Status& s, const Tensor& host) {
      if (s.ok()) {
        rendezvous->Send(step, key, host, false);
      } else {
        ctx->SetStatus(s.WithContext(StrCat("node '", name(), "' sending ", key)));
      }
      done();
    });
  }
  bool RunsWithDeadInputs() const override { return true; }

 private:
  std::string key_;
};

class GpuRecvOp : public RecvKernel {
 public:
  using RecvKernel::RecvKernel;

 protected:
  // From another process the bytes land in pinned memory: one copy to the GPU, unstaged.
  Allocator* ReceiveInto(OpKernelContext* ctx) const override { return ContextOf(ctx)->pinned_allocator(); }
  void Accept(OpKernelContext* ctx, const std::string& key, const Tensor& value) const override {
    if (IsHostMemoryType(value.dtype())) return ctx->set_output(0, value);
    Tensor* out = nullptr;
    Status s = ctx->allocate_output(0, value.shape(), &out);
    if (s.ok()) s = ContextOf(ctx)->CopyToDevice(value, *out);
    if (!s.ok()) ctx->SetStatus(s.WithContext(StrCat("node '", name(), "' receiving ", key)));
  }
};

REGISTER_KERNEL(Name("_Send").Device(DEVICE_GPU), GpuSendOp);
REGISTER_KERNEL(Name("_Recv").Device(DEVICE_GPU), GpuRecvOp);

}  // namespace
}  // namespace gpu
}  // namespace tensoract
