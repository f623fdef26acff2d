// LRN and LRNGrad on the CPU, float and half as TensorFlow's CPU kernels take them (half
// computed in float and rounded once). The formulas are TensorFlow's: for the element at depth
// d of a pixel, m = bias + alpha * the sum of squares at depths [d - r, d + r], and
// out = in / m for beta 1, in * rsqrt(m) for beta 0.5, in * exp(-beta * log(m)) otherwise;
// the gradient of in[k] sums, over the j whose windows hold k,
// (k == j ? m_j^-beta : 0) - 2 alpha beta in[k] out[j] / m_j, times dy[j].
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

struct LrnAttrs {
  int64_t depth_radius = 5;
  float bias = 1, alpha = 1, beta = 0.5f;
};

Status ReadLrnAttrs(OpKernelConstruction* ctx, LrnAttrs* a) {
  TA_RETURN_IF_ERROR(ctx->GetAttr("depth_radius", &a->depth_radius));
  TA_RETURN_IF_ERROR(ctx->GetAttr("bias", &a->bias));
  TA_RETURN_IF_ERROR(ctx->GetAttr("alpha", &a->alpha));
  TA_RETURN_IF_ERROR(ctx->GetAttr("beta", &a->beta));
  if (a->depth_radius < 0 || a->depth_radius > std::numeric_limits<int>::max()) {
    return errors::InvalidArgument("node '", ctx->def().name(), "': depth_radius = ", a->depth_radius,
                                   " must be a non-negative int");
  }
  return Status::OK();
}

// The normalizer of each depth of one pixel's `depth` values.
void Normalizers(const LrnAttrs& a, const float* in, int64_t depth, float* m) {
  for (int64_t d = 0; d < depth; ++d) {
    const int64_t begin = std::max<int64_t>(0, d - a.depth_radius);
    const int64_t end = std::min<int64_t>(depth, d + a.depth_radius + 1);
    float sum = 0;
    for (int64_t k = begin; k < end; ++k) sum += in[k] * in[k];
    m[d] = a.bias + a.alpha * sum;
  }
}

float Scaled(const LrnAttrs& a, float x, float m) {
  if (a.beta == 1.f) return x / m;
  if (a.beta == 0.5f) return x * (1.f / std::sqrt(m));
  return x * std::exp(-a.beta * std::log(m));
}

template <class T>
std::vector<float> Widened(const T* p, int64_t n) {
  std::vector<float> out(n);
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
  return out;
}

Status CheckFourD(const OpKernel& op, const Tensor& t, const char* what) {
  if (t.dims() != 4) {
    return errors::InvalidArgument("node '", op.name(), "' (op '", op.type_string(), "'): ", what,
                                   " must be 4-dimensional, got shape ", t.shape().DebugString());
  }
  for (int i = 0; i < 4; ++i) {
    if (t.dim_size(i) > std::numeric_limits<int>::max()) {
      return errors::InvalidArgument("node '", op.name(), "': argument to LRN too large");
    }
  }
  return Status::OK();
}

template <class T>
class LrnOp : public OpKernel {
 public:
  explicit LrnOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, ReadLrnAttrs(ctx, &attrs_)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckFourD(*this, x, "input"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t depth = x.dim_size(3);
    if (out->NumElements() == 0) return;
    const T* xp = x.base<T>();
    T* op = out->base<T>();
    CwiseParallelFor(ctx, x.NumElements() / depth, depth * (2 * attrs_.depth_radius + 8), [&](int64_t b, int64_t e) {
      std::vector<float> m(depth);
      for (int64_t p = b; p < e; ++p) {
        const std::vector<float> in = Widened(xp + p * depth, depth);
        Normalizers(attrs_, in.data(), depth, m.data());
        for (int64_t d = 0; d < depth; ++d) op[p * depth + d] = static_cast<T>(Scaled(attrs_, in[d], m[d]));
      }
    });
  }

 private:
  LrnAttrs attrs_;
};

template <class T>
class LrnGradOp : public OpKernel {
 public:
  explicit LrnGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, ReadLrnAttrs(ctx, &attrs_)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const Tensor& y = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckFourD(*this, dy, "input_grads"));
    OP_REQUIRES_OK(ctx, CheckFourD(*this, x, "input_image"));
    OP_REQUIRES_OK(ctx, CheckFourD(*this, y, "output_image"));
    OP_REQUIRES(ctx, dy.shape() == x.shape() && x.shape() == y.shape(),
                errors::InvalidArgument("node '", name(), "': input_grads, input_image, and out_image should have the "
                                        "same shape, got ", dy.shape().DebugString(), ", ", x.shape().DebugString(),
                                        " and ", y.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t depth = x.dim_size(3);
    if (out->NumElements() == 0) return;
    const T* dyp = dy.base<T>();
    const T* xp = x.base<T>();
    const T* yp = y.base<T>();
    T* op = out->base<T>();
    CwiseParallelFor(ctx, x.NumElements() / depth, depth * (4 * attrs_.depth_radius + 8), [&](int64_t b, int64_t e) {
      std::vector<float> m(depth), result(depth);
      for (int64_t p = b; p < e; ++p) {
        const std::vector<float> in = Widened(xp + p * depth, depth);
        const std::vector<float> outs = Widened(yp + p * depth, depth);
        const std::vector<float> grads = Widened(dyp + p * depth, depth);
        Normalizers(attrs_, in.data(), depth, m.data());
        std::fill(result.begin(), result.end(), 0.f);
        for (int64_t j = 0; j < depth; ++j) {
          const int64_t begin = std::max<int64_t>(0, j - attrs_.depth_radius);
          const int64_t end = std::min<int64_t>(depth, j + attrs_.depth_radius + 1);
          for (int64_t k = begin; k < end; ++k) {
            float g = -2.f * attrs_.alpha * attrs_.beta * in[k] * outs[j] / m[j];
            if (k == j) g += std::pow(m[j], -attrs_.beta);
            result[k] += g * grads[j];
          }
        }
        for (int64_t d = 0; d < depth; ++d) op[p * depth + d] = static_cast<T>(result[d]);
      }
    });
  }

 private:
  LrnAttrs attrs_;
};

REGISTER_KERNEL(Name("LRN").Device(DEVICE_CPU).TypeConstraint<float>("T"), LrnOp<float>);
REGISTER_KERNEL(Name("LRN").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), LrnOp<Eigen::half>);
REGISTER_KERNEL(Name("LRNGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"), LrnGradOp<float>);
REGISTER_KERNEL(Name("LRNGrad").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), LrnGradOp<Eigen::half>);

}  // namespace
}  // namespace tensoract
