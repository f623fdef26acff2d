// Sum, Prod and Mean of complex64 and complex128 on the CPU, as TensorFlow 2.21's: Eigen's
// sum and product reducers; Mean divides the sum by complex(count, 0) as TensorFlow's
// MeanReducer does, and the mean of nothing is 0 (a float one is NaN).
#include "kernels/cpu/reduction_ops.h"

namespace tensoract {
namespace {

using namespace reduction;  // NOLINT: the kernel this file registers

struct ComplexDivideByCount {
  template <class T>
  void operator()(const Eigen::ThreadPoolDevice&, T* out, int64_t n, int64_t count) const {
    if (count <= 1) return;  // an empty mean stays 0, as TensorFlow's complex one
    using R = typename T::value_type;
    const R c = static_cast<R>(count);
    // (a + bi) / (c + 0i) as both of TensorFlow's quotients compute it: b * 0 and a * 0 stay
    // in, so an infinite or NaN part makes the other NaN.
    for (int64_t i = 0; i < n; ++i) {
      const R a = out[i].real(), b = out[i].imag();
      out[i] = T((a + b * R(0)) / c, (b - a * R(0)) / c);
    }
  }
};

#define TA_REGISTER_REDUCTION(NAME, T, ...) \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), ReductionOp<T, __VA_ARGS__>)
#define TA_REGISTER_COMPLEX(T)                                                      \
  TA_REGISTER_REDUCTION("Sum", T, Eigen::internal::SumReducer<T>);                  \
  TA_REGISTER_REDUCTION("Prod", T, Eigen::internal::ProdReducer<T>);                \
  TA_REGISTER_REDUCTION("Mean", T, Eigen::internal::SumReducer<T>, ComplexDivideByCount);
TA_REGISTER_COMPLEX(complex64)
TA_REGISTER_COMPLEX(complex128)
#undef TA_REGISTER_COMPLEX
#undef TA_REGISTER_REDUCTION

}  // namespace
}  // namespace tensoract
