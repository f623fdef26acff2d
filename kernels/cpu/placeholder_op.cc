// Placeholder: only ever runs when the client did not feed it, which is an error that
// names it (the feed rewrite replaces fed placeholders before they can run).
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype = tensorflow::DT_INVALID;
    PartialTensorShape shape;
    ctx->GetAttr("dtype", &dtype);
    ctx->GetAttr("shape", &shape);
    message_ = StrCat("you must feed a value for placeholder tensor '", name(), "' with dtype ",
                      DataTypeString(dtype), shape.unknown_rank() ? "" : " and shape " + shape.DebugString());
  }
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(errors::InvalidArgument(message_)); }
  bool IsExpensive() const override { return false; }

 private:
  std::string message_;
};

REGISTER_KERNEL(Name("Placeholder").Device(DEVICE_CPU), PlaceholderOp);

}  // namespace
}  // namespace tensoract
