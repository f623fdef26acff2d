// Svd on the CPU, each matrix of the batch factored with Eigen's BDCSVD (Jacobi below 16
// columns), thin or full, as TensorFlow's kernel factors it, so the factors' signs are the
// same algorithm's choices; a matrix holding NaN or inf gives NaN factors, as TensorFlow
// 2.21's. Without compute_uv the vectors' outputs are scalars, as TensorFlow's kernel
// allocates them (left unwritten there; 0 here). Empty matrices give empty factors, with
// full_matrices an identity for the non-empty side. float and double; not complex yet: its
// singular vectors part from TensorFlow's (Debian's Eigen 3.4 against its newer one) beyond
// rounding.
#include <Eigen/SVD>
#include <algorithm>
#include <limits>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/kernel_registry.h"
#include "kernels/linalg/factor_util.h"

namespace tensoract {
namespace {

using linalg::FactorMatrix;
using linalg::FactorRank;
using linalg::FactorShape;

template <class T>
class SvdOp : public OpKernel {
 public:
  explicit SvdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("compute_uv", &compute_uv_);
    if (s.ok()) s = ctx->GetAttr("full_matrices", &full_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_OK(ctx, FactorRank(*this, input));
    const int64_t m = input.dim_size(input.dims() - 2), n = input.dim_size(input.dims() - 1), p = std::min(m, n);
    const int64_t uc = full_ ? m : p, vc = full_ ? n : p;
    Tensor *s = nullptr, *u = nullptr, *v = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, FactorShape(input, {p}), &s));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, compute_uv_ ? FactorShape(input, {m, uc}) : TensorShape({}), &u));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, compute_uv_ ? FactorShape(input, {n, vc}) : TensorShape({}), &v));
    if (!compute_uv_) {
      u->base<T>()[0] = T(0);
      v->base<T>()[0] = T(0);
    }
    const int64_t batch = FactorShape(input, {}).num_elements();
    const bool compute_uv = compute_uv_, full = full_;
    CwiseParallelFor(ctx, batch, 20 * m * n * std::max<int64_t>(p, 1), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> si(s->base<T>() + i * p, p);
        if (m == 0 || n == 0) {
          // TensorFlow: only the full factors of an empty matrix have elements, an identity.
          if (compute_uv && full) {
            Eigen::Map<FactorMatrix<T>>(u->base<T>() + i * m * uc, m, uc).setIdentity();
            Eigen::Map<FactorMatrix<T>>(v->base<T>() + i * n * vc, n, vc).setIdentity();
          }
          continue;
        }
        Eigen::Map<const FactorMatrix<T>> a(input.base<T>() + i * m * n, m, n);
        if (!a.allFinite()) {
          const T nan = std::numeric_limits<T>::quiet_NaN();
          si.setConstant(nan);
          if (compute_uv) {
            Eigen::Map<FactorMatrix<T>>(u->base<T>() + i * m * uc, m, uc).setConstant(nan);
            Eigen::Map<FactorMatrix<T>>(v->base<T>() + i * n * vc, n, vc).setConstant(nan);
          }
          continue;
        }
        const unsigned options = !compute_uv ? 0u
                                 : full      ? unsigned(Eigen::ComputeFullU | Eigen::ComputeFullV)
                                             : unsigned(Eigen::ComputeThinU | Eigen::ComputeThinV);
        Eigen::BDCSVD<FactorMatrix<T>> svd(a, options);
        si = svd.singularValues();
        if (compute_uv) {
          Eigen::Map<FactorMatrix<T>>(u->base<T>() + i * m * uc, m, uc) = svd.matrixU();
          Eigen::Map<FactorMatrix<T>>(v->base<T>() + i * n * vc, n, vc) = svd.matrixV();
        }
      }
    });
  }

 private:
  bool compute_uv_ = true, full_ = false;
};

REGISTER_KERNEL(Name("Svd").Device(DEVICE_CPU).TypeConstraint<float>("T"), SvdOp<float>);
REGISTER_KERNEL(Name("Svd").Device(DEVICE_CPU).TypeConstraint<double>("T"), SvdOp<double>);

}  // namespace
}  // namespace tensoract
