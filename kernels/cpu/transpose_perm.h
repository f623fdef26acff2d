// Transpose's permutation input read as TensorFlow 2.21 reads it, shared by the CPU and GPU
// kernels: a vector of the input's rank, each dimension once, a negative entry counting
// from the end (perm [-1, 0] of a matrix is [1, 0]; issue 32).
#ifndef TENSORACT_KERNELS_CPU_TRANSPOSE_PERM_H_
#define TENSORACT_KERNELS_CPU_TRANSPOSE_PERM_H_

#include <cstdint>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {

inline Status ReadTransposePerm(const OpKernel& kernel, const Tensor& perm_t, int rank, std::vector<int>* perm) {
  if (perm_t.dims() != 1) {
    return errors::InvalidArgument("node '", kernel.name(), "' (Transpose): perm must be a vector, not ",
                                   perm_t.shape().DebugString());
  }
  if (perm_t.NumElements() != rank) {
    return errors::InvalidArgument("node '", kernel.name(), "' (Transpose): transpose expects a vector of size ", rank,
                                   ". But input(1) is a vector of size ", perm_t.NumElements());
  }
  perm->assign(rank, 0);
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    int64_t p = perm_t.dtype() == tensorflow::DT_INT32 ? perm_t.base<int32_t>()[i] : perm_t.base<int64_t>()[i];
    if (p < 0 && p >= -rank) p += rank;
    if (p < 0 || p >= rank) {
      return errors::InvalidArgument("node '", kernel.name(), "' (Transpose): ", p, " is out of range [0 .. ", rank,
                                     ")");
    }
    if (seen[p]) {
      return errors::InvalidArgument("node '", kernel.name(), "' (Transpose): ", p,
                                     " is duplicated in the permutation");
    }
    seen[p] = true;
    (*perm)[i] = static_cast<int>(p);
  }
  return Status::OK();
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_TRANSPOSE_PERM_H_
