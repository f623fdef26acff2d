// One row of Softmax or LogSoftmax: shifted by its maximum before exp, so that large logits
// cannot overflow. Shared by the Softmax kernels (kernels/cpu/softmax_op.cc) and the fused
// attention where there are no vector kernels (kernels/cpu/fused_attention_op.cc; with them,
// gemm::AttentionHead pads its rows to whole vectors instead).
#ifndef TENSORACT_KERNELS_CPU_SOFTMAX_ROW_H_
#define TENSORACT_KERNELS_CPU_SOFTMAX_ROW_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "kernels/cpu/small_float_sum.h"

namespace tensoract {

// out[0, n) = softmax(in[0, n)) (or its log); out may be in. half and bfloat16 take
// TensorFlow's steps (softmax_op_functor.h), each rounded to T as its Eigen expression
// rounds it: x - max, exp, the sum (in Eigen's order: kernels/cpu/small_float_sum.h, for
// which `first` is in[0]'s index in its tensor), 1 / sum and the product (LogSoftmax:
// x - max, the sum, its log and the difference).
template <class T, bool kLog = false>
void SoftmaxRow(const T* in, T* out, int64_t n, int64_t first = 0) {
  if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
    float max = static_cast<float>(in[0]);
    for (int64_t i = 1; i < n; ++i) max = std::max(max, static_cast<float>(in[i]));
    std::vector<float> e(n);
    for (int64_t i = 0; i < n; ++i) e[i] = RoundedTo<T>(std::exp(RoundedTo<T>(static_cast<float>(in[i]) - max)));
    const float sum = EigenRowSum<T>(e.data(), first, n);
    if (kLog) {
      const float log_sum = RoundedTo<T>(std::log(sum));
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(RoundedTo<T>(static_cast<float>(in[i]) - max) - log_sum);
    } else {
      const float inverse = RoundedTo<T>(1.f / sum);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(e[i] * inverse);
    }
  } else {
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
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_SOFTMAX_ROW_H_
