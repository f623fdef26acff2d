// _MklLayerNorm on the CPU, float: Keras' LayerNormalization over the last dimension, as the
// remapper fuses it (graph/optimizer/layer_norm_fusion.h). Each row of C elements is read
// from memory once (it stays in cache for the second and third pass) and written once,
// where the unfused ops make a dozen passes over the whole tensor (Mean, SquaredDifference,
// Mean, then four products and sums of the full tensor, Keras writing inv * gamma as one).
//
// The arithmetic is Keras' in its order, per row: mean = sum(x) / C, variance =
// sum((x - mean)^2) / C, inv = rsqrt(variance + epsilon), and for each element
// m = inv * scale[j], y = x * m + (-mean * m + offset[j]); only the sums are ordered
// differently (vectorised), as any two CPU kernels' reductions are.
#include <cmath>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// The sum of f(row[j]) over a row, in 16 partial sums (one vector register's lanes) added
// at the end: vectorised, where one running float sum is a chain of dependent adds.
template <class F>
float RowSum(const float* row, int64_t c, F f) {
  float lanes[16] = {};
  int64_t j = 0;
  for (; j + 16 <= c; j += 16) {
    for (int k = 0; k < 16; ++k) lanes[k] += f(row[j + k]);
  }
  float sum = 0.f;
  for (; j < c; ++j) sum += f(row[j]);
  for (float lane : lanes) sum += lane;
  return sum;
}

class LayerNormOp : public OpKernel {
 public:
  explicit LayerNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    const Tensor& offset = ctx->input(2);
    OP_REQUIRES(ctx, x.dims() >= 1,
                errors::InvalidArgument(CwiseNodeContext(*this), ": x must have a last dimension to normalise, got shape ",
                                        x.shape().DebugString()));
    const int64_t c = x.dim_size(x.dims() - 1);
    for (const Tensor* t : {&scale, &offset}) {
      OP_REQUIRES(ctx, t->NumElements() == c,
                  errors::InvalidArgument(CwiseNodeContext(*this), ": ", t == &scale ? "scale" : "offset", " has shape ",
                                          t->shape().DebugString(), " but x's last dimension is ", c));
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    const float* in = x.base<float>();
    const float* g = scale.base<float>();
    const float* b = offset.base<float>();
    float* out = y->base<float>();
    const float epsilon = epsilon_;
    CwiseParallelFor(ctx, x.NumElements() / c, 8 * c, [&](int64_t first, int64_t last) {
      for (int64_t r = first; r < last; ++r) {
        const float* row = in + r * c;
        float* dst = out + r * c;
        const float mean = RowSum(row, c, [](float v) { return v; }) / static_cast<float>(c);
        const float squares = RowSum(row, c, [mean](float v) { return (v - mean) * (v - mean); });
        const float inv = 1.f / std::sqrt(squares / static_cast<float>(c) + epsilon);
        for (int64_t j = 0; j < c; ++j) {
          const float m = inv * g[j];
          dst[j] = row[j] * m + (-mean * m + b[j]);
        }
      }
    });
  }

 private:
  float epsilon_ = 0.001f;
};

REGISTER_KERNEL(Name("_MklLayerNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"), LayerNormOp);

}  // namespace
}  // namespace tensoract
