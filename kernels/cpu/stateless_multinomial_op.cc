// StatelessMultinomial on the CPU: num_samples class indices per row of logits, drawn with
// TensorFlow's generator (seeded as the other stateless ops, kernels/random/stateless.h)
// and its sampling: per row, the running sum of exp(logit - max finite logit) over the
// finite logits, and for each sample the first class whose running sum exceeds a uniform
// double in [0, 1) (two generator words) times the total.
//
// The rows draw their words one after another from one generator. TensorFlow splits the
// rows among its threads and starts each thread's first row at an offset that depends on
// where the split falls, so its numbers for large inputs depend on its thread count; for
// inputs it does not split (batch * (num_samples * log2(classes) + classes) * 50 below
// 10000 cycles) they are these.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "kernels/kernel_registry.h"
#include "kernels/random/philox.h"
#include "kernels/random/stateless.h"

namespace tensoract {
namespace {

template <class T, class Out>
class StatelessMultinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& num_samples_t = ctx->input(1);
    const Tensor& seed = ctx->input(2);
    OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                errors::InvalidArgument("seed must have shape [2], not ", seed.shape().DebugString(), " (node '",
                                        name(), "')"));
    const uint64_t s0 = seed.dtype() == tensorflow::DT_INT32 ? static_cast<uint64_t>(int64_t{seed.base<int32_t>()[0]})
                                                              : static_cast<uint64_t>(seed.base<int64_t>()[0]);
    const uint64_t s1 = seed.dtype() == tensorflow::DT_INT32 ? static_cast<uint64_t>(int64_t{seed.base<int32_t>()[1]})
                                                              : static_cast<uint64_t>(seed.base<int64_t>()[1]);
    OP_REQUIRES(ctx, logits.dims() == 2,
                errors::InvalidArgument("logits should be a matrix, got shape ", logits.shape().DebugString(),
                                        " (node '", name(), "')"));
    OP_REQUIRES(ctx, num_samples_t.dims() == 0,
                errors::InvalidArgument("num_samples should be a scalar, got shape ",
                                        num_samples_t.shape().DebugString(), " (node '", name(), "')"));
    const int32_t num_samples = num_samples_t.base<int32_t>()[0];
    OP_REQUIRES(ctx, num_samples >= 0,
                errors::InvalidArgument("num_samples should be non-negative, got ", num_samples, " (node '",
                                        name(), "')"));
    const int64_t batch = logits.dim_size(0), classes = logits.dim_size(1);
    OP_REQUIRES(ctx, batch <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("batch_size cannot exceed max int (node '", name(), "')"));
    OP_REQUIRES(ctx, classes <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("num_classes cannot exceed max int (node '", name(), "')"));
    OP_REQUIRES(ctx, classes > 0,
                errors::InvalidArgument("num_classes should be positive, got ", classes, " (node '", name(), "')"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch, num_samples}), &out));
    if (out->NumElements() == 0) return;

    random::Philox gen = random::GeneratorFromSeed(s0, s1);
    random::SingleSample words(&gen);
    std::vector<double> cdf(classes);
    const T* in = logits.base<T>();
    Out* samples = out->base<Out>();
    for (int64_t b = 0; b < batch; ++b) {
      const T* row = in + b * classes;
      // The largest finite logit, for stability (the type's lowest when there is none).
      T max = std::numeric_limits<T>::lowest();
      for (int64_t j = 0; j < classes; ++j) {
        if (Eigen::numext::isfinite(row[j])) max = std::max(max, row[j]);
      }
      const double max_logit = static_cast<double>(max);
      double total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        if (Eigen::numext::isfinite(row[j])) total += std::exp(static_cast<double>(row[j]) - max_logit);
        cdf[j] = total;
      }
      for (int32_t k = 0; k < num_samples; ++k) {
        const uint32_t x0 = words(), x1 = words();
        const double to_find = random::Uint64ToDouble(x0, x1) * total;
        samples[b * num_samples + k] = static_cast<Out>(std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin());
      }
    }
  }
};

#define TA_REGISTER(T)                                                                                   \
  REGISTER_KERNEL(Name("StatelessMultinomial").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint< \
                      int32_t>("output_dtype"),                                                          \
                  StatelessMultinomialOp<T, int32_t>);                                                   \
  REGISTER_KERNEL(Name("StatelessMultinomial").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint< \
                      int64_t>("output_dtype"),                                                          \
                  StatelessMultinomialOp<T, int64_t>);
TA_REGISTER(Eigen::half)
TA_REGISTER(Eigen::bfloat16)
TA_REGISTER(float)
TA_REGISTER(double)
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
