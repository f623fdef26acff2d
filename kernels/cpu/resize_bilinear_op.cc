// ResizeBilinear and ResizeBilinearGrad on the CPU, computed as TensorFlow's CPU kernels
// compute them (resize_bilinear_op.cc), so float results are TensorFlow's bit for bit:
//  - each output row and column samples the input at a float position `in` (x * scale, or
//    (x + 0.5) * scale - 0.5 with half_pixel_centers), between pixels max(floor(in), 0) and
//    min(ceil(in), size - 1) with weight in - floor(in);
//  - the four pixels, read as float, are blended across then down:
//    top = tl + (tr - tl) * x_lerp, bottom likewise, out = top + (bottom - top) * y_lerp;
//  - an image of the output's own size is copied (cast to float), not blended;
//  - the gradient adds each output's gradient times its four weights into the pixels, row by
//    row: in T for float and double, in float for half and bfloat16, rounded to T once at the
//    end (TensorFlow's kernel sums those in a float buffer).
// Contraction into fused multiply-adds is off: TensorFlow's build rounds every product.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/kernel_registry.h"

#define TA_RESIZE_NO_FMA __attribute__((optimize("fp-contract=off")))

namespace tensoract {
namespace {

// Where output row (or column) i samples: the two input indices and the weight of the second.
struct ResizeSample {
  int64_t lower = 0, upper = 0;
  float lerp = 0.f;
};

// TensorFlow's CalculateResizeScale.
float ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return (align_corners && out_size > 1) ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
                                         : static_cast<float>(in_size) / static_cast<float>(out_size);
}

TA_RESIZE_NO_FMA std::vector<ResizeSample> ResizeSamples(int64_t out_size, int64_t in_size, float scale,
                                                         bool half_pixel_centers) {
  std::vector<ResizeSample> samples(static_cast<size_t>(out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const float in_f = std::floor(in);
    samples[i].lower = std::max(static_cast<int64_t>(in_f), int64_t{0});
    samples[i].upper = std::min(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    samples[i].lerp = in - in_f;
  }
  return samples;
}

// The attrs both ops read, with TensorFlow's refusal of the one combination it rejects.
struct ResizeAttrs {
  bool align_corners = false, half_pixel_centers = false;

  Status Read(OpKernelConstruction* ctx) {
    TA_RETURN_IF_ERROR(ctx->GetAttr("align_corners", &align_corners));
    return ctx->GetAttr("half_pixel_centers", &half_pixel_centers);
  }
  Status Check(const OpKernel& k) const {
    if (half_pixel_centers && align_corners) {
      return errors::InvalidArgument(NodePrefix(k), "If half_pixel_centers is True, align_corners must be False.");
    }
    return Status::OK();
  }
};

TA_RESIZE_NO_FMA inline float BilinearBlend(float tl, float tr, float bl, float br, float x_lerp, float y_lerp) {
  const float top = tl + (tr - tl) * x_lerp;
  const float bottom = bl + (br - bl) * x_lerp;
  return top + (bottom - top) * y_lerp;
}

template <class T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = attrs_.Read(ctx);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, attrs_.Check(*this));
    const Tensor& images = ctx->input(0);
    const Tensor& size = ctx->input(1);
    // TensorFlow's ImageResizerState::ValidateAndCalculateOutputSize, in its order.
    OP_REQUIRES(ctx, images.dims() == 4,
                errors::InvalidArgument(NodePrefix(*this), "input must be 4-dimensional",
                                        images.shape().DebugString()));
    const int64_t batch = images.dim_size(0), in_h = images.dim_size(1), in_w = images.dim_size(2),
                  channels = images.dim_size(3);
    OP_REQUIRES(ctx, channels > 0,
                errors::InvalidArgument(NodePrefix(*this), "image must have at least one channel"));
    OP_REQUIRES(ctx, in_h > 0 && in_w > 0,
                errors::InvalidArgument(NodePrefix(*this), "input image must be of non-zero size"));
    OP_REQUIRES(ctx, in_h < std::numeric_limits<int32_t>::max() && in_w < std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(NodePrefix(*this), "input sizes must be between 0 and max int32"));
    OP_REQUIRES(ctx, size.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "shape_t must be 1-dimensional",
                                        size.shape().DebugString()));
    OP_REQUIRES(ctx, size.NumElements() == 2,
                errors::InvalidArgument(NodePrefix(*this), "shape_t must have two elements",
                                        size.shape().DebugString()));
    const int64_t out_h = size.base<int32_t>()[0], out_w = size.base<int32_t>()[1];
    OP_REQUIRES(ctx, out_h > 0 && out_w > 0,
                errors::InvalidArgument(NodePrefix(*this), "output dimensions must be positive"));
    const float h_scale = ResizeScale(in_h, out_h, attrs_.align_corners);
    const float w_scale = ResizeScale(in_w, out_w, attrs_.align_corners);
    OP_REQUIRES(ctx, std::ceil(static_cast<float>(out_h - 1) * h_scale) <= static_cast<float>(INT64_MAX),
                errors::InvalidArgument(NodePrefix(*this), "input image height scale would cause an overflow"));
    OP_REQUIRES(ctx, std::ceil(static_cast<float>(out_w - 1) * w_scale) <= static_cast<float>(INT32_MAX),
                errors::InvalidArgument(NodePrefix(*this), "input image width scale would cause an overflow"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch, out_h, out_w, channels}), &out));
    if (out->NumElements() == 0) return;
    const T* in = images.base<T>();
    float* y = out->base<float>();
    if (out_h == in_h && out_w == in_w) {
      for (int64_t i = 0; i < images.NumElements(); ++i) y[i] = static_cast<float>(in[i]);
      return;
    }
    const std::vector<ResizeSample> ys = ResizeSamples(out_h, in_h, h_scale, attrs_.half_pixel_centers);
    const std::vector<ResizeSample> xs = ResizeSamples(out_w, in_w, w_scale, attrs_.half_pixel_centers);
    CwiseParallelFor(ctx, batch * out_h, out_w * channels * 8, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) BlendRow(in, row / out_h, row % out_h, in_h, in_w, channels, ys, xs,
                                                            y + row * out_w * channels);
    });
  }

 private:
  // Output row `oy` of image `b`.
  TA_RESIZE_NO_FMA static void BlendRow(const T* in, int64_t b, int64_t oy, int64_t in_h, int64_t in_w,
                                        int64_t channels, const std::vector<ResizeSample>& ys,
                                        const std::vector<ResizeSample>& xs, float* out_row) {
    const T* top = in + ((b * in_h + ys[oy].lower) * in_w) * channels;
    const T* bottom = in + ((b * in_h + ys[oy].upper) * in_w) * channels;
    const float y_lerp = ys[oy].lerp;
    for (size_t ox = 0; ox < xs.size(); ++ox) {
      const int64_t l = xs[ox].lower * channels, r = xs[ox].upper * channels;
      for (int64_t c = 0; c < channels; ++c) {
        out_row[ox * channels + c] =
            BilinearBlend(static_cast<float>(top[l + c]), static_cast<float>(top[r + c]),
                          static_cast<float>(bottom[l + c]), static_cast<float>(bottom[r + c]), xs[ox].lerp, y_lerp);
      }
    }
  }

  ResizeAttrs attrs_;
};

template <class T>
class ResizeBilinearGradOp : public OpKernel {
 public:
  explicit ResizeBilinearGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = attrs_.Read(ctx);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, attrs_.Check(*this));
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    // TensorFlow's ImageResizerGradientState::ValidateAndCreateOutput, in its order: batch
    // and channels come from grads, height and width from original_image.
    OP_REQUIRES(ctx, grads.dims() == 4,
                errors::InvalidArgument(NodePrefix(*this), "input_grad must be 4-dimensional",
                                        grads.shape().DebugString()));
    const int64_t batch = grads.dim_size(0), res_h = grads.dim_size(1), res_w = grads.dim_size(2),
                  channels = grads.dim_size(3);
    OP_REQUIRES(ctx, res_h > 0 && res_w > 0,
                errors::InvalidArgument(NodePrefix(*this), "resized dimensions must be positive"));
    OP_REQUIRES(ctx, original.dims() == 4,
                errors::InvalidArgument(NodePrefix(*this), "original_image must be 4-dimensional",
                                        original.shape().DebugString()));
    const int64_t orig_h = original.dim_size(1), orig_w = original.dim_size(2);
    OP_REQUIRES(ctx, orig_h > 0 && orig_w > 0,
                errors::InvalidArgument(NodePrefix(*this), "original dimensions must be positive"));
    OP_REQUIRES(ctx, orig_h < std::numeric_limits<int32_t>::max() && orig_w < std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(NodePrefix(*this), "original sizes must be between 0 and max int32"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch, orig_h, orig_w, channels}), &out));
    if (out->NumElements() == 0) return;
    const std::vector<ResizeSample> ys = ResizeSamples(
        res_h, orig_h, ResizeScale(orig_h, res_h, attrs_.align_corners), attrs_.half_pixel_centers);
    const std::vector<ResizeSample> xs = ResizeSamples(
        res_w, orig_w, ResizeScale(orig_w, res_w, attrs_.align_corners), attrs_.half_pixel_centers);
    const float* dy = grads.base<float>();
    const int64_t image = orig_h * orig_w * channels;
    T* dx = out->base<T>();
    // Images are independent: each accumulates in TensorFlow's order on one thread.
    CwiseParallelFor(ctx, batch, res_h * res_w * channels * 8, [&](int64_t begin, int64_t end) {
      std::vector<Acc> sums(static_cast<size_t>(image));
      for (int64_t b = begin; b < end; ++b) {
        std::fill(sums.begin(), sums.end(), Acc(0));
        Scatter(dy + b * res_h * res_w * channels, ys, xs, orig_w, channels, sums.data());
        for (int64_t i = 0; i < image; ++i) dx[b * image + i] = static_cast<T>(sums[i]);
      }
    });
  }

 private:
  // What the sums are kept in: T itself for float and double, float for the 16-bit types.
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

  TA_RESIZE_NO_FMA static void Scatter(const float* dy, const std::vector<ResizeSample>& ys,
                                       const std::vector<ResizeSample>& xs, int64_t orig_w, int64_t channels,
                                       Acc* dx) {
    auto add = [](Acc* to, float v) { *to += static_cast<Acc>(v); };
    for (size_t y = 0; y < ys.size(); ++y) {
      const float y_lerp = ys[y].lerp, y_inv = 1.0f - y_lerp;
      Acc* top = dx + ys[y].lower * orig_w * channels;
      Acc* bottom = dx + ys[y].upper * orig_w * channels;
      for (size_t x = 0; x < xs.size(); ++x) {
        const float x_lerp = xs[x].lerp, x_inv = 1.0f - x_lerp;
        const int64_t l = xs[x].lower * channels, r = xs[x].upper * channels;
        const float* g = dy + (y * xs.size() + x) * channels;
        for (int64_t c = 0; c < channels; ++c) {
          add(top + l + c, g[c] * y_inv * x_inv);
          add(top + r + c, g[c] * y_inv * x_lerp);
          add(bottom + l + c, g[c] * y_lerp * x_inv);
          add(bottom + r + c, g[c] * y_lerp * x_lerp);
        }
      }
    }
  }

  ResizeAttrs attrs_;
};

#define TA_REGISTER_RESIZE(T) \
  REGISTER_KERNEL(Name("ResizeBilinear").Device(DEVICE_CPU).TypeConstraint<T>("T"), ResizeBilinearOp<T>)
TA_REGISTER_RESIZE(int8_t);
TA_REGISTER_RESIZE(uint8_t);
TA_REGISTER_RESIZE(int16_t);
TA_REGISTER_RESIZE(uint16_t);
TA_REGISTER_RESIZE(int32_t);
TA_REGISTER_RESIZE(int64_t);
TA_REGISTER_RESIZE(Eigen::half);
TA_REGISTER_RESIZE(Eigen::bfloat16);
TA_REGISTER_RESIZE(float);
TA_REGISTER_RESIZE(double);
#undef TA_REGISTER_RESIZE

#define TA_REGISTER_RESIZE_GRAD(T) \
  REGISTER_KERNEL(Name("ResizeBilinearGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), ResizeBilinearGradOp<T>)
TA_REGISTER_RESIZE_GRAD(float);
TA_REGISTER_RESIZE_GRAD(double);
TA_REGISTER_RESIZE_GRAD(Eigen::half);
TA_REGISTER_RESIZE_GRAD(Eigen::bfloat16);
#undef TA_REGISTER_RESIZE_GRAD

}  // namespace
}  // namespace tensoract

#undef TA_RESIZE_NO_FMA
