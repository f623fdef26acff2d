// The comparison functors (Greater, GreaterEqual, Less, LessEqual, Equal, NotEqual) and
// the kernel of Equal and NotEqual, shared by the files that register them for a few types
// each (cwise_compare.cc: float, double, int32, int64, bool; cwise_compare_more.cc: the
// narrow and unsigned integers, half and bfloat16), so that no one file instantiates every
// kernel.
#ifndef TENSORACT_KERNELS_CPU_CWISE_COMPARE_OPS_H_
#define TENSORACT_KERNELS_CPU_CWISE_COMPARE_OPS_H_

#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace cwise {


struct Greater : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a > b; }
};
struct GreaterEqual : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a >= b; }
};
struct Less : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a < b; }
};
struct LessEqual : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a <= b; }
};
struct Equal : CwiseFunctor {
  static constexpr bool kIncompatibleValue = false;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a == b; }
};
struct NotEqual : CwiseFunctor {
  static constexpr bool kIncompatibleValue = true;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a != b; }
};
// Equal and NotEqual: with incompatible_shape_error false, shapes that do not broadcast give
// a scalar (false for Equal, true for NotEqual) instead of an error.
template <class T, class F>
class EqualityOp : public BinaryOp<T, F, bool> {
 public:
  explicit EqualityOp(OpKernelConstruction* ctx) : BinaryOp<T, F, bool>(ctx) {
    Status s = ctx->GetAttr("incompatible_shape_error", &incompatible_shape_error_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    if (!incompatible_shape_error_) {
      const Tensor& x = ctx->input(0);
      const Tensor& y = ctx->input(1);
      if (x.shape() != y.shape() && x.dims() != 0 && y.dims() != 0 && !MakeBroadcastPlan(x.shape(), y.shape()).ok()) {
        Tensor* out = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
        *out->base<bool>() = F::kIncompatibleValue;
        return;
      }
    }
    BinaryOp<T, F, bool>::Compute(ctx);
  }

 private:
  bool incompatible_shape_error_ = true;
};

}  // namespace cwise
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_CWISE_COMPARE_OPS_H_
