// The correctly rounded square root as an Eigen functor with a vector form: the hardware's
// sqrt instructions (sqrtps/pd at every width), which give what std::sqrt gives element by
// element (inf for inf, NaN below zero, a denormal read as zero under the kernels' DAZ mode).
// Eigen 3.4's own packet sqrt, with EIGEN_FAST_MATH, is a refined reciprocal estimate: NaN for
// inf and off in the last bit; a lambda around std::sqrt has no vector form at all, which
// makes the whole expression around it scalar.
//   y = x.unaryExpr(IeeeSqrt<T>());   // T: float or double vectorised; any other T scalar
#ifndef TENSORACT_KERNELS_CPU_IEEE_SQRT_H_
#define TENSORACT_KERNELS_CPU_IEEE_SQRT_H_

#include <Eigen/Core>
#include <cmath>
#include <immintrin.h>
#include <type_traits>

namespace tensoract {

namespace ieee_sqrt_detail {
inline Eigen::internal::Packet4f Sqrt(const Eigen::internal::Packet4f& x) { return _mm_sqrt_ps(x); }
inline Eigen::internal::Packet2d Sqrt(const Eigen::internal::Packet2d& x) { return _mm_sqrt_pd(x); }
#if defined(__AVX__)
inline Eigen::internal::Packet8f Sqrt(const Eigen::internal::Packet8f& x) { return _mm256_sqrt_ps(x); }
inline Eigen::internal::Packet4d Sqrt(const Eigen::internal::Packet4d& x) { return _mm256_sqrt_pd(x); }
#endif
#if defined(__AVX512F__)
inline Eigen::internal::Packet16f Sqrt(const Eigen::internal::Packet16f& x) { return _mm512_sqrt_ps(x); }
inline Eigen::internal::Packet8d Sqrt(const Eigen::internal::Packet8d& x) { return _mm512_sqrt_pd(x); }
#endif
}  // namespace ieee_sqrt_detail

template <class T>
struct IeeeSqrt {
  T operator()(const T& x) const {
    using std::sqrt;
    return sqrt(x);
  }
  template <class Packet>
  Packet packetOp(const Packet& x) const { return ieee_sqrt_detail::Sqrt(x); }
};

}  // namespace tensoract

template <class T>
struct Eigen::internal::functor_traits<tensoract::IeeeSqrt<T>> {
  enum {
    Cost = 8,
    PacketAccess = (std::is_same_v<T, float> || std::is_same_v<T, double>) && packet_traits<T>::Vectorizable
  };
};

#endif  // TENSORACT_KERNELS_CPU_IEEE_SQRT_H_
