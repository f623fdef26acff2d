// The optimizers' updates on the GPU: ApplyOp (kernels/training_apply.h) finds, locks and
// checks the variables; these algorithms launch one CUDA kernel each, reading the
// scalars (learning rate, betas) from the GPU's memory.
#include "kernels/gpu/gpu_op_util.h"
#include "kernels/training_apply.h"

namespace tensoract {
namespace gpu {
namespace {

template <class T>
const T* P(const Tensor& t) { return static_cast<const T*>(t.data()); }

template <class T>
struct GpuGradientDescent : GradientDescentSpec {
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool) {
    LaunchApplyGradientDescent<T>(vars[0].in, vars[0].out, P<T>(in[0]), P<T>(in[1]), size, StreamOf(ctx));
    ctx->SetStatus(EndLaunch(ctx));
  }
};

template <class T>
struct GpuMomentum : MomentumSpec {
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool nesterov) {
    LaunchApplyMomentum<T>(vars[0].in, vars[0].out, vars[1].in, vars[1].out, P<T>(in[0]), P<T>(in[1]), P<T>(in[2]),
                           nesterov, size, StreamOf(ctx));
    ctx->SetStatus(EndLaunch(ctx));
  }
};

template <class T>
struct GpuAdam : AdamSpec {
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool nesterov) {
    LaunchApplyAdam<T>(vars[0].in, vars[0].out, vars[1].in, vars[1].out, vars[2].in, vars[2].out, P<T>(in[0]),
                       P<T>(in[1]), P<T>(in[2]), P<T>(in[3]), P<T>(in[4]), P<T>(in[5]), P<T>(in[6]), nesterov, size,
                       StreamOf(ctx));
    ctx->SetStatus(EndLaunch(ctx));
  }
};

// The GPU must be current on this thread before ApplyOp's allocations and launches.
template <class T, template <class> class Algo>
class GpuApplyOp : public ApplyOp<T, Algo, true> {
 public:
  using ApplyOp<T, Algo, true>::ApplyOp;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    ApplyOp<T, Algo, true>::Compute(ctx);
  }
};

#define TA_GPU_APPLY(T)                                                                                    \
  REGISTER_KERNEL(Name("ResourceApplyGradientDescent").Device(DEVICE_GPU).TypeConstraint<T>("T"),         \
                  GpuApplyOp<T, GpuGradientDescent>);                                                     \
  REGISTER_KERNEL(Name("ResourceApplyMomentum").Device(DEVICE_GPU).TypeConstraint<T>("T"),                \
                  GpuApplyOp<T, GpuMomentum>);                                                            \
  REGISTER_KERNEL(Name("ResourceApplyAdam").Device(DEVICE_GPU).TypeConstraint<T>("T"), GpuApplyOp<T, GpuAdam>);
TA_GPU_APPLY(float)
TA_GPU_APPLY(double)

}  // namespace
}  // namespace gpu
}  // namespace tensoract
