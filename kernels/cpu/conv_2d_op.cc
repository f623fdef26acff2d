// Conv2D on the CPU, NHWC: im2col of a block of output rows into a scratch matrix, then one
// Eigen GEMM of that [pixels, rows*cols*in_depth] matrix with the filter viewed as
// [rows*cols*in_depth, out_depth] (HWIO is exactly that, row-major); the product is the
// block of the NHWC output. Blocks of output rows are spread over the device's threads.
// A 1x1 filter with stride 1 needs no im2col: the input already is that matrix.
#include <Eigen/Core>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class T>
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/true, /*has_ksize=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, conv::ConvDimsFromShapes(*this, attrs_, input.shape(), filter.shape(), &d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({d.batch, d.out_rows, d.out_cols, d.out_depth}), &out));
    if (out->NumElements() == 0) return;
    const int64_t k = d.patch_size();
    T* op = out->base<T>();
    if (k == 0) {
      std::fill(op, op + out->NumElements(), T(0));
      return;
    }
    const T* ip = input.base<T>();
    Eigen::Map<const Matrix<T>> f(filter.base<T>(), k, d.out_depth);
    const int64_t pixels_per_row = d.out_cols;
    const bool direct = d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 && d.stride_cols == 1;
    const int64_t block_rows = conv::RowsPerBlock(pixels_per_row * k, sizeof(T));
    // Global output rows (image * out_rows + row): their outputs are contiguous in NHWC.
    CwiseParallelFor(ctx, d.batch * d.out_rows, pixels_per_row * k * d.out_depth, [&](int64_t begin, int64_t end) {
      if (direct) {
        const int64_t m = (end - begin) * pixels_per_row;
        Eigen::Map<const Matrix<T>> in(ip + begin * pixels_per_row * k, m, k);
        Eigen::Map<Matrix<T>>(op + begin * pixels_per_row * d.out_depth, m, d.out_depth).noalias() = in * f;
        return;
      }
      Matrix<T> cols(std::min(block_rows, end - begin) * pixels_per_row, k);
      for (int64_t r = begin; r < end; r += block_rows) {
        const int64_t n = std::min(block_rows, end - r);
        conv::Im2Col(d, ip, r, r + n, cols.data());
        const int64_t m = n * pixels_per_row;
        Eigen::Map<Matrix<T>>(op + r * pixels_per_row * d.out_depth, m, d.out_depth).noalias() =
            Eigen::Map<const Matrix<T>>(cols.data(), m, k) * f;
      }
    });
  }

 private:
  conv::WindowAttrs attrs_;
};

REGISTER_KERNEL(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"), Conv2DOp<float>);
REGISTER_KERNEL(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<double>("T"), Conv2DOp<double>);

}  // namespace
}  // namespace tensoract
