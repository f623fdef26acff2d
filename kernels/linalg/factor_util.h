// What Qr, SelfAdjointEigV2 and Svd (qr_op.cc, self_adjoint_eig_op.cc, svd_op.cc) share: the
// row-major Eigen matrix each matrix of the batch is factored as, the outputs' shapes and the
// rank check. Each op compiles in a file of its own: Eigen's factorisations are minutes of
// compile time together (Svd's BDCSVD most), which 2 cores then share.
#ifndef TENSORACT_KERNELS_LINALG_FACTOR_UTIL_H_
#define TENSORACT_KERNELS_LINALG_FACTOR_UTIL_H_

#include <Eigen/Core>
#include <vector>

#include "kernels/cpu/strided_copy.h"  // NodePrefix
#include "kernels/op_kernel.h"

namespace tensoract {
namespace linalg {

template <class T>
using FactorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// batch + dims, for the outputs of a [..., m, n] input.
inline TensorShape FactorShape(const Tensor& input, std::vector<int64_t> dims) {
  std::vector<int64_t> all = input.shape().dim_sizes();
  all.resize(all.size() - 2);
  all.insert(all.end(), dims.begin(), dims.end());
  return TensorShape(all);
}

inline Status FactorRank(const OpKernel& k, const Tensor& input) {
  if (input.dims() >= 2) return Status::OK();
  return errors::InvalidArgument(NodePrefix(k), "Input tensor 0 must have rank >= 2, got ", input.dims());
}

}  // namespace linalg
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_LINALG_FACTOR_UTIL_H_
