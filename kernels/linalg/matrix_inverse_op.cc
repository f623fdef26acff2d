// MatrixInverse and MatrixDeterminant on the CPU: each [n, n] matrix of the batch
// factorised with Eigen's partial-pivoting LU, as TensorFlow does. An exactly zero pivot
// makes MatrixInverse fail ("Input is not invertible."); the determinant is then 0.
// MatrixInverse in float, double, half (Eigen's LU in half arithmetic, as there), complex64
// and complex128; MatrixDeterminant in float, double, complex64 and complex128 (TensorFlow's
// CPU kernels; its half determinant has none).
#include <Eigen/Core>
#include <Eigen/LU>
#include <type_traits>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

using Index = Eigen::Index;

// The matrix size n of a [..., n, n] input, or an error naming the node.
Status SquareSize(const OpKernel& k, const Tensor& input, int64_t* n) {
  if (input.dims() < 2) {
    return errors::InvalidArgument(NodePrefix(k), "Input must have rank >= 2, got ", input.dims());
  }
  *n = input.dim_size(input.dims() - 1);
  if (input.dim_size(input.dims() - 2) != *n) {
    return errors::InvalidArgument(NodePrefix(k), "Input matrices must be square, got ",
                                   input.shape().DebugString());
  }
  return Status::OK();
}

// The half inverse as PartialPivLU<half>::inverse() computes it (in-place LU with row
// transpositions, then the two triangular solves of the permuted identity), without the
// class: Eigen 3.4's PartialPivLU does not compile for half (its L1 norm's packet reduction).
// False on an exactly zero pivot.
template <class In, class Out>
bool InverseInHalf(bool adjoint, const In& a, Out& inv) {
  using Matrix = Eigen::Matrix<Eigen::half, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix lu = adjoint ? Matrix(a.adjoint()) : Matrix(a);
  Eigen::Transpositions<Eigen::Dynamic, Eigen::Dynamic, int> rows(lu.rows());
  int swaps = 0;
  Eigen::internal::partial_lu_inplace(lu, rows, swaps);
  // Eigen's minCoeff, as TensorFlow's check: a NaN pivot after the first is passed over.
  if (!(lu.diagonal().cwiseAbs().minCoeff() > Eigen::half(0.f))) return false;
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> p(rows);
  Matrix x = p * Matrix::Identity(lu.rows(), lu.cols());
  lu.template triangularView<Eigen::UnitLower>().solveInPlace(x);
  lu.template triangularView<Eigen::Upper>().solveInPlace(x);
  inv = x;
  return true;
}

template <class T>
class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("adjoint", &adjoint_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0;
    OP_REQUIRES_OK(ctx, SquareSize(*this, input, &n));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (n == 0) return;
    const int64_t count = input.NumElements() / (n * n);
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    std::vector<char> singular(count, 0);
    CwiseParallelFor(ctx, count, n * n * n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Eigen::Map<const Matrix> a(input.base<T>() + i * n * n, n, n);
        Eigen::Map<Matrix> inv(out->base<T>() + i * n * n, n, n);
        if constexpr (std::is_same_v<T, Eigen::half>) {
          singular[i] = !InverseInHalf(adjoint_, a, inv);
          continue;
        } else {
          Eigen::PartialPivLU<Matrix> lu = adjoint_ ? Eigen::PartialPivLU<Matrix>(a.adjoint()) : Eigen::PartialPivLU<Matrix>(a);
          // PartialPivLU promises nothing for singular matrices; an exact zero pivot at least
          // catches the usual mistakes (integer-valued singular matrices).
          using Real = typename Eigen::NumTraits<T>::Real;
          if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > Real(0))) {
            singular[i] = 1;
            continue;
          }
          inv = lu.inverse();
        }
      }
    });
    for (char s : singular) {
      OP_REQUIRES(ctx, !s, errors::InvalidArgument(NodePrefix(*this), "Input is not invertible."));
    }
  }

 private:
  bool adjoint_ = false;
};

template <class T>
class MatrixDeterminantOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0;
    OP_REQUIRES_OK(ctx, SquareSize(*this, input, &n));
    std::vector<int64_t> dims = input.shape().dim_sizes();
    dims.resize(dims.size() - 2);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t count = out->NumElements();
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    CwiseParallelFor(ctx, count, std::max<int64_t>(1, n * n * n), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if (n == 0) {
          out->base<T>()[i] = T(1);
          continue;
        }
        Eigen::Map<const Matrix> a(input.base<T>() + i * n * n, n, n);
        out->base<T>()[i] = Eigen::PartialPivLU<Matrix>(a).determinant();
      }
    });
  }
};

#define TA_REGISTER_INVERSE(T) \
  REGISTER_KERNEL(Name("MatrixInverse").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatrixInverseOp<T>)
#define TA_REGISTER_DETERMINANT(T) \
  REGISTER_KERNEL(Name("MatrixDeterminant").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatrixDeterminantOp<T>)
TA_REGISTER_INVERSE(float);
TA_REGISTER_INVERSE(double);
TA_REGISTER_INVERSE(Eigen::half);
TA_REGISTER_INVERSE(complex64);
TA_REGISTER_INVERSE(complex128);
TA_REGISTER_DETERMINANT(float);
TA_REGISTER_DETERMINANT(double);
TA_REGISTER_DETERMINANT(complex64);
TA_REGISTER_DETERMINANT(complex128);
#undef TA_REGISTER_INVERSE
#undef TA_REGISTER_DETERMINANT

}  // namespace
}  // namespace tensoract
