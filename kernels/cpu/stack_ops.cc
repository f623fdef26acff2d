// Stacks (StackV2, StackPushV2, StackPopV2, StackCloseV2): what a while loop's forward
// pass saves for its gradient. A stack is a resource in its step's container on the
// device (StepContainerName), so it goes away with the step (the executor drops the
// container when the step ends) or with StackCloseV2. Pushes and pops lock the stack: a
// loop's iterations may run on several threads.
#include <atomic>
#include <mutex>

#include "kernels/kernel_registry.h"
#include "kernels/resource_input.h"
#include "kernels/resource_mgr.h"

namespace tensoract {
namespace {

class Stack : public ResourceBase {
 public:
  Stack(std::string name, DataType elem_type, int64_t max_size)
      : name_(std::move(name)), elem_type_(elem_type), max_size_(max_size) {}

  // `dead`: a dead value (from an untaken branch), which Pop gives back dead.
  Status Push(const Tensor& value, bool dead = false) {
    std::lock_guard<std::mutex> lock(mu_);
    TA_RETURN_IF_ERROR(CheckOpen());
    if (!dead && value.dtype() != elem_type_) {
      return errors::InvalidArgument("Stack[", name_, "] holds ", DataTypeString(elem_type_), " but was pushed ",
                                     DataTypeString(value.dtype()));
    }
    if (max_size_ > 0 && static_cast<int64_t>(values_.size()) >= max_size_) {
      return errors::InvalidArgument("Stack[", name_, "] overflowed its max_size (", max_size_, ")");
    }
    values_.push_back({dead ? Tensor() : value, dead});
    return Status::OK();
  }
  // The last value pushed; *dead says whether it was a dead one.
  StatusOr<Tensor> Pop(bool* dead) {
    std::lock_guard<std::mutex> lock(mu_);
    TA_RETURN_IF_ERROR(CheckOpen());
    if (values_.empty()) return errors::InvalidArgument("Stack[", name_, "] is empty.");
    Entry e = std::move(values_.back());
    values_.pop_back();
    *dead = e.dead;
    return e.value;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    values_.clear();
  }
  DataType elem_type() const { return elem_type_; }
  std::string DebugString() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return StrCat("stack of ", DataTypeString(elem_type_), ", ", values_.size(), " values", closed_ ? ", closed" : "");
  }

 private:
  Status CheckOpen() const {
    return closed_ ? errors::InvalidArgument("Stack[", name_, "] has already been closed.") : Status::OK();
  }

  const std::string name_;
  const DataType elem_type_;
  const int64_t max_size_;
  struct Entry {
    Tensor value;
    bool dead;
  };
  mutable std::mutex mu_;
  std::vector<Entry> values_;
  bool closed_ = false;
};

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("elem_type", &elem_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("stack_name", &stack_name_));
    if (stack_name_.empty()) stack_name_ = name();
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& max_size = ctx->input(0);
    OP_REQUIRES(ctx, max_size.dims() == 0,
                errors::InvalidArgument("node '", name(), "': max_size must be a scalar, but it has shape ",
                                        max_size.shape().DebugString()));
    // A new stack every time the node runs (in every iteration of a loop around it).
    static std::atomic<int64_t> counter{0};
    const std::string unique = StrCat(stack_name_, "_", counter++);
    const std::string container = StepContainerName(ctx->step_id());
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES_OK(ctx, rm->Create<Stack>(container, unique,
                                          std::make_shared<Stack>(unique, elem_type_, max_size.base<int32_t>()[0])));
    Tensor handle(tensorflow::DT_RESOURCE, TensorShape());
    *handle.base<ResourceHandle>() = rm->MakeHandle<Stack>(container, unique);
    ctx->set_output(0, handle);
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType elem_type_ = tensorflow::DT_INVALID;
  std::string stack_name_;
};

StatusOr<std::shared_ptr<Stack>> LookupStack(OpKernelContext* ctx) {
  return LookupResourceInput<Stack>(ctx, 0, "stack");
}

// With the attr `_push_dead` (set by while loops' gradients, graph/gradients/
// while_grad.cc) the push runs even when its value is dead, and pushes a dead marker, so
// that the pops of the backward loop stay in step with the forward iterations whatever
// branches they took; without a live handle (an iteration that does not run the body) it
// does nothing. Its output is then dead. Without the attr, a dead input skips the push,
// as in TensorFlow.
class StackPushOp : public OpKernel {
 public:
  explicit StackPushOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (!ctx->GetAttr("_push_dead", &push_dead_).ok()) push_dead_ = false;
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& handle = ctx->input(0);
    if (ctx->is_input_dead() && (handle.dtype() != tensorflow::DT_RESOURCE || handle.NumElements() != 1)) return;
    auto stack = LookupStack(ctx);
    OP_REQUIRES_OK(ctx, stack.status());
    OP_REQUIRES_OK(ctx, stack.value()->Push(ctx->input(1), ctx->is_input_dead()));
    if (!ctx->is_input_dead()) ctx->set_output(0, ctx->input(1));
  }
  bool IsExpensive() const override { return false; }
  bool RunsWithDeadInputs() const override { return push_dead_; }
  bool CanOutputDead() const override { return push_dead_; }

 private:
  bool push_dead_ = false;
};

class StackPopOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto stack = LookupStack(ctx);
    OP_REQUIRES_OK(ctx, stack.status());
    OP_REQUIRES(ctx, stack.value()->elem_type() == output_types()[0],
                errors::InvalidArgument("node '", name(), "' pops ", DataTypeString(output_types()[0]),
                                        " from a stack of ", DataTypeString(stack.value()->elem_type())));
    bool dead = false;
    auto value = stack.value()->Pop(&dead);
    OP_REQUIRES_OK(ctx, value.status());
    if (!dead) ctx->set_output(0, value.value());  // a dead marker pops as a dead value
  }
  bool IsExpensive() const override { return false; }
  bool CanOutputDead() const override { return true; }
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto stack = LookupStack(ctx);
    OP_REQUIRES_OK(ctx, stack.status());
    stack.value()->Close();
    const ResourceHandle& h = *ctx->input(0).base<ResourceHandle>();
    ctx->resource_manager()->Delete<Stack>(h.container(), h.name()).IgnoreError();
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("StackV2").Device(DEVICE_CPU), StackOp);
REGISTER_KERNEL(Name("StackPushV2").Device(DEVICE_CPU), StackPushOp);
REGISTER_KERNEL(Name("StackPopV2").Device(DEVICE_CPU), StackPopOp);
REGISTER_KERNEL(Name("StackCloseV2").Device(DEVICE_CPU), StackCloseOp);

}  // namespace
}  // namespace tensoract
