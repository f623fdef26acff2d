// EuclideanNorm on the CPU: sqrt(sum(x * x)) along the axes, as TensorFlow 2.21's kernel
// computes it: each square in T (integers wrapping), summed in T by the reductions' passes
// (reduction_ops.h), the square root taken last. Integers take std::sqrt of the sum and
// truncate it (Eigen's sqrt of an integer), so a sum that wrapped negative gives what
// converting NaN gives on x86 (the type's minimum for int32 and int64, 0 for int8 and
// int16), as TensorFlow's does. Nothing is passed through: with no axis reduced every
// element is still sqrt(x * x), |x| but where the square overflows or flushes.
//
// float, double and the eight integer types. TensorFlow's CPU also has half and bfloat16
// (squared and summed in half arithmetic: [300, 400] gives inf there) and complex64 and
// complex128 (Eigen's complex square root); neither is here yet.
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels/cpu/reduction_ops.h"

namespace tensoract {
namespace {

using namespace reduction;  // NOLINT: the passes this kernel runs

// x * x in T, wrapping for integers (a signed overflow computed in the unsigned type).
template <class T>
T SquareInT(T x) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < sizeof(int)), int, T>>;
    return static_cast<T>(static_cast<U>(x) * static_cast<U>(x));
  } else {
    return x * x;
  }
}

template <class T>
T SqrtInT(T s) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::sqrt(static_cast<double>(s)));
  } else {
    return std::sqrt(s);
  }
}

template <class T>
class EuclideanNormOp : public OpKernel {
 public:
  explicit EuclideanNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    ReductionPlan plan;
    OP_REQUIRES_OK(ctx, MakeReductionPlan(*this, input, ctx->input(1), keep_dims_, &plan));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    Tensor squares(DataTypeToEnum<T>::value, input.shape());
    const T* in = input.base<T>();
    T* sq = squares.base<T>();
    for (int64_t i = 0; i < input.NumElements(); ++i) sq[i] = SquareInT(in[i]);
    T* o = out->base<T>();
    SumGroups(ctx, squares, o, plan);
    for (int64_t i = 0; i < out->NumElements(); ++i) o[i] = SqrtInT(o[i]);
  }

 private:
  // out = `squares` summed over the plan's reduced groups, as ReductionOp sums.
  static void SumGroups(OpKernelContext* ctx, const Tensor& squares, T* out, const ReductionPlan& plan) {
    bool any = false;
    for (bool r : plan.reduced) any |= r;
    if (!any && !plan.groups.empty()) {  // nothing reduced: each output element is one square
      const T* sq = squares.base<T>();
      for (int64_t i = 0; i < squares.NumElements(); ++i) out[i] = sq[i];
      return;
    }
    ReduceGroups<T, Eigen::internal::SumReducer<T>>(*ctx->device()->eigen_cpu_device(), squares, out, plan);
  }

  bool keep_dims_ = false;
};

#define TA_REGISTER_NORM(T) \
  REGISTER_KERNEL(Name("EuclideanNorm").Device(DEVICE_CPU).TypeConstraint<T>("T"), EuclideanNormOp<T>)
TA_REGISTER_NORM(float);
TA_REGISTER_NORM(double);
TA_REGISTER_NORM(int8_t);
TA_REGISTER_NORM(int16_t);
TA_REGISTER_NORM(int32_t);
TA_REGISTER_NORM(int64_t);
TA_REGISTER_NORM(uint8_t);
TA_REGISTER_NORM(uint16_t);
TA_REGISTER_NORM(uint32_t);
TA_REGISTER_NORM(uint64_t);
#undef TA_REGISTER_NORM

}  // namespace
}  // namespace tensoract
