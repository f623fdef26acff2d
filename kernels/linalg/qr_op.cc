// Qr on the CPU, each matrix of the batch factored with Eigen's HouseholderQR as TensorFlow's
// kernel factors it, so the factors' signs are the same algorithm's choices: q is
// householderQ() times the m x p identity (all m columns with full_matrices), r the upper
// triangle of the first p (or m) rows of matrixQR(). Empty matrices give empty factors, with
// full_matrices an identity for the non-empty side. float, double, complex64, complex128 and
// half, as TensorFlow's CPU kernels (half: Eigen's HouseholderQR in half).
#include <Eigen/QR>
#include <algorithm>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/kernel_registry.h"
#include "kernels/linalg/factor_util.h"

namespace tensoract {
namespace {

using linalg::FactorMatrix;
using linalg::FactorRank;
using linalg::FactorShape;

template <class T>
class QrOp : public OpKernel {
 public:
  explicit QrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("full_matrices", &full_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_OK(ctx, FactorRank(*this, input));
    const int64_t m = input.dim_size(input.dims() - 2), n = input.dim_size(input.dims() - 1), p = std::min(m, n);
    const int64_t qc = full_ ? m : p, rr = full_ ? m : p;
    Tensor *q = nullptr, *r = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, FactorShape(input, {m, qc}), &q));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, FactorShape(input, {rr, n}), &r));
    const int64_t count = FactorShape(input, {}).num_elements();
    if (m * qc == 0 && rr * n == 0) return;
    CwiseParallelFor(ctx, count, m * n * p + m * m * qc, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Eigen::Map<FactorMatrix<T>> qi(q->base<T>() + i * m * qc, m, qc);
        Eigen::Map<FactorMatrix<T>> ri(r->base<T>() + i * rr * n, rr, n);
        if (m == 0 || n == 0) {
          qi.setIdentity();
          ri.setZero();
          continue;
        }
        Eigen::Map<const FactorMatrix<T>> a(input.base<T>() + i * m * n, m, n);
        Eigen::HouseholderQR<FactorMatrix<T>> qr(a);
        if (full_) {
          qi = qr.householderQ();
          ri = qr.matrixQR().template triangularView<Eigen::Upper>();
        } else {
          FactorMatrix<T> identity = FactorMatrix<T>::Identity(m, p);
          qi = qr.householderQ() * identity;
          ri = qr.matrixQR().block(0, 0, p, n).template triangularView<Eigen::Upper>();
        }
      }
    });
  }

 private:
  bool full_ = false;
};


REGISTER_KERNEL(Name("Qr").Device(DEVICE_CPU).TypeConstraint<float>("T"), QrOp<float>);
REGISTER_KERNEL(Name("Qr").Device(DEVICE_CPU).TypeConstraint<double>("T"), QrOp<double>);
REGISTER_KERNEL(Name("Qr").Device(DEVICE_CPU).TypeConstraint<complex64>("T"), QrOp<complex64>);
REGISTER_KERNEL(Name("Qr").Device(DEVICE_CPU).TypeConstraint<complex128>("T"), QrOp<complex128>);
REGISTER_KERNEL(Name("Qr").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), QrOp<Eigen::half>);

}  // namespace
}  // namespace tensoract
