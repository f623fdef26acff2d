// Conv2D's gradients on the CPU, NHWC, as GEMMs around im2col (kernels/cpu/conv_util.h):
//
//   Conv2DBackpropInput:  cols = out_backprop [pixels, out_depth] * filter^T, then each
//                         patch element of cols is added back where im2col took it from
//                         (col2im). Images are spread over the threads: their input
//                         gradients are disjoint, while neighbouring output rows overlap.
//   Conv2DBackpropFilter: filter_grad = sum over blocks of im2col(input)^T * out_backprop;
//                         each thread accumulates its own partial sum, added up at the end.
//
// A 1x1 filter with stride 1 skips im2col and col2im.
#include <Eigen/Core>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A shape given as an int32 vector input (input_sizes, filter_sizes).
Status ShapeFromSizes(const OpKernel& kernel, const std::string& arg, const Tensor& sizes, TensorShape* shape) {
  if (sizes.dims() != 1 || sizes.dtype() != tensorflow::DT_INT32) {
    return errors::InvalidArgument(conv::NodeContext(kernel), ": ", arg, " must be an int32 vector, got ",
                                   sizes.shape().DebugString());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < sizes.NumElements(); ++i) {
    const int32_t v = sizes.base<int32_t>()[i];
    if (v < 0) return errors::InvalidArgument(conv::NodeContext(kernel), ": ", arg, " has a negative size ", v);
    dims.push_back(v);
  }
  *shape = TensorShape(dims);
  return Status::OK();
}

// out_backprop must have the shape the forward convolution would produce.
Status CheckOutBackprop(const OpKernel& kernel, const conv::ConvDims& d, const TensorShape& out_backprop) {
  const TensorShape want({d.batch, d.out_rows, d.out_cols, d.out_depth});
  if (out_backprop != want) {
    return errors::InvalidArgument(conv::NodeContext(kernel), ": out_backprop has shape ", out_backprop.DebugString(),
                                   " but the convolution's output has shape ", want.DebugString());
  }
  return Status::OK();
}

bool IsDirect(const conv::ConvDims& d) {
  return d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 && d.stride_cols == 1;
}

template <class T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/true, /*has_ksize=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(*this, "input_sizes", ctx->input(0), &input_shape));
    if (input_shape.dims() == 2 && out_backprop.dims() == 4 && filter.dims() == 4) {
      // Only the spatial sizes given: batch and depth follow out_backprop and the filter.
      input_shape = TensorShape({out_backprop.dim_size(0), input_shape.dim_size(0), input_shape.dim_size(1),
                                 filter.dim_size(2)});
    }
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, conv::ConvDimsFromShapes(*this, attrs_, input_shape, filter.shape(), &d));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(*this, d, out_backprop.shape()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    T* ip = out->base<T>();
    const int64_t k = d.patch_size();
    if (out->NumElements() == 0) return;
    if (out_backprop.NumElements() == 0 || k == 0) {
      std::fill(ip, ip + out->NumElements(), T(0));
      return;
    }
    const T* gp = out_backprop.base<T>();
    Eigen::Map<const Matrix<T>> f(filter.base<T>(), k, d.out_depth);
    const int64_t out_pixels = d.out_rows * d.out_cols;
    const int64_t in_image = d.in_rows * d.in_cols * d.in_depth;
    if (IsDirect(d)) {
      CwiseParallelFor(ctx, d.batch * out_pixels, k * d.out_depth, [&](int64_t begin, int64_t end) {
        Eigen::Map<Matrix<T>>(ip + begin * k, end - begin, k).noalias() =
            Eigen::Map<const Matrix<T>>(gp + begin * d.out_depth, end - begin, d.out_depth) * f.transpose();
      });
      return;
    }
    const int64_t block_images = conv::RowsPerBlock(out_pixels * k, sizeof(T));
    CwiseParallelFor(ctx, d.batch, out_pixels * k * d.out_depth, [&](int64_t begin, int64_t end) {
      std::fill(ip + begin * in_image, ip + end * in_image, T(0));
      Matrix<T> cols(std::min(block_images, end - begin) * out_pixels, k);
      for (int64_t b = begin; b < end; b += block_images) {
        const int64_t n = std::min(block_images, end - b);
        Eigen::Map<Matrix<T>> c(cols.data(), n * out_pixels, k);
        c.noalias() = Eigen::Map<const Matrix<T>>(gp + b * out_pixels * d.out_depth, n * out_pixels, d.out_depth) *
                      f.transpose();
        conv::Col2ImAdd(d, cols.data(), b, b + n, ip);
      }
    });
  }

 private:
  conv::WindowAttrs attrs_;
};

template <class T>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/true, /*has_ksize=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(*this, "filter_sizes", ctx->input(1), &filter_shape));
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, conv::ConvDimsFromShapes(*this, attrs_, input.shape(), filter_shape, &d));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(*this, d, out_backprop.shape()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t k = d.patch_size();
    Eigen::Map<Matrix<T>> result(out->base<T>(), k, d.out_depth);
    result.setZero();
    const int64_t rows = d.batch * d.out_rows;  // global output rows, as im2col counts them
    if (rows == 0 || d.out_cols == 0) return;
    const T* ip = input.base<T>();
    const T* gp = out_backprop.base<T>();
    const bool direct = IsDirect(d);
    const int64_t block_rows = conv::RowsPerBlock(d.out_cols * k, sizeof(T));
    // A few parts per thread, each summing its rows into its own [k, out_depth] partial.
    const int64_t parts = std::min<int64_t>(rows, 2 * conv::NumThreads(ctx));
    std::vector<Matrix<T>> partial(parts);
    const int64_t cost_per_part = rows / parts * d.out_cols * k * d.out_depth;
    CwiseParallelFor(ctx, parts, cost_per_part, [&](int64_t part_begin, int64_t part_end) {
      for (int64_t p = part_begin; p < part_end; ++p) {
        const int64_t begin = rows * p / parts, end = rows * (p + 1) / parts;
        Matrix<T>& acc = partial[p];
        acc.setZero(k, d.out_depth);
        if (direct) {
          const int64_t m = (end - begin) * d.out_cols;
          acc.noalias() += Eigen::Map<const Matrix<T>>(ip + begin * d.out_cols * k, m, k).transpose() *
                           Eigen::Map<const Matrix<T>>(gp + begin * d.out_cols * d.out_depth, m, d.out_depth);
          continue;
        }
        Matrix<T> cols(std::min(block_rows, end - begin) * d.out_cols, k);
        for (int64_t r = begin; r < end; r += block_rows) {
          const int64_t n = std::min(block_rows, end - r);
          const int64_t m = n * d.out_cols;
          conv::Im2Col(d, ip, r, r + n, cols.data());
          acc.noalias() += Eigen::Map<const Matrix<T>>(cols.data(), m, k).transpose() *
                           Eigen::Map<const Matrix<T>>(gp + r * d.out_cols * d.out_depth, m, d.out_depth);
        }
      }
    });
    for (const Matrix<T>& p : partial) result += p;
  }

 private:
  conv::WindowAttrs attrs_;
};

#define TA_REGISTER_CONV_GRADS(T)                                                                            \
  REGISTER_KERNEL(Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"),                     \
                  Conv2DBackpropInputOp<T>);                                                                 \
  REGISTER_KERNEL(Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"),                    \
                  Conv2DBackpropFilterOp<T>);
TA_REGISTER_CONV_GRADS(float)
TA_REGISTER_CONV_GRADS(double)
#undef TA_REGISTER_CONV_GRADS

}  // namespace
}  // namespace tensoract
