// MatMul on the CPU: Eigen's GEMM over the tensors' row-major buffers, no copies. A large
// product is cut into one block of rows (or columns) per device thread, each its own GEMM.
#include <Eigen/Core>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/device.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

template <class T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("transpose_a", &transpose_a_);
    if (s.ok()) s = ctx->GetAttr("transpose_b", &transpose_b_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                errors::InvalidArgument("node '", name(), "' (MatMul): both inputs must be matrices, got shapes ",
                                        a.shape().DebugString(), " and ", b.shape().DebugString()));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0), k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t kb = b.dim_size(transpose_b_ ? 1 : 0), n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, k == kb,
                errors::InvalidArgument("node '", name(), "' (MatMul): matrix size-incompatible: In[0]: ",
                                        a.shape().DebugString(), ", In[1]: ", b.shape().DebugString(),
                                        (transpose_a_ ? " (a transposed)" : ""), (transpose_b_ ? " (b transposed)" : ""),
                                        "; the inner dimensions ", k, " and ", kb, " differ"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    Eigen::Map<const Matrix> am(a.base<T>(), a.dim_size(0), a.dim_size(1));
    Eigen::Map<const Matrix> bm(b.base<T>(), b.dim_size(0), b.dim_size(1));
    Eigen::Map<Matrix> cm(out->base<T>(), m, n);
    if (k == 0) {
      cm.setZero();
      return;
    }
    // One block per thread: GEMM packs its right-hand side once per call, so fewer, larger
    // blocks beat the finer chunks element-wise kernels use. Rows when there are more of
    // them, else columns, so a [1, n] product still splits.
    const int threads = ctx->device() == nullptr ? 1 : ctx->device()->num_threads();
    const bool by_rows = m >= n;
    const int64_t extent = by_rows ? m : n;
    const int64_t blocks = (m * n * k < (int64_t{1} << 18)) ? 1 : std::min<int64_t>(threads, extent);
    const int64_t step = (extent + blocks - 1) / blocks;
    CwiseParallelFor(ctx, blocks, int64_t{1} << 40, [&](int64_t first, int64_t last) {
      for (int64_t blk = first; blk < last; ++blk) {
        const int64_t b = blk * step, e = std::min(extent, b + step);
        if (b >= e) continue;
        if (by_rows) {
          Product(am, bm, b, e - b, 0, n, cm);
        } else {
          Product(am, bm, 0, m, b, e - b, cm);
        }
      }
    });
  }

 private:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // c[r0:r0+rows, c0:c0+cols] = op(a)[r0:, :] * op(b)[:, c0:].
  void Product(const Eigen::Map<const Matrix>& am, const Eigen::Map<const Matrix>& bm, int64_t r0, int64_t rows,
               int64_t c0, int64_t cols, Eigen::Map<Matrix>& cm) const {
    auto c = cm.block(r0, c0, rows, cols);
    if (!transpose_a_ && !transpose_b_) {
      c.noalias() = am.middleRows(r0, rows) * bm.middleCols(c0, cols);
    } else if (transpose_a_ && !transpose_b_) {
      c.noalias() = am.middleCols(r0, rows).transpose() * bm.middleCols(c0, cols);
    } else if (!transpose_a_) {
      c.noalias() = am.middleRows(r0, rows) * bm.middleRows(c0, cols).transpose();
    } else {
      c.noalias() = am.middleCols(r0, rows).transpose() * bm.middleRows(c0, cols).transpose();
    }
  }

  bool transpose_a_ = false, transpose_b_ = false;
};

REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), MatMulOp<float>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), MatMulOp<double>);

}  // namespace
}  // namespace tensoract
