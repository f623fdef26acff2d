// ResizeNearestNeighbor and ResizeNearestNeighborGrad on the CPU, as TensorFlow's CPU kernels
// (resize_nearest_neighbor_op.cc) pick pixels: output row (column) i takes input row
// min(floor(i * scale), size - 1), or round(...) with align_corners; half_pixel_centers
// samples at (i + 0.5) * scale (TensorFlow's HalfPixelScalerForNN: no -0.5) and clamps below
// at 0. The gradient adds each gradient pixel into the pixel of `size` the same rule picks,
// row by row, in T; TensorFlow's gradient kernel does not refuse align_corners with
// half_pixel_centers (it rounds the half-pixel positions), so neither does ours.
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

#define TA_NEAREST_NO_FMA __attribute__((optimize("fp-contract=off")))

namespace tensoract {
namespace {

float NearestScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return (align_corners && out_size > 1) ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
                                         : static_cast<float>(in_size) / static_cast<float>(out_size);
}

// The source index of each of `count` positions into an axis of `size`.
TA_NEAREST_NO_FMA std::vector<int64_t> NearestIndices(int64_t count, int64_t size, float scale, bool align_corners,
                                                      bool half_pixel_centers) {
  std::vector<int64_t> at(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const float in = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    int64_t j = std::min(align_corners ? static_cast<int64_t>(std::round(in)) : static_cast<int64_t>(std::floor(in)),
                         size - 1);
    if (half_pixel_centers) j = std::max<int64_t>(0, j);
    at[i] = j;
  }
  return at;
}

// a + b, integers wrapping as TensorFlow's (two's complement) rather than overflowing.
template <class T>
T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

struct NearestAttrs {
  bool align_corners = false, half_pixel_centers = false;
  Status Read(OpKernelConstruction* ctx) {
    TA_RETURN_IF_ERROR(ctx->GetAttr("align_corners", &align_corners));
    return ctx->GetAttr("half_pixel_centers", &half_pixel_centers);
  }
};

// The checks of TensorFlow's gradient kernel on `size`, also the forward's (ImageResizerState).
Status ReadSize(const OpKernel& k, const Tensor& size, int64_t* h, int64_t* w) {
  if (size.dims() != 1) {
    return errors::InvalidArgument(NodePrefix(k), "shape_t must be 1-dimensional", size.shape().DebugString());
  }
  if (size.NumElements() != 2) {
    return errors::InvalidArgument(NodePrefix(k), "shape_t must have two elements", size.shape().DebugString());
  }
  *h = size.base<int32_t>()[0];
  *w = size.base<int32_t>()[1];
  return Status::OK();
}

template <class T>
class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = attrs_.Read(ctx);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, !(attrs_.half_pixel_centers && attrs_.align_corners),
                errors::InvalidArgument(NodePrefix(*this), "If half_pixel_centers is True, align_corners must be False."));
    const Tensor& images = ctx->input(0);
    OP_REQUIRES(ctx, images.dims() == 4,
                errors::InvalidArgument(NodePrefix(*this), "input must be 4-dimensional", images.shape().DebugString()));
    const int64_t batch = images.dim_size(0), in_h = images.dim_size(1), in_w = images.dim_size(2),
                  channels = images.dim_size(3);
    OP_REQUIRES(ctx, channels > 0, errors::InvalidArgument(NodePrefix(*this), "image must have at least one channel"));
    OP_REQUIRES(ctx, in_h > 0 && in_w > 0,
                errors::InvalidArgument(NodePrefix(*this), "input image must be of non-zero size"));
    OP_REQUIRES(ctx, in_h < std::numeric_limits<int32_t>::max() && in_w < std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(NodePrefix(*this), "input sizes must be between 0 and max int32"));
    int64_t out_h = 0, out_w = 0;
    OP_REQUIRES_OK(ctx, ReadSize(*this, ctx->input(1), &out_h, &out_w));
    OP_REQUIRES(ctx, out_h > 0 && out_w > 0,
                errors::InvalidArgument(NodePrefix(*this), "output dimensions must be positive"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch, out_h, out_w, channels}), &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> ys = NearestIndices(out_h, in_h, NearestScale(in_h, out_h, attrs_.align_corners),
                                                   attrs_.align_corners, attrs_.half_pixel_centers);
    const std::vector<int64_t> xs = NearestIndices(out_w, in_w, NearestScale(in_w, out_w, attrs_.align_corners),
                                                   attrs_.align_corners, attrs_.half_pixel_centers);
    const T* in = images.base<T>();
    T* y = out->base<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t oy = 0; oy < out_h; ++oy) {
        for (int64_t ox = 0; ox < out_w; ++ox) {
          std::copy_n(in + ((b * in_h + ys[oy]) * in_w + xs[ox]) * channels, channels,
                      y + ((b * out_h + oy) * out_w + ox) * channels);
        }
      }
    }
  }

 private:
  NearestAttrs attrs_;
};

template <class T>
class ResizeNearestNeighborGradOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = attrs_.Read(ctx);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    OP_REQUIRES(ctx, grads.dims() == 4,
                errors::InvalidArgument(NodePrefix(*this), "input must be 4-dimensional", grads.shape().DebugString()));
    int64_t out_h = 0, out_w = 0;
    OP_REQUIRES_OK(ctx, ReadSize(*this, ctx->input(1), &out_h, &out_w));
    OP_REQUIRES(ctx, out_h > 0 && out_w > 0,
                errors::InvalidArgument(NodePrefix(*this), "shape_t's elements must be positive"));
    const int64_t batch = grads.dim_size(0), in_h = grads.dim_size(1), in_w = grads.dim_size(2),
                  channels = grads.dim_size(3);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch, out_h, out_w, channels}), &out));
    if (out->NumElements() == 0) return;
    T* dx = out->base<T>();
    for (int64_t i = 0; i < out->NumElements(); ++i) dx[i] = T(0);
    const std::vector<int64_t> ys = NearestIndices(in_h, out_h, NearestScale(out_h, in_h, attrs_.align_corners),
                                                   attrs_.align_corners, attrs_.half_pixel_centers);
    const std::vector<int64_t> xs = NearestIndices(in_w, out_w, NearestScale(out_w, in_w, attrs_.align_corners),
                                                   attrs_.align_corners, attrs_.half_pixel_centers);
    const T* g = grads.base<T>();
    for (int64_t y = 0; y < in_h; ++y) {
      for (int64_t x = 0; x < in_w; ++x) {
        for (int64_t b = 0; b < batch; ++b) {
          const T* from = g + ((b * in_h + y) * in_w + x) * channels;
          T* to = dx + ((b * out_h + ys[y]) * out_w + xs[x]) * channels;
          for (int64_t c = 0; c < channels; ++c) to[c] = WrappingAdd(to[c], from[c]);
        }
      }
    }
  }

 private:
  NearestAttrs attrs_;
};

#define TA_REGISTER_NEAREST(T) \
  REGISTER_KERNEL(Name("ResizeNearestNeighbor").Device(DEVICE_CPU).TypeConstraint<T>("T"), ResizeNearestNeighborOp<T>)
TA_REGISTER_NEAREST(int8_t);
TA_REGISTER_NEAREST(uint8_t);
TA_REGISTER_NEAREST(int16_t);
TA_REGISTER_NEAREST(uint16_t);
TA_REGISTER_NEAREST(int32_t);
TA_REGISTER_NEAREST(int64_t);
TA_REGISTER_NEAREST(Eigen::half);
TA_REGISTER_NEAREST(Eigen::bfloat16);
TA_REGISTER_NEAREST(float);
TA_REGISTER_NEAREST(double);
#undef TA_REGISTER_NEAREST

#define TA_REGISTER_NEAREST_GRAD(T)                                                              \
  REGISTER_KERNEL(Name("ResizeNearestNeighborGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                  ResizeNearestNeighborGradOp<T>)
TA_REGISTER_NEAREST_GRAD(uint8_t);
TA_REGISTER_NEAREST_GRAD(int8_t);
TA_REGISTER_NEAREST_GRAD(int32_t);
TA_REGISTER_NEAREST_GRAD(Eigen::half);
TA_REGISTER_NEAREST_GRAD(float);
TA_REGISTER_NEAREST_GRAD(double);
TA_REGISTER_NEAREST_GRAD(Eigen::bfloat16);
#undef TA_REGISTER_NEAREST_GRAD

}  // namespace
}  // namespace tensoract

#undef TA_NEAREST_NO_FMA
