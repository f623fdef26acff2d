// The collective kernels (graph/ops/collective_ops.cc): each reads its group's key, size and
// instance from its scalar inputs and hands its member's part to the worker's collective
// executor (kernels/collective.h), finishing when the group's result (or an error) comes
// back. Asynchronous: the executor's thread never waits on the other members. While it
// waits, the op is registered with the step's cancellation, so a step aborted elsewhere
// (a failed task, a deadline) ends it and its group's round with it.
#include <memory>

#include "kernels/cancellation.h"
#include "kernels/collective.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

StatusOr<int> ScalarInt32(const Tensor& t, const char* what) {
  if (t.dtype() != tensorflow::DT_INT32 || t.NumElements() != 1) {
    return errors::InvalidArgument(what, " must be an int32 scalar, got ", t.DebugString());
  }
  return t.base<int32_t>()[0];
}

StatusOr<TensorShape> ShapeFrom(const Tensor& t) {
  if (t.dims() != 1) return errors::InvalidArgument("shape must be a vector, got ", t.DebugString());
  TensorShape shape;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const int64_t d = t.dtype() == tensorflow::DT_INT64 ? t.base<int64_t>()[i] : t.base<int32_t>()[i];
    if (d < 0) return errors::InvalidArgument("shape has a negative dimension: ", t.DebugString());
    shape.AddDim(d);
  }
  return shape;
}

class CollectiveOp : public AsyncOpKernel {
 public:
  CollectiveOp(OpKernelConstruction* ctx, CollectiveKind kind) : AsyncOpKernel(ctx) {
    params_.kind = kind;
    params_.node = name();
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &params_.dtype));
    std::string hint;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("communication_hint", &hint));
    params_.force_ring = hint == "ring";
    float timeout = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("timeout_seconds", &timeout));
    params_.timeout_seconds = timeout;
    if (kind == CollectiveKind::kAllReduce) {
      std::string merge, final_op;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("merge_op", &merge));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("final_op", &final_op));
      auto m = ParseMergeOp(merge);
      OP_REQUIRES_OK(ctx, m.status());
      params_.merge_op = m.value();
      auto f = ParseFinalOp(final_op);
      OP_REQUIRES_OK(ctx, f.status());
      params_.final_op = f.value();
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto fail = [&](const Status& s) {
      ctx->SetStatus(s.WithContext(StrCat("node '", name(), "' (", type_string(), ")")));
      done();
    };
    CollectiveExecutor* collectives = ctx->collectives();
    if (collectives == nullptr) return fail(errors::FailedPrecondition("collective ops run only in a worker's step"));
    CollectiveParams params = params_;
    params.device = ctx->device()->name();
    // Inputs: (input,) group_size, group_key, instance_key[, shape].
    const int first = params.kind == CollectiveKind::kBroadcastRecv ? 0 : 1;
    auto size = ScalarInt32(ctx->input(first), "group_size");
    if (!size.ok()) return fail(size.status());
    auto group = ScalarInt32(ctx->input(first + 1), "group_key");
    if (!group.ok()) return fail(group.status());
    auto instance = ScalarInt32(ctx->input(first + 2), "instance_key");
    if (!instance.ok()) return fail(instance.status());
    if (size.value() < 1) return fail(errors::InvalidArgument("group_size must be positive, got ", size.value()));
    params.group_size = size.value();
    params.group_key = group.value();
    params.instance_key = instance.value();
    Tensor input;
    if (params.kind == CollectiveKind::kBroadcastRecv) {
      auto shape = ShapeFrom(ctx->input(3));
      if (!shape.ok()) return fail(shape.status());
      params.shape = shape.value();
    } else {
      input = ctx->input(0);
      params.shape = input.shape();
      if (params.kind == CollectiveKind::kGather && input.dims() == 0) {
        return fail(errors::InvalidArgument("CollectiveGatherV2 needs an input of rank 1 or more, got a scalar"));
      }
    }

    // The step's cancellation ends the wait for the other members.
    CancellationManager* cm = ctx->cancellation();
    auto token = std::make_shared<CancellationManager::Token>(-1);
    if (cm != nullptr && !cm->Register(token.get(), [collectives, params] {
          collectives->Cancel(params, errors::Cancelled("the step running ", params.node, " was cancelled"));
        })) {
      return fail(errors::Cancelled("the step was cancelled before ", name(), " started"));
    }
    const std::string context = StrCat("node '", name(), "' (", type_string(), ")");
    collectives->Run(params, input, [ctx, done, cm, token, context](const Status& s, const Tensor& result) {
      if (cm != nullptr) cm->Deregister(*token);
      if (s.ok()) {
        ctx->set_output(0, result);
      } else {
        ctx->SetStatus(s.WithContext(context));
      }
      done();
    });
  }

 private:
  CollectiveParams params_;
};

struct CollectiveReduceOp : CollectiveOp {
  explicit CollectiveReduceOp(OpKernelConstruction* ctx) : CollectiveOp(ctx, CollectiveKind::kAllReduce) {}
};
struct CollectiveGatherOp : CollectiveOp {
  explicit CollectiveGatherOp(OpKernelConstruction* ctx) : CollectiveOp(ctx, CollectiveKind::kGather) {}
};
struct CollectiveBcastSendOp : CollectiveOp {
  explicit CollectiveBcastSendOp(OpKernelConstruction* ctx) : CollectiveOp(ctx, CollectiveKind::kBroadcastSend) {}
};
struct CollectiveBcastRecvOp : CollectiveOp {
  explicit CollectiveBcastRecvOp(OpKernelConstruction* ctx) : CollectiveOp(ctx, CollectiveKind::kBroadcastRecv) {}
};

// The group's key, size and instance (and a receiver's shape) are read on the host.
REGISTER_KERNEL(Name("CollectiveReduceV2").Device(DEVICE_CPU), CollectiveReduceOp);
REGISTER_KERNEL(Name("CollectiveGatherV2").Device(DEVICE_CPU), CollectiveGatherOp);
REGISTER_KERNEL(Name("CollectiveBcastSendV2").Device(DEVICE_CPU), CollectiveBcastSendOp);
REGISTER_KERNEL(Name("CollectiveBcastRecvV2").Device(DEVICE_CPU), CollectiveBcastRecvOp);

}  // namespace
}  // namespace tensoract
