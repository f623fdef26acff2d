// Assert on the CPU: fails the step when its condition is false, with TensorFlow's
// message: "assertion failed: [first data] [second data] ...", each value summarised to
// `summarize` elements.
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    OP_REQUIRES(ctx, cond.dtype() == tensorflow::DT_BOOL && cond.NumElements() == 1,
                errors::InvalidArgument("node '", name(), "': the condition must be a single bool, got ",
                                        cond.DebugString()));
    if (cond.base<bool>()[0]) return;
    std::string message = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      message += StrCat("[", t.dtype() == tensorflow::DT_STRING && t.NumElements() == 1 ? t.base<std::string>()[0]
                                                                                         : t.SummarizeValue(summarize_),
                        "]", i + 1 < ctx->num_inputs() ? " " : "");
    }
    ctx->SetStatus(errors::InvalidArgument(message, " (node '", name(), "')"));
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t summarize_ = 3;
};

REGISTER_KERNEL(Name("Assert").Device(DEVICE_CPU), AssertOp);

}  // namespace
}  // namespace tensoract
