// Cholesky, MatrixTriangularSolve and MatrixSolve on the CPU, each matrix of the batch computed
// with Eigen as TensorFlow's kernels compute it:
//  - Cholesky: Eigen's LLT of the lower triangle (the upper is never read); a matrix that is
//    not positive definite gives NaN in its lower triangle (TensorFlow 2.21 leaves its upper
//    triangle unwritten there; ours is 0);
//  - MatrixTriangularSolve: Eigen's triangular solve (no check for a zero diagonal: inf and
//    NaN follow), the batch dimensions of matrix and rhs broadcast;
//  - MatrixSolve: Eigen's partial-pivoting LU, refusing a matrix with an exactly zero pivot.
// float, double, complex64 and complex128, as TensorFlow's CPU kernels (half and bfloat16 they
// refuse).
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

template <class T>
using LinalgMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// What TensorFlow fills a failed factor with: numeric_limits<T>::quiet_NaN(), which for
// std::complex is not specialised and gives 0 (TensorFlow's complex Cholesky of a matrix that is
// not positive definite is 0, as ours).
template <class T>
T LinalgNaN() {
  return std::numeric_limits<T>::quiet_NaN();
}

// Input `i` of rank >= 2, in the words of TensorFlow's LinearAlgebraOp.
Status LinalgRankAtLeast2(const OpKernel& k, const Tensor& t, int i) {
  if (t.dims() >= 2) return Status::OK();
  return errors::InvalidArgument(NodePrefix(k), "Input tensor ", i, " must have rank >= 2, got ", t.dims());
}

template <class T>
class CholeskyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_OK(ctx, LinalgRankAtLeast2(*this, input, 0));
    const int64_t n = input.dim_size(input.dims() - 1);
    OP_REQUIRES(ctx, input.dim_size(input.dims() - 2) == n,
                errors::InvalidArgument(NodePrefix(*this), "Input matrix must be square."));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (n == 0 || input.NumElements() == 0) return;
    const int64_t count = input.NumElements() / (n * n);
    CwiseParallelFor(ctx, count, n * n * n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Eigen::Map<const LinalgMatrix<T>> a(input.base<T>() + i * n * n, n, n);
        Eigen::Map<LinalgMatrix<T>> l(out->base<T>() + i * n * n, n, n);
        Eigen::LLT<LinalgMatrix<T>, Eigen::Lower> llt(a);
        if (llt.info() == Eigen::Success) {
          l = llt.matrixL();
        } else {
          l.setZero();
          l.template triangularView<Eigen::Lower>().setConstant(LinalgNaN<T>());
        }
      }
    });
  }
};

// The row-major offsets of each output batch element into a batch of shape `from`, which
// broadcasts (NumPy's rules, aligned at the end) to `to`.
std::vector<int64_t> BroadcastBatchIndex(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  int64_t total = 1;
  for (int64_t d : to) total *= d;
  std::vector<int64_t> index(static_cast<size_t>(total));
  const size_t rank = to.size(), offset = rank - from.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t d = rank; d-- > offset;) {
    const int64_t size = from[d - offset];
    strides[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i, at = 0;
    for (size_t d = rank; d-- > 0;) {
      at += (rest % to[d]) * strides[d];
      rest /= to[d];
    }
    index[i] = at;
  }
  return index;
}

template <class T>
class MatrixTriangularSolveOp : public OpKernel {
 public:
  explicit MatrixTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("lower", &lower_);
    if (s.ok()) s = ctx->GetAttr("adjoint", &adjoint_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() >= 2,
                errors::InvalidArgument(NodePrefix(*this), "In[0] ndims must be >= 2: ", a.dims()));
    OP_REQUIRES(ctx, b.dims() >= 2,
                errors::InvalidArgument(NodePrefix(*this), "In[1] ndims must be >= 2: ", b.dims()));
    std::vector<int64_t> a_batch = a.shape().dim_sizes(), b_batch = b.shape().dim_sizes();
    a_batch.resize(a_batch.size() - 2);
    b_batch.resize(b_batch.size() - 2);
    std::vector<int64_t> batch(std::max(a_batch.size(), b_batch.size()));
    bool compatible = true;
    for (size_t d = 0; d < batch.size(); ++d) {
      const size_t from_end = batch.size() - d;
      const int64_t x = from_end <= a_batch.size() ? a_batch[a_batch.size() - from_end] : 1;
      const int64_t y = from_end <= b_batch.size() ? b_batch[b_batch.size() - from_end] : 1;
      if (x != y && x != 1 && y != 1) compatible = false;
      batch[d] = x == 1 ? y : x;
    }
    OP_REQUIRES(ctx, compatible,
                errors::InvalidArgument(NodePrefix(*this), "In[0] and In[1] must have compatible batch dimensions: ",
                                        a.shape().DebugString(), " vs. ", b.shape().DebugString()));
    const int64_t rows = a.dim_size(a.dims() - 1), cols = a.dim_size(a.dims() - 2);
    OP_REQUIRES(ctx, rows == cols,
                errors::InvalidArgument(NodePrefix(*this), "In[0] matrices in the last dimensions must be square (",
                                        rows, " =/= ", cols, ")"));
    const int64_t m = rows, b_rows = b.dim_size(b.dims() - 2), k = b.dim_size(b.dims() - 1);
    OP_REQUIRES(ctx, m == b_rows,
                errors::InvalidArgument(NodePrefix(*this), "In[0] mismatch In[1] shape: ", m, " vs. ", b_rows, ": ",
                                        a.shape().DebugString(), " ", b.shape().DebugString(), " ", lower_ ? 1 : 0,
                                        " ", adjoint_ ? 1 : 0));
    std::vector<int64_t> out_dims = batch;
    out_dims.push_back(m);
    out_dims.push_back(k);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> a_at = BroadcastBatchIndex(a_batch, batch), b_at = BroadcastBatchIndex(b_batch, batch);
    const bool lower = lower_, adjoint = adjoint_;
    CwiseParallelFor(ctx, static_cast<int64_t>(a_at.size()), m * m * k, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Eigen::Map<const LinalgMatrix<T>> mat(a.base<T>() + a_at[i] * m * m, m, m);
        Eigen::Map<const LinalgMatrix<T>> rhs(b.base<T>() + b_at[i] * m * k, m, k);
        Eigen::Map<LinalgMatrix<T>> x(out->base<T>() + i * m * k, m, k);
        if (lower) {
          if (adjoint) {
            x = mat.adjoint().template triangularView<Eigen::Upper>().solve(rhs);
          } else {
            x = mat.template triangularView<Eigen::Lower>().solve(rhs);
          }
        } else if (adjoint) {
          x = mat.adjoint().template triangularView<Eigen::Lower>().solve(rhs);
        } else {
          x = mat.template triangularView<Eigen::Upper>().solve(rhs);
        }
      }
    });
  }

 private:
  bool lower_ = true, adjoint_ = false;
};

template <class T>
class MatrixSolveOp : public OpKernel {
 public:
  explicit MatrixSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("adjoint", &adjoint_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES_OK(ctx, LinalgRankAtLeast2(*this, a, 0));
    OP_REQUIRES_OK(ctx, LinalgRankAtLeast2(*this, b, 1));
    bool same_batch = a.dims() == b.dims();
    for (int d = 0; same_batch && d < a.dims() - 2; ++d) same_batch = a.dim_size(d) == b.dim_size(d);
    OP_REQUIRES(ctx, same_batch,
                errors::InvalidArgument(NodePrefix(*this), "All input tensors must have the same outer dimensions."));
    const int64_t m = a.dim_size(a.dims() - 2);
    OP_REQUIRES(ctx, a.dim_size(a.dims() - 1) == m,
                errors::InvalidArgument(NodePrefix(*this), "First input (lhs) must be a square matrix."));
    OP_REQUIRES(ctx, b.dim_size(b.dims() - 2) == m,
                errors::InvalidArgument(NodePrefix(*this), "Input matrix and rhs are incompatible."));
    const int64_t k = b.dim_size(b.dims() - 1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b.shape(), &out));
    if (out->NumElements() == 0 || m == 0) return;
    const int64_t count = a.NumElements() / (m * m);
    std::vector<char> singular(static_cast<size_t>(count), 0);
    CwiseParallelFor(ctx, count, m * m * (m + k), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Eigen::Map<const LinalgMatrix<T>> mat(a.base<T>() + i * m * m, m, m);
        Eigen::Map<const LinalgMatrix<T>> rhs(b.base<T>() + i * m * k, m, k);
        Eigen::Map<LinalgMatrix<T>> x(out->base<T>() + i * m * k, m, k);
        Eigen::PartialPivLU<LinalgMatrix<T>> lu =
            adjoint_ ? Eigen::PartialPivLU<LinalgMatrix<T>>(mat.adjoint()) : Eigen::PartialPivLU<LinalgMatrix<T>>(mat);
        // TensorFlow's check: the smallest |pivot| (Eigen's minCoeff, which passes over a NaN
        // unless it comes first) must be above 0.
        using Real = typename Eigen::NumTraits<T>::Real;
        Real smallest = std::abs(lu.matrixLU()(0, 0));
        for (int64_t j = 1; j < m; ++j) {
          const Real v = std::abs(lu.matrixLU()(j, j));
          if (v < smallest) smallest = v;
        }
        if (!(smallest > Real(0))) {
          singular[i] = 1;
          continue;
        }
        x = lu.solve(rhs);
      }
    });
    for (char s : singular) {
      OP_REQUIRES(ctx, !s, errors::InvalidArgument(NodePrefix(*this), "Input matrix is not invertible."));
    }
  }

 private:
  bool adjoint_ = false;
};

#define TA_REGISTER_LINALG(T)                                                                                  \
  REGISTER_KERNEL(Name("Cholesky").Device(DEVICE_CPU).TypeConstraint<T>("T"), CholeskyOp<T>);                \
  REGISTER_KERNEL(Name("MatrixTriangularSolve").Device(DEVICE_CPU).TypeConstraint<T>("T"),                   \
                  MatrixTriangularSolveOp<T>);                                                                 \
  REGISTER_KERNEL(Name("MatrixSolve").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatrixSolveOp<T>)
TA_REGISTER_LINALG(float);
TA_REGISTER_LINALG(double);
TA_REGISTER_LINALG(complex64);
TA_REGISTER_LINALG(complex128);
#undef TA_REGISTER_LINALG

}  // namespace
}  // namespace tensoract
