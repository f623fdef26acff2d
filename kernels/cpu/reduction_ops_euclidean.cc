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
  // out = `squares` summed over the plan's reduced groups (the last one first), one
  // ReduceMiddle pass per reduced group, as ReductionOp runs them.
  void SumGroups(OpKernelContext* ctx, const Tensor& squares, T* out, const ReductionPlan& plan) {
    const Eigen::ThreadPoolDevice& d = *ctx->device()->eigen_cpu_device();
    std::vector<int64_t> groups = plan.groups;
    std::vector<bool> reduced = plan.reduced;
    if (groups.empty()) {  // zero elements somewhere, or every dimension of size 1
      groups = {squares.NumElements()};
      reduced = {true};
    }
    bool any = false;
    for (bool r : reduced) any |= r;
    if (!any) {  // nothing reduced: each output element is one square
      const T* sq = squares.base<T>();
      for (int64_t i = 0; i < squares.NumElements(); ++i) out[i] = sq[i];
      return;
    }
    Tensor current = squares, scratch;
    while (true) {
      int last = -1;
      for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
        if (reduced[g]) last = g;
      }
      int64_t a = 1, c = 1;
      for (int g = 0; g < last; ++g) a *= groups[g];
      for (int g = last + 1; g < static_cast<int>(groups.size()); ++g) c *= groups[g];
      bool more = false;
      for (int g = 0; g < last; ++g) more |= reduced[g];
      T* dest = out;
      if (more) {
        scratch = Tensor(DataTypeToEnum<T>::value, TensorShape({a * c}));
        dest = scratch.base<T>();
      }
      ReduceMiddle<T, Eigen::internal::SumReducer<T>>(d, current.base<T>(), dest, a, groups[last], c);
      groups.erase(groups.begin() + last);
      reduced.erase(reduced.begin() + last);
      if (!more) return;
      current = scratch;
      if (last < static_cast<int>(groups.size()) && last > 0 && !reduced[last - 1]) {
        groups[last - 1] *= groups[last];
        groups.erase(groups.begin() + last);
        reduced.erase(reduced.begin() + last);
      }
    }
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
