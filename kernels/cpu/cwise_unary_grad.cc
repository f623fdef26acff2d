// Gradients of unary ops from their output y and the incoming gradient dy, on the CPU:
// TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad. y and dy have as many elements.
//
// Each is TensorFlow's vectorised formula (cwise_ops_gradients.h, the packets that compute
// all but a tensor's last few elements), in its order of operations, so the roundings and
// the overflows are the same: Sigmoid's dy * (y * (1 - y)); Sqrt's, Rsqrt's and
// Reciprocal's products "no NaN": zero wherever dy is zero, whatever y is (0 * inf and
// 0 * NaN included), as TensorFlow's mul_no_nan.
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

// a * b, or +0 where b is zero (TensorFlow's mul_no_nan_op).
template <class A, class B>
auto MulNoNan(const A& a, const B& b) {
  using T = typename B::Scalar;
  return (b == T(0)).select(B::Constant(b.size(), T(0)), a * b);
}

struct TanhGrad : CwiseFunctor {
  template <class Y, class DY>
  auto operator()(const Y& y, const DY& dy) const { return dy * (typename Y::Scalar(1) - y * y); }
};
struct SigmoidGrad : CwiseFunctor {
  template <class Y, class DY>
  auto operator()(const Y& y, const DY& dy) const { return dy * (y * (typename Y::Scalar(1) - y)); }
};
struct SqrtGrad : CwiseFunctor {
  template <class Y, class DY>
  auto operator()(const Y& y, const DY& dy) const {
    return MulNoNan(typename Y::Scalar(0.5) / y, dy);
  }
};
struct RsqrtGrad : CwiseFunctor {
  template <class Y, class DY>
  auto operator()(const Y& y, const DY& dy) const {
    return MulNoNan(typename Y::Scalar(-0.5) * (y * y), MulNoNan(y, dy));
  }
};
struct ReciprocalGrad : CwiseFunctor {
  template <class Y, class DY>
  auto operator()(const Y& y, const DY& dy) const { return MulNoNan(-(y * y), dy); }
};

#define TA_REGISTER_GRAD(OP, F, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), SimpleBinaryOp<T, F>)
#define TA_REGISTER_ALL(T)                                  \
  TA_REGISTER_GRAD("TanhGrad", TanhGrad, T);                \
  TA_REGISTER_GRAD("SigmoidGrad", SigmoidGrad, T);          \
  TA_REGISTER_GRAD("SqrtGrad", SqrtGrad, T);                \
  TA_REGISTER_GRAD("RsqrtGrad", RsqrtGrad, T);              \
  TA_REGISTER_GRAD("ReciprocalGrad", ReciprocalGrad, T);    \
  TA_REGISTER_GRAD("InvGrad", ReciprocalGrad, T);
TA_REGISTER_ALL(float)
TA_REGISTER_ALL(double)
// In the type's own arithmetic: each operation rounds to half or bfloat16, as TensorFlow's
// Eigen computes these formulas.
TA_REGISTER_ALL(Eigen::half)
TA_REGISTER_ALL(Eigen::bfloat16)
#undef TA_REGISTER_ALL
#undef TA_REGISTER_GRAD

}  // namespace
}  // namespace tensoract
