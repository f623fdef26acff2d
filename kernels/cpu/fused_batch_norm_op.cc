// FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and their gradients on the CPU, x of
// float (V2 and V3 also half and bfloat16, computed in float as TensorFlow's kernels do:
// x and y_backprop widened, y and x_backprop rounded once), any of the layouts the op allows (v1 and V2: NHWC, NCHW; V3 also NDHWC, NCDHW): the
// channel is the last dimension (NHWC, NDHWC) or dimension 1 (NCHW, NCDHW). Statistics are
// per channel over every other dimension, computed as TensorFlow's CPU kernel does: the
// mean, then the mean of the squared centred values (the variance the gradient reuses);
// batch_variance is that times n/(n-1), and with exponential_avg_factor f both running
// statistics are (1-f)*old + f*new. Inference normalises with the given mean and variance
// and returns them. As TensorFlow's CPU kernel: an empty x has NaN statistics; training
// with f = 1 reads no running statistics (Keras passes them empty); V3's reserve_space_3 is
// a scalar zero, and the gradient's last two reserve spaces are empty. The versions differ
// only in that sixth output and the gradient's sixth input (which the CPU never reads), so
// one kernel class serves all three: it writes reserve_space_3 where the op has it.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "kernels/cpu/strided_copy.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Where the channel of element i is: (i / inner) % channels.
struct Layout {
  int64_t channels = 0, inner = 1, count = 0;  // count: elements per channel
  int64_t Channel(int64_t i) const { return (i / inner) % channels; }
};

Status MakeLayout(const OpKernel& op, const Tensor& x, const std::string& data_format, Layout* l) {
  const int rank = data_format.size() == 5 ? 5 : 4;
  if (x.dims() != rank) {
    return errors::InvalidArgument(NodePrefix(op), "input must be ", rank, "-dimensional", x.shape().DebugString());
  }
  const bool channel_first = data_format[1] == 'C';
  const int c = channel_first ? 1 : rank - 1;
  l->channels = x.dim_size(c);
  l->inner = 1;
  for (int d = c + 1; d < rank; ++d) l->inner *= x.dim_size(d);
  l->count = l->channels == 0 ? 0 : x.NumElements() / l->channels;
  return Status::OK();
}

Status CheckVector(const OpKernel& op, const Tensor& t, const char* what, int64_t channels) {
  if (t.dims() != 1) return errors::InvalidArgument(NodePrefix(op), what, " must be 1-dimensional", t.shape().DebugString());
  if (t.dim_size(0) != channels) {
    return errors::InvalidArgument(NodePrefix(op), what, " must have the same number of elements as the channels of x, got ",
                                   t.dim_size(0), " and ", channels);
  }
  return Status::OK();
}

template <class T>
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("epsilon", &epsilon_);
    if (s.ok()) s = ctx->GetAttr("exponential_avg_factor", &factor_);
    if (s.ok()) s = ctx->GetAttr("data_format", &data_format_);
    if (s.ok()) s = ctx->GetAttr("is_training", &is_training_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Layout l;
    OP_REQUIRES_OK(ctx, MakeLayout(*this, x, data_format_, &l));
    const char* names[] = {"scale", "offset", "mean", "variance"};
    // Training with f = 1 replaces the running statistics without reading them: only their
    // rank is checked.
    const bool reads_old = !is_training_ || factor_ != 1.0f;
    for (int i = 1; i < 5; ++i) {
      if (i >= 3 && !reads_old) {
        OP_REQUIRES(ctx, ctx->input(i).dims() == 1,
                    errors::InvalidArgument(NodePrefix(*this), names[i - 1], " must be 1-dimensional",
                                            ctx->input(i).shape().DebugString()));
        continue;
      }
      OP_REQUIRES_OK(ctx, CheckVector(*this, ctx->input(i), names[i - 1], l.channels));
    }
    const int64_t C = l.channels;
    const T* in = x.base<T>();
    const float* scale = ctx->input(1).base<float>();
    const float* offset = ctx->input(2).base<float>();
    std::vector<float> mean(C, 0.f), var(C, 0.f);
    if (is_training_) {
      // Per channel sums in double, rounded once: the mean and the centred variance.
      std::vector<double> sum(C, 0.0), sq(C, 0.0);
      for (int64_t i = 0; i < x.NumElements(); ++i) sum[l.Channel(i)] += static_cast<float>(in[i]);
      for (int64_t c = 0; c < C; ++c) mean[c] = static_cast<float>(sum[c] / static_cast<double>(l.count));
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        const double d = static_cast<double>(static_cast<float>(in[i]) - mean[l.Channel(i)]);
        sq[l.Channel(i)] += d * d;
      }
      for (int64_t c = 0; c < C; ++c) var[c] = static_cast<float>(sq[c] / static_cast<double>(l.count));
    } else {
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = ctx->input(3).base<float>()[c];
        var[c] = ctx->input(4).base<float>()[c];
      }
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    std::vector<float> factor(C);
    for (int64_t c = 0; c < C; ++c) factor[c] = scale[c] / std::sqrt(var[c] + epsilon_);
    T* out = y->base<T>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const int64_t c = l.Channel(i);
      out[i] = static_cast<T>((static_cast<float>(in[i]) - mean[c]) * factor[c] + offset[c]);
    }
    std::vector<Tensor*> stats(4, nullptr);
    for (int k = 0; k < 4; ++k) OP_REQUIRES_OK(ctx, ctx->allocate_output(k + 1, TensorShape({C}), &stats[k]));
    if (num_outputs() == 6) {  // V3
      Tensor* reserve3 = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({}), &reserve3));
      *reserve3->base<float>() = 0.f;
    }
    if (x.NumElements() == 0) {
      // No elements, no statistics (TensorFlow's NaN), whatever the mode.
      for (Tensor* t : stats) std::fill(t->base<float>(), t->base<float>() + C, std::nanf(""));
      return;
    }
    const double correction = l.count > 1 ? static_cast<double>(l.count) / (l.count - 1) : 1.0;
    for (int64_t c = 0; c < C; ++c) {
      float batch_mean = mean[c], batch_var = var[c];
      if (is_training_) {
        batch_var = static_cast<float>(var[c] * correction);
        if (factor_ != 1.0f) {
          batch_mean = (1.0f - factor_) * ctx->input(3).base<float>()[c] + factor_ * batch_mean;
          batch_var = (1.0f - factor_) * ctx->input(4).base<float>()[c] + factor_ * batch_var;
        }
      }
      stats[0]->base<float>()[c] = batch_mean;
      stats[1]->base<float>()[c] = batch_var;
      stats[2]->base<float>()[c] = mean[c];
      stats[3]->base<float>()[c] = var[c];
    }
  }

 private:
  float epsilon_ = 1e-4f, factor_ = 1.0f;
  std::string data_format_;
  bool is_training_ = true;
};

template <class T>
class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("epsilon", &epsilon_);
    if (s.ok()) s = ctx->GetAttr("data_format", &data_format_);
    if (s.ok()) s = ctx->GetAttr("is_training", &is_training_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    OP_REQUIRES(ctx, dy.shape() == x.shape(),
                errors::InvalidArgument(NodePrefix(*this), "x and y_backprop must have same shape, but x has shape ",
                                        x.shape().DebugString(), " and y_backprop has shape ", dy.shape().DebugString()));
    Layout l;
    OP_REQUIRES_OK(ctx, MakeLayout(*this, x, data_format_, &l));
    OP_REQUIRES_OK(ctx, CheckVector(*this, ctx->input(2), "scale", l.channels));
    OP_REQUIRES_OK(ctx, CheckVector(*this, ctx->input(3), "reserve_space_1", l.channels));
    OP_REQUIRES_OK(ctx, CheckVector(*this, ctx->input(4), "reserve_space_2", l.channels));
    // TensorFlow's CPU kernel has no channels-first inference gradient (the op's own
    // gradient transposes to NHWC around it); a graph that asks for one is refused there.
    OP_REQUIRES(ctx, is_training_ || data_format_[1] != 'C',
                errors::InvalidArgument(NodePrefix(*this), "The implementation of ", type_string(),
                                        " with is_training=False only supports the NHWC and NDHWC layouts, not ",
                                        data_format_, " (as TensorFlow's CPU kernel)"));
    const int64_t C = l.channels, n = x.NumElements();
    const T* g = dy.base<T>();
    const T* in = x.base<T>();
    const float* scale = ctx->input(2).base<float>();
    const float* mean = ctx->input(3).base<float>();
    const float* var = ctx->input(4).base<float>();
    std::vector<float> rstd(C);
    for (int64_t c = 0; c < C; ++c) rstd[c] = 1.0f / std::sqrt(var[c] + epsilon_);
    // Per channel: sum(dy) and sum(dy * (x - mean)). Inference multiplies dy by x - mean in
    // float, as TensorFlow's kernel does: where that overflows (x near FLT_MAX, |dy| above
    // 1) its scale_backprop is infinite, and so is ours.
    std::vector<double> sum_g(C, 0.0), sum_gx(C, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = l.Channel(i);
      const float gi = static_cast<float>(g[i]);
      sum_g[c] += gi;
      const float centred = static_cast<float>(in[i]) - mean[c];
      sum_gx[c] += is_training_ ? static_cast<double>(gi) * centred : static_cast<double>(gi * centred);
    }
    Tensor *dx = nullptr, *dscale = nullptr, *doffset = nullptr, *r4 = nullptr, *r5 = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({C}), &dscale));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({C}), &doffset));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({0}), &r4));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(4, TensorShape({0}), &r5));
    for (int64_t c = 0; c < C; ++c) {
      // An empty x sums to zeros (its NaN statistics from the forward op not multiplied in).
      dscale->base<float>()[c] = n == 0 ? 0.f : static_cast<float>(sum_gx[c] * rstd[c]);
      doffset->base<float>()[c] = static_cast<float>(sum_g[c]);
    }
    T* out = dx->base<T>();
    const double count = static_cast<double>(l.count);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = l.Channel(i);
      const float gi = static_cast<float>(g[i]);
      if (!is_training_) {
        out[i] = static_cast<T>(gi * scale[c] * rstd[c]);
        continue;
      }
      // scale * rstd * (dy - mean(dy) - (x - mean) * mean(dy * (x - mean)) / (var + eps))
      const double centred = static_cast<float>(in[i]) - mean[c];
      const double r2 = static_cast<double>(rstd[c]) * rstd[c];
      out[i] = static_cast<T>(
          static_cast<float>(scale[c] * rstd[c] * (gi - sum_g[c] / count - centred * (sum_gx[c] / count) * r2)));
    }
  }

 private:
  float epsilon_ = 1e-4f;
  std::string data_format_;
  bool is_training_ = true;
};

REGISTER_KERNEL(Name("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedBatchNormOp<float>);
REGISTER_KERNEL(Name("FusedBatchNormGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedBatchNormGradOp<float>);
#define TA_REGISTER_BATCH_NORM(T)                                                                                  \
  REGISTER_KERNEL(Name("FusedBatchNormV2").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<float>("U"),     \
                  FusedBatchNormOp<T>);                                                                            \
  REGISTER_KERNEL(Name("FusedBatchNormGradV2").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<float>("U"), \
                  FusedBatchNormGradOp<T>);                                                                        \
  REGISTER_KERNEL(Name("FusedBatchNormV3").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<float>("U"),     \
                  FusedBatchNormOp<T>);                                                                            \
  REGISTER_KERNEL(Name("FusedBatchNormGradV3").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<float>("U"), \
                  FusedBatchNormGradOp<T>);
TA_REGISTER_BATCH_NORM(float)
TA_REGISTER_BATCH_NORM(Eigen::half)
TA_REGISTER_BATCH_NORM(Eigen::bfloat16)
#undef TA_REGISTER_BATCH_NORM

}  // namespace
}  // namespace tensoract
