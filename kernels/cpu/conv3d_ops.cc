// Conv3D and its gradients (Conv3DBackpropInputV2, Conv3DBackpropFilterV2) on the CPU, in
// the types TensorFlow's CPU kernels take (half, bfloat16, float, double), NDHWC, without
// dilation or groups, as TensorFlow's CPU kernels (their refusals in their words). Direct
// loops with float sums (double for double), each output rounded once: video models' and
// volumetric models' sizes, not a tuned GEMM.
#include <cmath>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/window3d.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

using window3d::Dim;
using window3d::Geometry;

template <class T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The attrs every Conv3D op has, checked as TensorFlow checks them.
struct Conv3DAttrs {
  std::array<int64_t, 3> strides{};
  std::string padding;

  Status Read(OpKernelConstruction* ctx) {
    TA_RETURN_IF_ERROR(window3d::RequireNdhwc(ctx));
    TA_RETURN_IF_ERROR(window3d::ReadSpatial(ctx, "strides", false, &strides));
    TA_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
    std::vector<int64_t> dilations;
    if (ctx->GetAttr("dilations", &dilations).ok()) {
      for (int64_t d : dilations) {
        if (d != 1) return errors::InvalidArgument("CPU implementation of Conv3D currently only supports dilated rates of 1.");
      }
    }
    return Status::OK();
  }
};

// The geometry of input `input` convolved with a filter of `filter` ([planes, rows, cols,
// in, out]); TensorFlow's refusals.
Status ConvGeometry(const Conv3DAttrs& a, const TensorShape& input, const TensorShape& filter, Geometry* g,
                    int64_t* out_channels) {
  if (input.dims() != 5) return errors::InvalidArgument("input must be 5-dimensional", input.DebugString());
  if (filter.dims() != 5) return errors::InvalidArgument("filter must be 5-dimensional", filter.DebugString());
  const int64_t in_depth = input.dim_size(4), filter_depth = filter.dim_size(3);
  if (filter_depth == 0 || in_depth % filter_depth != 0) {
    return errors::InvalidArgument("Input depth must be evenly divisible by filter depth: ", in_depth, " vs ",
                                   filter_depth);
  }
  if (in_depth != filter_depth) {
    return errors::InvalidArgument("Number of channels in filter (", filter_depth,
                                   ") must match last dimension of input (", in_depth, ")");
  }
  *out_channels = filter.dim_size(4);
  return window3d::MakeGeometry(input, {filter.dim_size(0), filter.dim_size(1), filter.dim_size(2)}, a.strides,
                                a.padding, g);
}

// The input position (flat over planes, rows, cols of one image) that filter tap `tap` of
// output position `o` reads; false where it falls in the padding.
bool TapInput(const Geometry& g, int64_t o, int64_t tap, int64_t* in_pos) {
  const Dim &P = g.dims[0], &R = g.dims[1], &C = g.dims[2];
  const int64_t ip = o / (C.out * R.out) * P.stride - P.pad + tap / (R.window * C.window);
  const int64_t ir = (o / C.out) % R.out * R.stride - R.pad + (tap / C.window) % R.window;
  const int64_t ic = o % C.out * C.stride - C.pad + tap % C.window;
  if (ip < 0 || ip >= P.in || ir < 0 || ir >= R.in || ic < 0 || ic >= C.in) return false;
  *in_pos = (ip * R.in + ir) * C.in + ic;
  return true;
}

// Calls fn(in_position, tap) for every filter tap of output position `o` that lands inside
// the input.
template <class F>
void ForEachTap(const Geometry& g, int64_t o, F fn) {
  const int64_t taps = g.dims[0].window * g.dims[1].window * g.dims[2].window;
  int64_t in_pos = 0;
  for (int64_t tap = 0; tap < taps; ++tap) {
    if (TapInput(g, o, tap, &in_pos)) fn(in_pos, tap);
  }
}

template <class T>
class Conv3DOp : public OpKernel {
 public:
  explicit Conv3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, attrs_.Read(ctx)); }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Geometry g;
    int64_t out_channels = 0;
    OP_REQUIRES_OK(ctx, ConvGeometry(attrs_, input.shape(), filter.shape(), &g, &out_channels));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({g.batch, g.dims[0].out, g.dims[1].out, g.dims[2].out,
                                                             out_channels}),
                                             &out));
    const T* x = input.base<T>();
    const T* f = filter.base<T>();
    T* y = out->base<T>();
    const int64_t ci = g.channels, co = out_channels, positions = g.out_positions();
    CwiseParallelFor(ctx, g.batch * positions, filter.NumElements() + 1,
                     [&](int64_t begin, int64_t end) {
                       std::vector<Acc<T>> acc(co);
                       for (int64_t i = begin; i < end; ++i) {
                         const int64_t b = i / positions;
                         std::fill(acc.begin(), acc.end(), Acc<T>(0));
                         ForEachTap(g, i % positions, [&](int64_t in_pos, int64_t tap) {
                           const T* xi = x + (b * g.in_positions() + in_pos) * ci;
                           const T* ft = f + tap * ci * co;
                           for (int64_t c = 0; c < ci; ++c) {
                             const Acc<T> v = static_cast<Acc<T>>(xi[c]);
                             const T* fc = ft + c * co;
                             for (int64_t o = 0; o < co; ++o) acc[o] += v * static_cast<Acc<T>>(fc[o]);
                           }
                         });
                         T* yi = y + i * co;
                         for (int64_t o = 0; o < co; ++o) yi[o] = static_cast<T>(acc[o]);
                       }
                     });
  }

 private:
  Conv3DAttrs attrs_;
};

// A shape from a 1-D int32 or int64 tensor of 5 sizes (input_sizes, filter_sizes).
Status ShapeFromSizes(const Tensor& sizes, const char* what, TensorShape* shape) {
  if (sizes.dims() != 1 || sizes.NumElements() != 5) {
    return errors::InvalidArgument(what, " must be a vector of 5 sizes, got shape ", sizes.shape().DebugString());
  }
  std::vector<int64_t> dims(5);
  for (int i = 0; i < 5; ++i) {
    dims[i] = sizes.dtype() == tensorflow::DT_INT64 ? sizes.base<int64_t>()[i] : sizes.base<int32_t>()[i];
    if (dims[i] < 0) return errors::InvalidArgument(what, " holds a negative size: ", dims[i]);
  }
  *shape = TensorShape(dims);
  return Status::OK();
}

// The output gradient's shape must be what the forward convolution gives.
Status CheckOutBackprop(const Geometry& g, int64_t out_channels, const Tensor& out_backprop) {
  const TensorShape want({g.batch, g.dims[0].out, g.dims[1].out, g.dims[2].out, out_channels});
  if (out_backprop.shape() != want) {
    return errors::InvalidArgument("out_backprop has shape ", out_backprop.shape().DebugString(), " but the convolution's "
                                   "output has shape ", want.DebugString());
  }
  return Status::OK();
}

// d input: each image on its own (its output positions add into the same inputs).
template <class T>
class Conv3DBackpropInputOp : public OpKernel {
 public:
  explicit Conv3DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, attrs_.Read(ctx)); }
  void Compute(OpKernelContext* ctx) override {
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(ctx->input(0), "input_sizes", &input_shape));
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    Geometry g;
    int64_t co = 0;
    OP_REQUIRES_OK(ctx, ConvGeometry(attrs_, input_shape, filter.shape(), &g, &co));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(g, co, dy));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    const T* f = filter.base<T>();
    const T* d = dy.base<T>();
    T* dx = out->base<T>();
    const int64_t ci = g.channels, image_in = g.in_positions() * ci, positions = g.out_positions();
    window3d::AccumulatePerImage<Acc<T>>(
        ctx, g.batch, image_in, image_in * std::max<int64_t>(co, 1) * 8 + 1, dx, [&](int64_t b, Acc<T>* acc) {
          for (int64_t o = 0; o < positions; ++o) {
            const T* dyo = d + (b * positions + o) * co;
            ForEachTap(g, o, [&](int64_t in_pos, int64_t tap) {
              const T* ft = f + tap * ci * co;
              Acc<T>* ai = acc + in_pos * ci;
              for (int64_t c = 0; c < ci; ++c) {
                const T* fc = ft + c * co;
                Acc<T> s = 0;
                for (int64_t k = 0; k < co; ++k) s += static_cast<Acc<T>>(dyo[k]) * static_cast<Acc<T>>(fc[k]);
                ai[c] += s;
              }
            });
          }
        });
  }

 private:
  Conv3DAttrs attrs_;
};

// d filter: each tap on its own (it sums over every image and output position).
template <class T>
class Conv3DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv3DBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, attrs_.Read(ctx)); }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(ctx->input(1), "filter_sizes", &filter_shape));
    const Tensor& dy = ctx->input(2);
    Geometry g;
    int64_t co = 0;
    OP_REQUIRES_OK(ctx, ConvGeometry(attrs_, input.shape(), filter_shape, &g, &co));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(g, co, dy));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    const T* x = input.base<T>();
    const T* d = dy.base<T>();
    T* df = out->base<T>();
    const int64_t ci = g.channels, positions = g.out_positions();
    const int64_t taps = g.dims[0].window * g.dims[1].window * g.dims[2].window;
    CwiseParallelFor(ctx, taps, g.batch * positions * ci * std::max<int64_t>(co, 1) + 1, [&](int64_t begin, int64_t end) {
      std::vector<Acc<T>> acc(ci * co);
      for (int64_t t = begin; t < end; ++t) {
        std::fill(acc.begin(), acc.end(), Acc<T>(0));
        for (int64_t b = 0; b < g.batch; ++b) {
          for (int64_t o = 0; o < positions; ++o) {
            int64_t in_pos = 0;
            if (!TapInput(g, o, t, &in_pos)) continue;
            const T* dyo = d + (b * positions + o) * co;
            const T* xi = x + (b * g.in_positions() + in_pos) * ci;
            for (int64_t c = 0; c < ci; ++c) {
              const Acc<T> v = static_cast<Acc<T>>(xi[c]);
              Acc<T>* ac = acc.data() + c * co;
              for (int64_t k = 0; k < co; ++k) ac[k] += v * static_cast<Acc<T>>(dyo[k]);
            }
          }
        }
        for (int64_t i = 0; i < ci * co; ++i) df[t * ci * co + i] = static_cast<T>(acc[i]);
      }
    });
  }

 private:
  Conv3DAttrs attrs_;
};

#define TA_REGISTER_CONV3D(T)                                                                          \
  REGISTER_KERNEL(Name("Conv3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv3DOp<T>);             \
  REGISTER_KERNEL(Name("Conv3DBackpropInputV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
                  Conv3DBackpropInputOp<T>);                                                          \
  REGISTER_KERNEL(Name("Conv3DBackpropFilterV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),           \
                  Conv3DBackpropFilterOp<T>)
TA_REGISTER_CONV3D(Eigen::half);
TA_REGISTER_CONV3D(Eigen::bfloat16);
TA_REGISTER_CONV3D(float);
TA_REGISTER_CONV3D(double);
#undef TA_REGISTER_CONV3D

}  // namespace
}  // namespace tensoract
