// CountUpTo and ResourceCountUpTo: the epoch counter of string_input_producer(num_epochs).
// The counter is replaced, not written in place: a value a reader already took stays.
#include "kernels/kernel_registry.h"
#include "kernels/variable.h"

namespace tensoract {
namespace {

class CountUpToOp : public OpKernel {
 public:
  explicit CountUpToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("limit", &limit_));
    resource_ = ctx->def().op() == "ResourceCountUpTo";
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Var> var;
    if (resource_) {
      const Tensor& handle = ctx->input(0);
      OP_REQUIRES(ctx, handle.dtype() == tensorflow::DT_RESOURCE && handle.NumElements() == 1,
                  errors::InvalidArgument("node '", name(), "': input 0 is not a variable handle"));
      auto found = ctx->resource_manager()->Lookup<Var>(*handle.base<ResourceHandle>());
      OP_REQUIRES_OK(ctx, found.status().WithContext(StrCat("node '", name(), "'")));
      var = found.value();
    } else {
      var = ctx->input_ref(0);
      OP_REQUIRES(ctx, var != nullptr, errors::Internal("node '", name(), "': input 0 is not a variable reference"));
    }
    std::lock_guard<std::mutex> lock(*var->mu());
    OP_REQUIRES(ctx, var->is_initialized, errors::FailedPrecondition("Attempting to use uninitialized value ", var->name()));
    Tensor* t = var->tensor();
    OP_REQUIRES(ctx, t->dims() == 0 && t->dtype() == output_types()[0],
                errors::InvalidArgument("node '", name(), "': the counter ", var->name(), " must be a ",
                                        DataTypeString(output_types()[0]), " scalar, it is ", t->DebugString()));
    if (t->dtype() == tensorflow::DT_INT32) {
      Count<int32_t>(ctx, t);
    } else {
      Count<int64_t>(ctx, t);
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  template <class T>
  void Count(OpKernelContext* ctx, Tensor* counter) {
    const T before = counter->base<T>()[0];
    OP_REQUIRES(ctx, before < limit_, errors::OutOfRange("Reached limit of ", limit_));
    *counter = Tensor::Scalar<T>(before + 1);
    ctx->set_output(0, Tensor::Scalar<T>(before));
  }
  int64_t limit_ = 0;
  bool resource_ = false;
};

REGISTER_KERNEL(Name("CountUpTo").Device(DEVICE_CPU), CountUpToOp);
REGISTER_KERNEL(Name("ResourceCountUpTo").Device(DEVICE_CPU), CountUpToOp);

}  // namespace
}  // namespace tensoract
