// EuclideanNorm on the CPU: sqrt(sum(x * conj(x))) along the axes, as TensorFlow 2.21's
// kernel computes it: each square in T (integers wrapping), summed in T by the reductions'
// passes (reduction_ops.h), the square root taken last. Integers take std::sqrt of the sum and
// truncate it (Eigen's sqrt of an integer), so a sum that wrapped negative gives what
// converting NaN gives on x86 (the type's minimum for int32 and int64, 0 for int8 and
// int16), as TensorFlow's does. Nothing is passed through: with no axis reduced every
// element is still sqrt(x * x), |x| but where the square overflows or flushes.
//
// half squares and sums in half arithmetic (Eigen's, each step rounded: [300, 400] gives inf,
// as there); bfloat16 in float, rounded once at the end (TensorFlow's bfloat16 specialisation
// of the reducer). complex64 and complex128 square as Eigen's vector product does, (a*a - b*-b,
// a*-b + b*a) with no recovery of infinities, and take Eigen's complex square root of the sum
// (real, with a zero or NaN imaginary part). TensorFlow's scalar tail multiplies as C does,
// recovering an infinity where a part is NaN and the other's square overflows; which elements
// are its tail depends on its vector width and threads, so the harness leaves those results
// out (fidelity_catalogue_math_more.py).
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/complex_math.h"
#include "kernels/cpu/reduction_ops.h"

namespace tensoract {
namespace {

using namespace reduction;  // NOLINT: the passes this kernel runs

// What a type's squares are summed in: bfloat16's in float, the rest in their own type.
template <class T>
using SumType = std::conditional_t<std::is_same_v<T, Eigen::bfloat16>, float, T>;

template <class T>
struct IsComplex : std::false_type {};
template <class R>
struct IsComplex<std::complex<R>> : std::true_type {};

// x * conj(x) in the sum's type, wrapping for integers (a signed overflow computed in the
// unsigned type); complex as Eigen's vector product computes it.
template <class T>
SumType<T> Square(T x) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < sizeof(int)), int, T>>;
    return static_cast<T>(static_cast<U>(x) * static_cast<U>(x));
  } else if constexpr (IsComplex<T>::value) {
    return complex_math::VectorMul(x, std::conj(x));
  } else if constexpr (std::is_same_v<T, Eigen::bfloat16>) {
    const float f = static_cast<float>(x);
    return f * f;
  } else {
    return x * x;
  }
}

// The root of a sum, as T: integers truncated, complex by Eigen's complex square root
// (sqrt(0.5 * (|x| + |z|)), so a sum past half the largest value gives inf, as there).
template <class T>
T Root(SumType<T> s) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::sqrt(static_cast<double>(s)));
  } else if constexpr (IsComplex<T>::value) {
    return complex_math::Sqrt(s);
  } else {
    using std::sqrt;
    return static_cast<T>(sqrt(s));
  }
}

template <class T>
class EuclideanNormOp : public OpKernel {
 public:
  explicit EuclideanNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    using S = SumType<T>;
    const Tensor& input = ctx->input(0);
    ReductionPlan plan;
    OP_REQUIRES_OK(ctx, MakeReductionPlan(*this, input, ctx->input(1), keep_dims_, &plan));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    Tensor squares(DataTypeToEnum<S>::value, input.shape());
    const T* in = input.base<T>();
    S* sq = squares.base<S>();
    for (int64_t i = 0; i < input.NumElements(); ++i) sq[i] = Square(in[i]);
    Tensor sums(DataTypeToEnum<S>::value, plan.out_shape);
    S* total = sums.base<S>();
    SumGroups(ctx, squares, total, plan);
    T* o = out->base<T>();
    for (int64_t i = 0; i < out->NumElements(); ++i) o[i] = Root<T>(total[i]);
  }

 private:
  // out = `squares` summed over the plan's reduced groups, as ReductionOp sums.
  static void SumGroups(OpKernelContext* ctx, const Tensor& squares, SumType<T>* out, const ReductionPlan& plan) {
    using S = SumType<T>;
    bool any = false;
    for (bool r : plan.reduced) any |= r;
    if (!any && !plan.groups.empty()) {  // nothing reduced: each output element is one square
      const S* sq = squares.base<S>();
      for (int64_t i = 0; i < squares.NumElements(); ++i) out[i] = sq[i];
      return;
    }
    ReduceGroups<S, Eigen::internal::SumReducer<S>>(*ctx->device()->eigen_cpu_device(), squares, out, plan);
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
TA_REGISTER_NORM(Eigen::half);
TA_REGISTER_NORM(Eigen::bfloat16);
TA_REGISTER_NORM(complex64);
TA_REGISTER_NORM(complex128);
#undef TA_REGISTER_NORM

}  // namespace
}  // namespace tensoract
