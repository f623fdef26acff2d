// The queue kernels (graph/ops/data_flow_ops.cc). The queue-making kernels find or make
// their queue in the device's resources: by shared_name, or else a queue private to the
// kernel, which every step of its session uses and which goes with the session
// (kernels/kernel_resource.h); the others look it up by handle and call it. Enqueue, dequeue and close are
// asynchronous: the queue answers when it can, and the executor's thread is never held.
#include "kernels/kernel_registry.h"
#include "kernels/kernel_resource.h"
#include "kernels/queue.h"
#include "kernels/resource_input.h"

namespace tensoract {
namespace {

class QueueMakerOp : public OpKernel {
 public:
  QueueMakerOp(OpKernelConstruction* ctx, QueueSpec::Kind kind) : OpKernel(ctx) {
    spec_.kind = kind;
    std::string shared_name;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name));
    queue_.Init(container_, shared_name, name());
    OP_REQUIRES_OK(ctx, ctx->GetAttr("component_types", &spec_.component_types));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shapes", &spec_.shapes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("capacity", &spec_.capacity));
    if (kind == QueueSpec::Kind::kRandomShuffle) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("min_after_dequeue", &spec_.min_after_dequeue));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("seed", &spec_.seed));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("seed2", &spec_.seed2));
      OP_REQUIRES(ctx, spec_.min_after_dequeue >= 0,
                  errors::InvalidArgument("node '", name(), "': min_after_dequeue ", spec_.min_after_dequeue,
                                          " must be >= 0"));
    }
    if (kind == QueueSpec::Kind::kPriority) {
      // The priority is an implicit first component: an int64 scalar.
      spec_.component_types.insert(spec_.component_types.begin(), tensorflow::DT_INT64);
      OP_REQUIRES(ctx, spec_.shapes.size() + 1 == spec_.component_types.size(),
                  errors::InvalidArgument("node '", name(), "': a PriorityQueue needs one shape per component (",
                                          spec_.component_types.size() - 1, "), got ", spec_.shapes.size()));
      spec_.shapes.insert(spec_.shapes.begin(), PartialTensorShape(std::vector<int64_t>{}));
    }
    OP_REQUIRES(ctx, spec_.shapes.empty() || spec_.shapes.size() == spec_.component_types.size(),
                errors::InvalidArgument("node '", name(), "': ", spec_.shapes.size(), " shapes for ",
                                        spec_.component_types.size(), " component types"));
    for (const PartialTensorShape& shape : spec_.shapes) {
      // Only a padding queue holds elements of partly known shapes (TensorFlow's rule).
      OP_REQUIRES(ctx, kind == QueueSpec::Kind::kPaddingFifo || shape.IsFullyDefined(),
                  errors::InvalidArgument("node '", name(), "': a ", spec_.KindName(),
                                          " needs fully defined shapes, got ", shape.DebugString()));
    }
    OP_REQUIRES(ctx, kind != QueueSpec::Kind::kPaddingFifo || !spec_.shapes.empty(),
                errors::InvalidArgument("node '", name(), "': a PaddingFIFOQueue needs shapes (-1 for the "
                                        "dimensions it pads)"));
    OP_REQUIRES(ctx, spec_.capacity != 0,
                errors::InvalidArgument("node '", name(), "': capacity 0 can hold nothing"));
  }

  void Compute(OpKernelContext* ctx) override {
    const QueueMaker& maker = ctx->device()->queue_maker();
    OP_REQUIRES(ctx, static_cast<bool>(maker),
                errors::FailedPrecondition("node '", name(), "': queues run inside a worker's step; device ",
                                           ctx->device()->name(), " has no queue runtime"));
    ResourceMgr* rm = ctx->resource_manager();
    auto queue = queue_.GetOrMake(rm, [&](const std::string& name) {
      QueueSpec named = spec_;
      named.name = name;
      return maker(named);
    });
    OP_REQUIRES_OK(ctx, queue.status());
    OP_REQUIRES_OK(ctx, queue.value()->spec().CheckSameAs(spec_));
    Tensor handle(tensorflow::DT_RESOURCE, TensorShape());
    *handle.base<ResourceHandle>() = queue_.Handle(rm);
    ctx->set_output(0, handle);
  }
  bool IsExpensive() const override { return false; }

 private:
  QueueSpec spec_;
  std::string container_;
  KernelResource<QueueInterface> queue_;
};

template <QueueSpec::Kind kKind>
class QueueOp : public QueueMakerOp {
 public:
  explicit QueueOp(OpKernelConstruction* ctx) : QueueMakerOp(ctx, kKind) {}
};

StatusOr<std::shared_ptr<QueueInterface>> LookupQueue(OpKernelContext* ctx) {
  return LookupResourceInput<QueueInterface>(ctx, 0, "queue");
}

QueueTuple ComponentsFrom(OpKernelContext* ctx, int first) {
  QueueTuple components;
  for (int i = first; i < ctx->num_inputs(); ++i) components.push_back(ctx->input(i));
  return components;
}

class EnqueueOp : public AsyncOpKernel {
 public:
  EnqueueOp(OpKernelConstruction* ctx, bool many) : AsyncOpKernel(ctx), many_(many) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto queue = LookupQueue(ctx);
    if (!queue.ok()) return ctx->SetStatus(queue.status()), done();
    const QueueSpec& spec = queue.value()->spec();
    QueueTuple components = ComponentsFrom(ctx, 1);
    Status valid = many_ ? spec.ValidateBatch(components) : spec.ValidateElement(components);
    if (!valid.ok()) return ctx->SetStatus(valid.WithContext(StrCat("node '", name(), "'"))), done();
    std::vector<QueueElement> elements;
    if (many_) {
      elements = SplitBatch(std::move(components));
    } else {
      elements.push_back(WholeElement(std::move(components)));
    }
    queue.value()->Enqueue(std::move(elements), ctx->cancellation(), [ctx, done](const Status& s) {
      ctx->SetStatus(s);
      done();
    });
  }

 private:
  bool many_;
};

struct EnqueueOneOp : EnqueueOp {
  explicit EnqueueOneOp(OpKernelConstruction* ctx) : EnqueueOp(ctx, false) {}
};
struct EnqueueManyOp : EnqueueOp {
  explicit EnqueueManyOp(OpKernelConstruction* ctx) : EnqueueOp(ctx, true) {}
};

class DequeueOp : public AsyncOpKernel {
 public:
  // num_from_input: DequeueMany/UpTo's n (input 1); else one element.
  DequeueOp(OpKernelConstruction* ctx, bool num_from_input, bool allow_small_batch)
      : AsyncOpKernel(ctx), num_from_input_(num_from_input), allow_small_batch_(allow_small_batch) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto queue = LookupQueue(ctx);
    if (!queue.ok()) return ctx->SetStatus(queue.status()), done();
    const QueueSpec& spec = queue.value()->spec();
    if (spec.component_types != output_types()) {
      return ctx->SetStatus(errors::InvalidArgument("node '", name(), "' dequeues ",
                                                    DataTypeVectorString(output_types()), " from ",
                                                    spec.Describe(), " of ",
                                                    DataTypeVectorString(spec.component_types))),
             done();
    }
    int64_t num = -1;
    if (num_from_input_) {
      const Tensor& n = ctx->input(1);
      if (n.dims() != 0 || n.dtype() != tensorflow::DT_INT32 || n.base<int32_t>()[0] < 0) {
        return ctx->SetStatus(errors::InvalidArgument("node '", name(), "': n must be a non-negative int32 scalar, got ",
                                                      n.DebugString())),
               done();
      }
      num = n.base<int32_t>()[0];
      if (spec.kind != QueueSpec::Kind::kPaddingFifo && spec.shapes.empty()) {
        return ctx->SetStatus(errors::InvalidArgument(
                   "node '", name(), "': ", spec.Describe(),
                   "'s DequeueMany and DequeueUpTo require the components to have specified shapes.")),
               done();
      }
    }
    queue.value()->Dequeue(num, allow_small_batch_, ctx->cancellation(),
                           [ctx, done](const Status& s, QueueTuple tuple) {
                             if (!s.ok()) {
                               ctx->SetStatus(s);
                             } else {
                               for (size_t i = 0; i < tuple.size(); ++i) ctx->set_output(static_cast<int>(i), tuple[i]);
                             }
                             done();
                           });
  }

 private:
  bool num_from_input_, allow_small_batch_;
};

struct DequeueOneOp : DequeueOp {
  explicit DequeueOneOp(OpKernelConstruction* ctx) : DequeueOp(ctx, false, false) {}
};
struct DequeueManyOp : DequeueOp {
  explicit DequeueManyOp(OpKernelConstruction* ctx) : DequeueOp(ctx, true, false) {}
};
struct DequeueUpToOp : DequeueOp {
  explicit DequeueUpToOp(OpKernelConstruction* ctx) : DequeueOp(ctx, true, true) {}
};

class QueueCloseOp : public AsyncOpKernel {
 public:
  explicit QueueCloseOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("cancel_pending_enqueues", &cancel_pending_enqueues_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto queue = LookupQueue(ctx);
    if (!queue.ok()) return ctx->SetStatus(queue.status()), done();
    queue.value()->Close(cancel_pending_enqueues_, [ctx, done](const Status& s) {
      ctx->SetStatus(s);
      done();
    });
  }

 private:
  bool cancel_pending_enqueues_ = false;
};

class QueueSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto queue = LookupQueue(ctx);
    OP_REQUIRES_OK(ctx, queue.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(queue.value()->size())));
  }
  bool IsExpensive() const override { return false; }
};

class QueueIsClosedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto queue = LookupQueue(ctx);
    OP_REQUIRES_OK(ctx, queue.status());
    ctx->set_output(0, Tensor::Scalar<bool>(queue.value()->is_closed()));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("FIFOQueueV2").Device(DEVICE_CPU), QueueOp<QueueSpec::Kind::kFifo>);
REGISTER_KERNEL(Name("PaddingFIFOQueueV2").Device(DEVICE_CPU), QueueOp<QueueSpec::Kind::kPaddingFifo>);
REGISTER_KERNEL(Name("RandomShuffleQueueV2").Device(DEVICE_CPU), QueueOp<QueueSpec::Kind::kRandomShuffle>);
REGISTER_KERNEL(Name("PriorityQueueV2").Device(DEVICE_CPU), QueueOp<QueueSpec::Kind::kPriority>);
REGISTER_KERNEL(Name("QueueEnqueueV2").Device(DEVICE_CPU), EnqueueOneOp);
REGISTER_KERNEL(Name("QueueEnqueueManyV2").Device(DEVICE_CPU), EnqueueManyOp);
REGISTER_KERNEL(Name("QueueDequeueV2").Device(DEVICE_CPU), DequeueOneOp);
REGISTER_KERNEL(Name("QueueDequeueManyV2").Device(DEVICE_CPU), DequeueManyOp);
REGISTER_KERNEL(Name("QueueDequeueUpToV2").Device(DEVICE_CPU), DequeueUpToOp);
REGISTER_KERNEL(Name("QueueCloseV2").Device(DEVICE_CPU), QueueCloseOp);
REGISTER_KERNEL(Name("QueueSizeV2").Device(DEVICE_CPU), QueueSizeOp);
REGISTER_KERNEL(Name("QueueIsClosedV2").Device(DEVICE_CPU), QueueIsClosedOp);

}  // namespace
}  // namespace tensoract
