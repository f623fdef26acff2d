// One row of Softmax or LogSoftmax: shifted by its maximum before exp, so that large logits
// cannot overflow. Shared by the Softmax kernels (kernels/cpu/softmax_op.cc) and the fused
// attention where there are no vector kernels (kernels/cpu/fused_attention_op.cc; with them,
// gemm::AttentionHead pads its rows to whole vectors instead).
#ifndef TENSORACT_KERNELS_CPU_SOFTMAX_ROW_H_
#define TENSORACT_KERNELS_CPU_SOFTMAX_ROW_H_

#include <cmath>
#include <cstdint>

#include <Eigen/Core>

namespace tensoract {

// out[0, n) = softmax(in[0, n)) (or its log); out may be in.
template <class T, bool kLog = false>
void SoftmaxRow(const T* in, T* out, int64_t n) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<const Array> x(in, n);
  Eigen::Map<Array> y(out, n);
  const T max = x.maxCoeff();
  if (kLog) {
    y = x - max;
    y -= std::log(y.exp().sum());
  } else {
    y = (x - max).exp();  // the shift and exp in one pass
    y *= T(1) / y.sum();
  }
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_SOFTMAX_ROW_H_
