#include "kernels/rendezvous.h"

#include "graph/rendezvous_key.h"

namespace tensoract {

StatusOr<std::string> RendezvousKeyOf(const NodeDef& def) {
  std::string send_device, recv_device, tensor_name;
  int64_t incarnation = 0;
  Status s = GetNodeAttr(def, "send_device", &send_device);
  if (s.ok()) s = GetNodeAttr(def, "recv_device", &recv_device);
  if (s.ok()) s = GetNodeAttr(def, "tensor_name", &tensor_name);
  if (s.ok()) s = GetNodeAttr(def, "send_device_incarnation", &incarnation);
  if (!s.ok()) return s.WithContext(StrCat("the rendezvous key of node '", def.name(), "' (op '", def.op(), "')"));
  return RendezvousKey(send_device, incarnation, recv_device, tensor_name);
}

std::string RendezvousKeyInFrame(const std::string& root_key, int64_t frame_id, int64_t iter_id) {
  if (frame_id == 0 && iter_id == 0) return root_key;
  // The key ends in ";<frame>:<iter>"; only that part changes.
  const size_t last = root_key.rfind(';');
  return StrCat(root_key.substr(0, last + 1), frame_id, ":", iter_id);
}

std::string RendezvousKeyForKernel(OpKernelConstruction* ctx) {
  auto key = RendezvousKeyOf(ctx->def());
  if (!key.ok()) ctx->SetStatus(key.status());
  return key.ok() ? key.value() : "";
}

Status NoRendezvousError(const OpKernel& k) {
  return errors::FailedPrecondition("node '", k.name(), "' (op '", k.type_string(),
                                    "') needs a rendezvous, but it runs outside a worker's step");
}

void RecvKernel::ComputeAsync(OpKernelContext* ctx, DoneCallback done) {
  if (ctx->rendezvous() == nullptr) {
    ctx->SetStatus(NoRendezvousError(*this));
    return done();
  }
  std::string key = RendezvousKeyInFrame(key_, ctx->frame_id(), ctx->iter_id());
  ctx->rendezvous()->RecvAsync(
      ctx->step_id(), key, ReceiveInto(ctx),
      [this, ctx, key, done = std::move(done)](const Status& s, const Tensor& value, bool is_dead) {
        if (!s.ok()) {
          ctx->SetStatus(s);
        } else if (is_dead) {
          // A dead value (an untaken branch): the output stays unset, which makes it dead here too.
        } else if (value.dtype() != output_types()[0]) {
          ctx->SetStatus(errors::Internal("node '", name(), "' expects ", DataTypeString(output_types()[0]), " but ",
                                          key, " carried ", DataTypeString(value.dtype())));
        } else {
          Accept(ctx, key, value);
        }
        done();
      });
}

}  // namespace tensoract
