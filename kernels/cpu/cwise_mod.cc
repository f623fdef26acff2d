// Mod and TruncateMod on the CPU (one op under two names in TensorFlow): the remainder of
// division truncated toward zero, with x's sign, as C's % and fmod. int32 and int64 (the
// most negative value mod -1 is 0, as TensorFlow's safe_mod gives it), float and double
// (std::fmod, exact), the types TensorFlow's CPU registers: not half or bfloat16, which its
// OpDefs allow.
//
// An integer zero divisor is refused before any arithmetic, with TensorFlow's status: Mod's
// is InvalidArgument "Integer division by zero", TruncateMod's Internal "Unexpected error
// in binary operator" (TensorFlow's BinaryOpShared::SetComputeError names Div, Mod,
// FloorMod and FloorDiv only).
#include <cmath>
#include <type_traits>

#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

template <class T>
struct TruncModScalar {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == T(-1)) return T(0);  // x % -1 traps for the most negative x
      return static_cast<T>(x % y);
    } else {
      return std::fmod(x, y);
    }
  }
};

struct TruncMod : CwiseFunctor {
  static constexpr int kCost = 12;
  static constexpr bool kNoZeroDivisor = true;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a.binaryExpr(b, TruncModScalar<typename A::Scalar>()); }
};

// TruncateMod of integers: a zero divisor (in a broadcast with elements) is an Internal error.
template <class T>
class TruncateModIntOp : public BinaryOp<T, TruncMod> {
 public:
  using BinaryOp<T, TruncMod>::BinaryOp;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    StatusOr<BroadcastPlan> plan = MakeBroadcastPlan(x.shape(), y.shape());
    if (plan.ok() && plan->output_shape.num_elements() > 0) {
      const T* yp = y.base<T>();
      bool zero = false;
      for (int64_t i = 0, m = y.NumElements(); i < m; ++i) zero |= yp[i] == T(0);
      OP_REQUIRES(ctx, !zero,
                  errors::Internal(CwiseNodeContext(*this),
                                   ": Unexpected error in binary operator (only integer div and mod should have "
                                   "errors)"));
    }
    BinaryOp<T, TruncMod>::Compute(ctx);
  }
};

#define TA_REGISTER_MOD(T, TRUNCATE)                                                               \
  REGISTER_KERNEL(Name("Mod").Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, TruncMod>); \
  REGISTER_KERNEL(Name("TruncateMod").Device(DEVICE_CPU).TypeConstraint<T>("T"), TRUNCATE);
template <class T>
using TruncateModFloatOp = BinaryOp<T, TruncMod>;
TA_REGISTER_MOD(int32_t, TruncateModIntOp<int32_t>)
TA_REGISTER_MOD(int64_t, TruncateModIntOp<int64_t>)
TA_REGISTER_MOD(float, TruncateModFloatOp<float>)
TA_REGISTER_MOD(double, TruncateModFloatOp<double>)
#undef TA_REGISTER_MOD

}  // namespace
}  // namespace tensoract
