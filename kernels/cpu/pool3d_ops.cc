// MaxPool3D, AvgPool3D and their gradients (MaxPool3DGrad, AvgPool3DGrad) on the CPU, in the
// types TensorFlow's CPU kernels take (float, bfloat16), NDHWC. As TensorFlow's: an average's
// padding takes no part (it divides by the inputs the window covers), a maximum scans
// padding as the lowest value (ScanMax), and
// MaxPool3DGrad gives an output's gradient to every input of its window within 1e-5 of the
// maximum (TensorFlow's CPU kernel compares that way), not to the first maximum alone.
#include <cmath>
#include <limits>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/window3d.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

using window3d::Geometry;

struct Pool3DAttrs {
  std::array<int64_t, 3> ksize{}, strides{};
  std::string padding;

  Status Read(OpKernelConstruction* ctx) {
    TA_RETURN_IF_ERROR(window3d::RequireNdhwc(ctx));
    TA_RETURN_IF_ERROR(window3d::ReadSpatial(ctx, "ksize", true, &ksize));
    TA_RETURN_IF_ERROR(window3d::ReadSpatial(ctx, "strides", true, &strides));
    return ctx->GetAttr("padding", &padding);
  }
  Status Geometry(const TensorShape& input, window3d::Geometry* g) const {
    return window3d::MakeGeometry(input, ksize, strides, padding, g);
  }
};

TensorShape OutputShape(const Geometry& g) {
  return TensorShape({g.batch, g.dims[0].out, g.dims[1].out, g.dims[2].out, g.channels});
}

// Calls fn(in_position) for every input of output position `o`'s window (padding left out;
// for a gradient, TensorFlow's window: Dim::GradientCovered), after start(count of them).
template <class Start, class F>
void ForWindow(const Geometry& g, int64_t o, Start start, F fn, bool gradient = false) {
  const auto &P = g.dims[0], &R = g.dims[1], &C = g.dims[2];
  int64_t p0, pn, r0, rn, c0, cn;
  const int64_t op = o / (R.out * C.out), orow = (o / C.out) % R.out, oc = o % C.out;
  if (gradient) {
    P.GradientCovered(op, &p0, &pn);
    R.GradientCovered(orow, &r0, &rn);
    C.GradientCovered(oc, &c0, &cn);
  } else {
    P.Covered(op, &p0, &pn);
    R.Covered(orow, &r0, &rn);
    C.Covered(oc, &c0, &cn);
  }
  start(pn * rn * cn);
  for (int64_t p = p0; p < p0 + pn; ++p) {
    for (int64_t r = r0; r < r0 + rn; ++r) {
      for (int64_t c = c0; c < c0 + cn; ++c) fn((p * R.in + r) * C.in + c);
    }
  }
}

// TensorFlow's max, NaN included: it scans the whole window, planes then rows then cols,
// padding as T's lowest value, keeping max = max > v ? max : v from -inf. A NaN is taken and
// then dropped by the next value ([7, NaN, -5] gives -5, [1, NaN] NaN, [1, NaN, padding]
// the lowest value): matched, as TensorFlow 2.21 computes it.
template <class T>
void ScanMax(const Geometry& g, int64_t b, int64_t o, const T* x, float* acc) {
  const auto &P = g.dims[0], &R = g.dims[1], &C = g.dims[2];
  const int64_t ch = g.channels, p0 = o / (R.out * C.out) * P.stride - P.pad;
  const int64_t r0 = (o / C.out) % R.out * R.stride - R.pad, c0 = o % C.out * C.stride - C.pad;
  const float padding = static_cast<float>(std::numeric_limits<T>::lowest());
  std::fill(acc, acc + ch, -std::numeric_limits<float>::infinity());
  for (int64_t p = p0; p < p0 + P.window; ++p) {
    for (int64_t r = r0; r < r0 + R.window; ++r) {
      for (int64_t c = c0; c < c0 + C.window; ++c) {
        const bool inside = p >= 0 && p < P.in && r >= 0 && r < R.in && c >= 0 && c < C.in;
        const T* xi = inside ? x + (b * g.in_positions() + (p * R.in + r) * C.in + c) * ch : nullptr;
        for (int64_t k = 0; k < ch; ++k) {
          const float v = inside ? static_cast<float>(xi[k]) : padding;
          acc[k] = acc[k] > v ? acc[k] : v;
        }
      }
    }
  }
}

template <class T, bool kMax>
class Pool3DOp : public OpKernel {
 public:
  explicit Pool3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, attrs_.Read(ctx)); }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Geometry g;
    OP_REQUIRES_OK(ctx, attrs_.Geometry(input.shape(), &g));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, OutputShape(g), &out));
    const T* x = input.base<T>();
    T* y = out->base<T>();
    const int64_t ch = g.channels, positions = g.out_positions();
    const int64_t window = attrs_.ksize[0] * attrs_.ksize[1] * attrs_.ksize[2];
    CwiseParallelFor(ctx, g.batch * positions, window * ch + 1, [&](int64_t begin, int64_t end) {
      std::vector<float> acc(ch);
      for (int64_t i = begin; i < end; ++i) {
        const int64_t b = i / positions;
        int64_t count = 0;
        if (kMax) {
          ScanMax(g, b, i % positions, x, acc.data());
        } else {
          ForWindow(
              g, i % positions,
              [&](int64_t n) {
                count = n;
                std::fill(acc.begin(), acc.end(), 0.f);
              },
              [&](int64_t in_pos) {
                const T* xi = x + (b * g.in_positions() + in_pos) * ch;
                for (int64_t c = 0; c < ch; ++c) acc[c] += static_cast<float>(xi[c]);
              });
        }
        T* yi = y + i * ch;
        for (int64_t c = 0; c < ch; ++c) yi[c] = static_cast<T>(kMax ? acc[c] : acc[c] / static_cast<float>(count));
      }
    });
  }

 private:
  Pool3DAttrs attrs_;
};

// The gradient of every input: images on their own (an image's windows overlap).
template <class T>
class MaxPool3DGradOp : public OpKernel {
 public:
  explicit MaxPool3DGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, attrs_.Read(ctx)); }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& output = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    Geometry g;
    OP_REQUIRES_OK(ctx, attrs_.Geometry(input.shape(), &g));
    const TensorShape want = OutputShape(g);
    OP_REQUIRES(ctx, output.shape() == want,
                errors::InvalidArgument("Expected orig_output shape to be ", want.DebugString(), ", but got ",
                                        output.shape().DebugString()));
    OP_REQUIRES(ctx, grad.shape() == want,
                errors::InvalidArgument("Expected grad shape to be ", want.DebugString(), ", but got ",
                                        grad.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const T* x = input.base<T>();
    const T* y = output.base<T>();
    const T* dy = grad.base<T>();
    T* dx = out->base<T>();
    const int64_t ch = g.channels, positions = g.out_positions(), image = g.in_positions() * ch;
    window3d::AccumulatePerImage<float>(ctx, g.batch, image, positions * ch * 8 + 1, dx, [&](int64_t b, float* acc) {
      for (int64_t o = 0; o < positions; ++o) {
        const T* yo = y + (b * positions + o) * ch;
        const T* dyo = dy + (b * positions + o) * ch;
        ForWindow(
            g, o, [](int64_t) {},
            [&](int64_t in_pos) {
              const T* xi = x + (b * g.in_positions() + in_pos) * ch;
              float* ai = acc + in_pos * ch;
              for (int64_t c = 0; c < ch; ++c) {
                if (std::abs(static_cast<float>(xi[c]) - static_cast<float>(yo[c])) < 1e-5f) {
                  ai[c] += static_cast<float>(dyo[c]);
                }
              }
            },
            /*gradient=*/true);
      }
    });
  }

 private:
  Pool3DAttrs attrs_;
};

template <class T>
class AvgPool3DGradOp : public OpKernel {
 public:
  explicit AvgPool3DGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, attrs_.Read(ctx)); }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(ctx, sizes.dims() == 1 && sizes.NumElements() == 5,
                errors::InvalidArgument("tensor_in must be 1-dimensional and 5 elements"));
    OP_REQUIRES(ctx, grad.dims() == 5, errors::InvalidArgument("out_backprop must be 5-dimensional"));
    std::vector<int64_t> dims(5);
    for (int i = 0; i < 5; ++i) {
      dims[i] = sizes.base<int32_t>()[i];
      OP_REQUIRES(ctx, dims[i] >= 0, errors::InvalidArgument("orig_input_shape holds a negative size: ", dims[i]));
    }
    const TensorShape input_shape(dims);
    Geometry g;
    OP_REQUIRES_OK(ctx, attrs_.Geometry(input_shape, &g));
    OP_REQUIRES(ctx, grad.shape() == OutputShape(g),
                errors::InvalidArgument("Expected grad shape to be ", OutputShape(g).DebugString(), ", but got ",
                                        grad.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    const T* dy = grad.base<T>();
    T* dx = out->base<T>();
    const int64_t ch = g.channels, positions = g.out_positions(), image = g.in_positions() * ch;
    window3d::AccumulatePerImage<float>(ctx, g.batch, image, positions * ch * 8 + 1, dx, [&](int64_t b, float* acc) {
      for (int64_t o = 0; o < positions; ++o) {
        const T* dyo = dy + (b * positions + o) * ch;
        float scale = 0;
        ForWindow(g, o, [&](int64_t n) { scale = n > 0 ? 1.f / static_cast<float>(n) : 0.f; },
                  [&](int64_t in_pos) {
                    float* ai = acc + in_pos * ch;
                    for (int64_t c = 0; c < ch; ++c) ai[c] += static_cast<float>(dyo[c]) * scale;
                  },
                  /*gradient=*/true);
      }
    });
  }

 private:
  Pool3DAttrs attrs_;
};

#define TA_REGISTER_POOL3D(T)                                                                               \
  REGISTER_KERNEL(Name("MaxPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Pool3DOp<T, true>);         \
  REGISTER_KERNEL(Name("AvgPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Pool3DOp<T, false>);        \
  REGISTER_KERNEL(Name("MaxPool3DGrad").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<T>("TInput"), \
                  MaxPool3DGradOp<T>);                                                                      \
  REGISTER_KERNEL(Name("AvgPool3DGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), AvgPool3DGradOp<T>)
TA_REGISTER_POOL3D(float);
TA_REGISTER_POOL3D(Eigen::bfloat16);
#undef TA_REGISTER_POOL3D

}  // namespace
}  // namespace tensoract
