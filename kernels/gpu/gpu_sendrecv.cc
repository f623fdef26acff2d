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

class GpuRecvOp : public AsyncOpKernel {
 public:
  explicit GpuRecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(RendezvousKeyForKernel(ctx)) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (ctx->rendezvous() == nullptr) {
      ctx->SetStatus(NoRendezvousError(*this));
      return done();
    }
    std::string key = RendezvousKeyInFrame(key_, ctx->frame_id(), ctx->iter_id());
    // From another process the bytes land in pinned memory: one copy to the GPU, unstaged.
    ctx->rendezvous()->RecvAsync(
        ctx->step_id(), key, ContextOf(ctx)->pinned_allocator(), [this, ctx, key, done = std::move(done)](const Status& s, const Tensor& value, bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (is_dead) {
            // A dead value: the output stays unset, so it is dead here too.
          } else if (value.dtype() != output_types()[0]) {
            ctx->SetStatus(errors::Internal("node '", name(), "' expects ", DataTypeString(output_types()[0]), " but ",
                                            key, " carried ", DataTypeString(value.dtype())));
          } else if (IsHostMemoryType(value.dtype())) {
            ctx->set_output(0, value);
          } else {
            Tensor* out = nullptr;
            Status a = ctx->allocate_output(0, value.shape(), &out);
            if (a.ok()) a = ContextOf(ctx)->CopyToDevice(value, *out);
            if (!a.ok()) ctx->SetStatus(a.WithContext(StrCat("node '", name(), "' receiving ", key)));
          }
          done();
        });
  }
  bool CanOutputDead() const override { return true; }
  bool RunsWithDeadInputs() const override { return true; }

 private:
  std::string key_;
};

REGISTER_KERNEL(Name("_Send").Device(DEVICE_GPU), GpuSendOp);
REGISTER_KERNEL(Name("_Recv").Device(DEVICE_GPU), GpuRecvOp);

}  // namespace
}  // namespace gpu
}  // namespace tensoract
