// MatMul on the CPU: Eigen's GEMM over the tensors' row-major buffers, no copies.
#include <Eigen/Core>

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
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const Matrix> am(a.base<T>(), a.dim_size(0), a.dim_size(1));
    Eigen::Map<const Matrix> bm(b.base<T>(), b.dim_size(0), b.dim_size(1));
    Eigen::Map<Matrix> cm(out->base<T>(), m, n);
    if (k == 0) {
      cm.setZero();
    } else if (!transpose_a_ && !transpose_b_) {
      cm.noalias() = am * bm;
    } else if (transpose_a_ && !transpose_b_) {
      cm.noalias() = am.transpose() * bm;
    } else if (!transpose_a_) {
      cm.noalias() = am * bm.transpose();
    } else {
      cm.noalias() = am.transpose() * bm.transpose();
    }
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false;
};

REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), MatMulOp<float>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), MatMulOp<double>);

}  // namespace
}  // namespace tensoract
