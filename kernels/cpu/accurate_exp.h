// The float exp and logistic function of the element-wise kernels, as Eigen functors with a
// vectorised path: Exp and Sigmoid (kernels/cpu/cwise_unary.cc) and the fused LSTM gates
// (kernels/cpu/recurrent_gates_op.cc) compute with the same ones, so a fused graph's values are
// the unfused graph's.
#ifndef TENSORACT_KERNELS_CPU_ACCURATE_EXP_H_
#define TENSORACT_KERNELS_CPU_ACCURATE_EXP_H_

#include <Eigen/Core>
#include <cmath>
#include <type_traits>

namespace tensoract {

// exp of a packet, for float with Eigen 3.4's generic pexp_float rather than its AVX-512
// pexp<Packet16f>: that one reduces x by a single float ln2 (off by 1.9e-9 per multiple),
// which grows to 4.5 ulps at |x| = 88 (TensorFlow: 1.2 ulps over the whole range;
// tests/compat/accuracy_sweep.py), and clamps at 88.3763 where the true exp stays finite to
// 88.7228. The generic one subtracts ln2 in two parts, clamps at 88.723 and scales by 2^m
// in two steps, so it overflows exactly where exp does: within 1.3 ulps everywhere.
template <class Packet>
Packet AccurateExp(const Packet& x) {
  namespace ei = Eigen::internal;
  if constexpr (std::is_same_v<typename ei::unpacket_traits<Packet>::type, float>) {
    return ei::pexp_float(x);
  } else {
    return ei::pexp(x);
  }
}

// The logistic function for float as 1 / (1 + e) for x >= 0 and e / (1 + e) below, with
// e = exp(-|x|), which never overflows: Eigen 3.4's float logistic (a rational
// approximation) was off by up to 8e-4 relative for x in [-11.5, -5], where TensorFlow's
// is within 4e-7.
struct AccurateLogistic {
  template <class T>
  T operator()(const T& x) const {
    const T e = std::exp(-std::abs(x));
    const T r = T(1) / (T(1) + e);
    return x >= T(0) ? r : e * r;
  }
  template <class Packet>
  Packet packetOp(const Packet& x) const {
    namespace ei = Eigen::internal;
    const Packet one = ei::pset1<Packet>(1);
    const Packet e = AccurateExp(ei::pnegate(ei::pabs(x)));
    const Packet r = ei::pdiv(one, ei::padd(one, e));
    return ei::pselect(ei::pcmp_le(ei::pzero(x), x), r, ei::pmul(e, r));
  }
};

}  // namespace tensoract

template <>
struct Eigen::internal::functor_traits<tensoract::AccurateLogistic> {
  enum { Cost = 14, PacketAccess = packet_traits<float>::HasExp && packet_traits<float>::HasDiv };
};

#endif  // TENSORACT_KERNELS_CPU_ACCURATE_EXP_H_
