// Qr, SelfAdjointEigV2 and Svd on the CPU, each matrix of the batch factored with Eigen as
// TensorFlow's kernels factor it, so the factors' signs are the same algorithm's choices:
//  - Qr: HouseholderQR; q is householderQ() times the m x p identity (all m columns with
//    full_matrices), r the upper triangle of the first p (or m) rows of matrixQR();
//  - SelfAdjointEigV2: SelfAdjointEigenSolver of the lower triangle; eigenvalues ascending;
//    a matrix it cannot diagonalise (NaN, inf) is refused with TensorFlow's message;
//  - Svd: BDCSVD (Jacobi below 16 columns), thin or full; a matrix holding NaN or inf gives
//    NaN factors, as TensorFlow 2.21's.
// Without compute_v (compute_uv) the vectors' outputs are scalars, as TensorFlow's kernels
// allocate them (left unwritten there; 0 here). Empty matrices give empty factors, with
// full_matrices an identity for the non-empty side. float and double; Qr and SelfAdjointEigV2
// also complex64 and complex128 (eigenvalues, real, as complex numbers), Qr also half, as
// TensorFlow's.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

template <class T>
using FactorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// batch + dims, for the outputs of a [..., m, n] input.
TensorShape FactorShape(const Tensor& input, std::vector<int64_t> dims) {
  std::vector<int64_t> all = input.shape().dim_sizes();
  all.resize(all.size() - 2);
  all.insert(all.end(), dims.begin(), dims.end());
  return TensorShape(all);
}

Status FactorRank(const OpKernel& k, const Tensor& input) {
  if (input.dims() >= 2) return Status::OK();
  return errors::InvalidArgument(NodePrefix(k), "Input tensor 0 must have rank >= 2, got ", input.dims());
}

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

template <class T>
class SelfAdjointEigV2Op : public OpKernel {
 public:
  explicit SelfAdjointEigV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("compute_v", &compute_v_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_OK(ctx, FactorRank(*this, input));
    const int64_t n = input.dim_size(input.dims() - 1);
    OP_REQUIRES(ctx, input.dim_size(input.dims() - 2) == n,
                errors::InvalidArgument(NodePrefix(*this), "Input matrix must be square."));
    Tensor *e = nullptr, *v = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, FactorShape(input, {n}), &e));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, compute_v_ ? FactorShape(input, {n, n}) : TensorShape({}), &v));
    if (!compute_v_) v->base<T>()[0] = T(0);
    if (n == 0 || input.NumElements() == 0) return;
    const int64_t count = input.NumElements() / (n * n);
    std::vector<char> failed(static_cast<size_t>(count), 0);
    const bool compute_v = compute_v_;
    CwiseParallelFor(ctx, count, 10 * n * n * n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Eigen::Map<const FactorMatrix<T>> a(input.base<T>() + i * n * n, n, n);
        // Eigen reads the lower triangle only; so does the finiteness check.
        if (!a.template triangularView<Eigen::Lower>().toDenseMatrix().allFinite()) {
          failed[i] = 1;
          continue;
        }
        Eigen::SelfAdjointEigenSolver<FactorMatrix<T>> eig(
            a, compute_v ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
        if (eig.info() != Eigen::Success) {
          failed[i] = 1;
          continue;
        }
        Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(e->base<T>() + i * n, n) = eig.eigenvalues().template cast<T>();
        if (compute_v) Eigen::Map<FactorMatrix<T>>(v->base<T>() + i * n * n, n, n) = eig.eigenvectors();
      }
    });
    for (char f : failed) {
      OP_REQUIRES(ctx, !f,
                  errors::InvalidArgument(NodePrefix(*this), "Self-adjoint eigen decomposition was not successful. "
                                                             "The input might not be valid."));
    }
  }

 private:
  bool compute_v_ = true;
};

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

#define TA_REGISTER_FACTOR(T)                                                                          \
  REGISTER_KERNEL(Name("Qr").Device(DEVICE_CPU).TypeConstraint<T>("T"), QrOp<T>);                    \
  REGISTER_KERNEL(Name("SelfAdjointEigV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelfAdjointEigV2Op<T>); \
  REGISTER_KERNEL(Name("Svd").Device(DEVICE_CPU).TypeConstraint<T>("T"), SvdOp<T>)
TA_REGISTER_FACTOR(float);
TA_REGISTER_FACTOR(double);
#undef TA_REGISTER_FACTOR
// Complex Qr and SelfAdjointEigV2 as TensorFlow's. Not complex Svd yet: its singular vectors
// part from TensorFlow's (Debian's Eigen 3.4 against its newer one) beyond rounding.
#define TA_REGISTER_COMPLEX_FACTOR(T)                                                    \
  REGISTER_KERNEL(Name("Qr").Device(DEVICE_CPU).TypeConstraint<T>("T"), QrOp<T>);      \
  REGISTER_KERNEL(Name("SelfAdjointEigV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelfAdjointEigV2Op<T>)
TA_REGISTER_COMPLEX_FACTOR(complex64);
TA_REGISTER_COMPLEX_FACTOR(complex128);
#undef TA_REGISTER_COMPLEX_FACTOR
// TensorFlow's CPU kernels factor half matrices only in Qr (Eigen's HouseholderQR in half).
REGISTER_KERNEL(Name("Qr").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), QrOp<Eigen::half>);

}  // namespace
}  // namespace tensoract
