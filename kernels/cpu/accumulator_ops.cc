// Conditional accumulators (graph/ops/accumulator_ops.cc): the resource and its kernels.
//
// An accumulator is a resource of its device, found by shared_name like a queue, so every
// session on the task that names it uses the one accumulator: the workers of
// SyncReplicasOptimizer apply their gradients to it, the chief takes them. Without a
// shared_name it is private to its kernel and its session (kernels/kernel_resource.h).
// A take that must wait is a callback, holding no thread; it is answered, in arrival
// order, by the apply that brings its count, or fails with Cancelled when its step ends.
// The semantics are TensorFlow's (conditional_accumulator_base.cc): a gradient whose local
// step is below the global step is dropped; a take gives the mean (or sum) of what is held,
// resets the count and advances the global step by one; SetGlobalStep may move it either way.
#include <deque>
#include <mutex>

#include "kernels/collective.h"  // MergeElements, DivideElements
#include "kernels/kernel_registry.h"
#include "kernels/kernel_resource.h"
#include "kernels/resource_input.h"
#include "kernels/resource_mgr.h"

namespace tensoract {
namespace {

struct AccumulatorSpec {
  DataType dtype = tensorflow::DT_INVALID;
  PartialTensorShape shape;
  bool mean = true;  // reduction_type MEAN, else SUM

  Status CheckSameAs(const AccumulatorSpec& other, const std::string& name) const {
    if (dtype != other.dtype || !shape.IsIdenticalTo(other.shape) || mean != other.mean) {
      return errors::InvalidArgument("shared accumulator '", name, "' exists as ", Describe(), ", asked for ",
                                     other.Describe());
    }
    return Status::OK();
  }
  std::string Describe() const {
    return StrCat(DataTypeString(dtype), " ", shape.DebugString(), " (", mean ? "MEAN" : "SUM", ")");
  }
};

class ConditionalAccumulator : public ResourceBase, public std::enable_shared_from_this<ConditionalAccumulator> {
 public:
  using TakeDone = std::function<void(const Status&, Tensor)>;

  ConditionalAccumulator(std::string name, AccumulatorSpec spec) : name_(std::move(name)), spec_(std::move(spec)) {}

  const AccumulatorSpec& spec() const { return spec_; }

  Status Apply(int64_t local_step, const Tensor& gradient) {
    std::vector<std::pair<TakeDone, Tensor>> served;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!spec_.shape.IsCompatibleWith(gradient.shape()) ||
          (count_ > 0 && sum_.shape() != gradient.shape())) {
        return errors::InvalidArgument(
            "accumulator '", name_, "': Shape mismatch: expected ",
            count_ > 0 ? sum_.shape().DebugString() : spec_.shape.DebugString(), ", got ",
            gradient.shape().DebugString());
      }
      if (local_step < global_step_) return Status::OK();  // stale: a backup worker's late gradient
      if (count_ == 0) {
        sum_ = gradient.DeepCopy();
      } else {
        MergeElements(spec_.dtype, MergeOp::kAdd, sum_.data(), gradient.data(), gradient.NumElements());
      }
      ++count_;
      served = ServeLocked();
    }
    for (auto& [done, value] : served) done(Status::OK(), std::move(value));
    return Status::OK();
  }

  // Answers `done` once num_required gradients are held and the takes before it are served.
  void Take(int32_t num_required, CancellationManager* cm, TakeDone done) {
    std::vector<std::pair<TakeDone, Tensor>> served;
    bool cancelled = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const uint64_t id = next_take_++;
      CancellationManager::Token token = -1;
      std::weak_ptr<ConditionalAccumulator> weak = shared_from_this();
      cancelled = cm != nullptr && !cm->Register(&token, [weak, id] {
        if (auto self = weak.lock()) self->Cancel(id);
      });
      if (!cancelled) {
        takes_.push_back({id, num_required, cm, token, std::move(done)});
        served = ServeLocked();
      }
    }
    if (cancelled) {
      return done(errors::Cancelled("accumulator '", name_, "': the step was cancelled before its take"), Tensor());
    }
    for (auto& [d, value] : served) d(Status::OK(), std::move(value));
  }

  int32_t count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }

  void SetGlobalStep(int64_t step) {
    std::lock_guard<std::mutex> lock(mu_);
    global_step_ = step;
  }

  std::string DebugString() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return StrCat("conditional accumulator of ", spec_.Describe(), ": ", count_, " gradients for global step ",
                  global_step_, ", ", takes_.size(), " takes waiting",
                  takes_.empty() ? "" : StrCat(" (the first for ", takes_.front().num_required, ")"));
  }

 private:
  struct PendingTake {
    uint64_t id;
    int32_t num_required;
    CancellationManager* cm;
    CancellationManager::Token token;
    TakeDone done;
  };

  // The takes the held gradients can answer now, in order; each resets the count and
  // advances the global step. Their callbacks run after the lock is released.
  std::vector<std::pair<TakeDone, Tensor>> ServeLocked() {
    std::vector<std::pair<TakeDone, Tensor>> served;
    while (!takes_.empty() && count_ >= takes_.front().num_required) {
      PendingTake take = std::move(takes_.front());
      takes_.pop_front();
      // The cancellation may be running now: it finds no take of this id and does nothing.
      if (take.cm != nullptr) take.cm->Deregister(take.token);
      Tensor value = std::move(sum_);
      if (spec_.mean) DivideElements(spec_.dtype, value.data(), value.NumElements(), count_);
      sum_ = Tensor();
      count_ = 0;
      ++global_step_;
      served.emplace_back(std::move(take.done), std::move(value));
    }
    return served;
  }

  void Cancel(uint64_t id) {
    TakeDone done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = takes_.begin(); it != takes_.end(); ++it) {
        if (it->id != id) continue;
        done = std::move(it->done);
        takes_.erase(it);
        break;
      }
    }
    if (done) done(errors::Cancelled("accumulator '", name_, "': the step ended while its take waited"), Tensor());
  }

  const std::string name_;
  const AccumulatorSpec spec_;
  mutable std::mutex mu_;
  Tensor sum_;  // of the count_ gradients held (empty when none)
  int32_t count_ = 0;
  int64_t global_step_ = 0;
  std::deque<PendingTake> takes_;
  uint64_t next_take_ = 0;
};

StatusOr<std::shared_ptr<ConditionalAccumulator>> LookupAccumulator(OpKernelContext* ctx) {
  return LookupResourceInput<ConditionalAccumulator>(ctx, 0, "conditional accumulator");
}

// The dtype attr of an apply or take must be the accumulator's.
Status CheckDtype(const OpKernel& kernel, const ConditionalAccumulator& acc, DataType dtype) {
  if (dtype == acc.spec().dtype) return Status::OK();
  return errors::InvalidArgument("node '", kernel.name(), "' uses ", DataTypeString(dtype), " with an accumulator of ",
                                 acc.spec().Describe());
}

Status ScalarInput(OpKernelContext* ctx, int i, DataType dtype, const char* what) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() == dtype && t.dims() == 0) return Status::OK();
  return errors::InvalidArgument("node '", ctx->op_kernel().name(), "': ", what, " must be a ", DataTypeString(dtype),
                                 " scalar, got ", t.DebugString());
}

class AccumulatorMakerOp : public OpKernel {
 public:
  explicit AccumulatorMakerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string shared_name, reduction;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &spec_.dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &spec_.shape));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reduction_type", &reduction));
    accumulator_.Init(container_, shared_name, name());
    spec_.mean = reduction != "SUM";
    // TensorFlow's CPU kernels accumulate half, float and double; half is not here yet.
    OP_REQUIRES(ctx, spec_.dtype == tensorflow::DT_FLOAT || spec_.dtype == tensorflow::DT_DOUBLE,
                errors::Unimplemented("node '", name(), "': conditional accumulators of ",
                                      DataTypeString(spec_.dtype), " are not supported (float and double are)"));
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    auto acc = accumulator_.GetOrMake(rm, [&](const std::string& name) {
      return std::make_shared<ConditionalAccumulator>(name, spec_);
    });
    OP_REQUIRES_OK(ctx, acc.status());
    OP_REQUIRES_OK(ctx, acc.value()->spec().CheckSameAs(spec_, accumulator_.name()));
    Tensor handle(tensorflow::DT_RESOURCE, TensorShape());
    *handle.base<ResourceHandle>() = accumulator_.Handle(rm);
    ctx->set_output(0, handle);
  }
  bool IsExpensive() const override { return false; }

 private:
  AccumulatorSpec spec_;
  std::string container_;
  KernelResource<ConditionalAccumulator> accumulator_;
};

class ApplyGradientOp : public OpKernel {
 public:
  explicit ApplyGradientOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto acc = LookupAccumulator(ctx);
    OP_REQUIRES_OK(ctx, acc.status());
    OP_REQUIRES_OK(ctx, CheckDtype(*this, *acc.value(), dtype_));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, tensorflow::DT_INT64, "local_step"));
    OP_REQUIRES_OK(ctx, acc.value()->Apply(ctx->input(1).base<int64_t>()[0], ctx->input(2)));
  }

 private:
  DataType dtype_;
};

class TakeGradientOp : public AsyncOpKernel {
 public:
  explicit TakeGradientOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto acc = LookupAccumulator(ctx);
    Status valid = acc.ok() ? CheckDtype(*this, *acc.value(), dtype_) : acc.status();
    if (valid.ok()) valid = ScalarInput(ctx, 1, tensorflow::DT_INT32, "num_required");
    if (valid.ok() && ctx->input(1).base<int32_t>()[0] < 1) {
      valid = errors::InvalidArgument("node '", name(), "': Argument num_required must be positive, but was ",
                                      ctx->input(1).base<int32_t>()[0]);
    }
    if (!valid.ok()) return ctx->SetStatus(valid), done();
    acc.value()->Take(ctx->input(1).base<int32_t>()[0], ctx->cancellation(),
                      [ctx, done](const Status& s, Tensor value) {
                        if (s.ok()) {
                          ctx->set_output(0, std::move(value));
                        } else {
                          ctx->SetStatus(s);
                        }
                        done();
                      });
  }

 private:
  DataType dtype_;
};

class NumAccumulatedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto acc = LookupAccumulator(ctx);
    OP_REQUIRES_OK(ctx, acc.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(acc.value()->count()));
  }
  bool IsExpensive() const override { return false; }
};

class SetGlobalStepOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto acc = LookupAccumulator(ctx);
    OP_REQUIRES_OK(ctx, acc.status());
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, tensorflow::DT_INT64, "new_global_step"));
    acc.value()->SetGlobalStep(ctx->input(1).base<int64_t>()[0]);
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("ResourceConditionalAccumulator").Device(DEVICE_CPU), AccumulatorMakerOp);
REGISTER_KERNEL(Name("ResourceAccumulatorApplyGradient").Device(DEVICE_CPU), ApplyGradientOp);
REGISTER_KERNEL(Name("ResourceAccumulatorTakeGradient").Device(DEVICE_CPU), TakeGradientOp);
REGISTER_KERNEL(Name("ResourceAccumulatorNumAccumulated").Device(DEVICE_CPU), NumAccumulatedOp);
REGISTER_KERNEL(Name("ResourceAccumulatorSetGlobalStep").Device(DEVICE_CPU), SetGlobalStepOp);

}  // namespace
}  // namespace tensoract
