// SelfAdjointEigV2 on the CPU, each matrix of the batch diagonalised with Eigen's
// SelfAdjointEigenSolver of its lower triangle, as TensorFlow's kernel does: eigenvalues
// ascending (real, as complex numbers for complex input); a matrix it cannot diagonalise
// (NaN, inf) is refused with TensorFlow's message. Without compute_v the vectors' output is a
// scalar, as TensorFlow's kernel allocates it (left unwritten there; 0 here). float, double,
// complex64 and complex128.
#include <Eigen/Eigenvalues>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"  // NodePrefix
#include "kernels/kernel_registry.h"
#include "kernels/linalg/factor_util.h"

namespace tensoract {
namespace {

using linalg::FactorMatrix;
using linalg::FactorRank;
using linalg::FactorShape;

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


REGISTER_KERNEL(Name("SelfAdjointEigV2").Device(DEVICE_CPU).TypeConstraint<float>("T"), SelfAdjointEigV2Op<float>);
REGISTER_KERNEL(Name("SelfAdjointEigV2").Device(DEVICE_CPU).TypeConstraint<double>("T"), SelfAdjointEigV2Op<double>);
REGISTER_KERNEL(Name("SelfAdjointEigV2").Device(DEVICE_CPU).TypeConstraint<complex64>("T"),
                SelfAdjointEigV2Op<complex64>);
REGISTER_KERNEL(Name("SelfAdjointEigV2").Device(DEVICE_CPU).TypeConstraint<complex128>("T"),
                SelfAdjointEigV2Op<complex128>);

}  // namespace
}  // namespace tensoract
