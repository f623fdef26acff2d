// Eigen views of a Tensor: flat<T>(), vec<T>(), matrix<T>(), tensor<T, N>(), scalar<T>().
//
// A view maps the tensor's own buffer (no copy), row-major like TensorFlow, and is valid
// while any Tensor refers to the buffer. Kernels include this header; code that only moves
// tensors around includes kernels/tensor.h and does not pay for Eigen's tensor module.
// Accessing a tensor as the wrong element type or rank aborts: that is a bug in the
// caller, which must have checked dtype() and dims() first.
#ifndef TENSORACT_KERNELS_TENSOR_EIGEN_H_
#define TENSORACT_KERNELS_TENSOR_EIGEN_H_

#include <unsupported/Eigen/CXX11/Tensor>

#include "kernels/tensor.h"

namespace tensoract {

template <class T, int NDIMS>
struct TTypes {
  using Tensor = Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>,
                                  Eigen::Aligned>;
  using Flat = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::DenseIndex>,
                                Eigen::Aligned>;
  using Vec = Flat;
  using Matrix = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, Eigen::DenseIndex>,
                                  Eigen::Aligned>;
  using Scalar = Eigen::TensorMap<Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor,
                                                         Eigen::DenseIndex>,
                                  Eigen::Aligned>;
};

template <class T>
typename TTypes<T>::Flat Tensor::flat() const {
  return typename TTypes<T>::Flat(base<T>(), NumElements());
}

template <class T>
typename TTypes<T>::Vec Tensor::vec() const {
  CheckRank(1);
  return typename TTypes<T>::Vec(base<T>(), dim_size(0));
}

template <class T>
typename TTypes<T>::Matrix Tensor::matrix() const {
  CheckRank(2);
  return typename TTypes<T>::Matrix(base<T>(), dim_size(0), dim_size(1));
}

template <class T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::tensor() const {
  CheckRank(NDIMS);
  Eigen::array<Eigen::DenseIndex, NDIMS> dims;
  for (int i = 0; i < NDIMS; ++i) dims[i] = dim_size(i);
  return typename TTypes<T, NDIMS>::Tensor(base<T>(), dims);
}

template <class T>
typename TTypes<T>::Scalar Tensor::scalar() const {
  if (NumElements() != 1) CheckRank(0);
  return typename TTypes<T>::Scalar(base<T>());
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_TENSOR_EIGEN_H_
