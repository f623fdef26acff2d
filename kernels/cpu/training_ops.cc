// The optimizer updates on the CPU: gradient descent, momentum and Adam, on reference
// variables (Apply*: update in place, output the reference, as Assign does) and on resource
// variables (ResourceApply*: copy-on-write, as AssignAddVariableOp does, so a value a reader
// already took never changes: a variable someone else still holds is updated out of place,
// its new values written straight into a fresh buffer, one pass instead of a copy and then
// the update). The arithmetic is TensorFlow's (training_ops.cc), as
// Eigen array expressions fused into one blocked pass over the tensors, spread over the
// device's threads by CwiseParallelFor when the variable is large. half and bfloat16 run the
// same expressions, in their type: each step rounded to it, as TensorFlow's Eigen rounds it.
// complex64 and complex128: gradient descent and momentum the same expressions; Adam element
// by element (ComplexAdam below).
#include <Eigen/Core>
#include <algorithm>
#include <complex>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "kernels/cpu/complex_math.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/ieee_sqrt.h"
#include "kernels/kernel_registry.h"
#include "kernels/resource_handle.h"
#include "kernels/tensor_eigen.h"
#include "kernels/variable.h"
#include "kernels/training_apply.h"

namespace tensoract {
namespace {

// Each update is one fused pass over its tensors: the variable is cut into blocks of kBlock
// elements (the device's threads take ranges of blocks), and a block's Eigen array
// expressions run one after another while its slices of var/accum/grad are in L1.
constexpr int64_t kBlock = 1024;

template <class T>
using Arr = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstArr = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Runs fn(begin, length) over [0, n) in blocks, split over the device's threads.
template <class F>
void ForBlocks(OpKernelContext* ctx, int64_t n, int64_t cost_per_element, F fn) {
  CwiseParallelFor(ctx, n, cost_per_element, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; b += kBlock) fn(b, std::min(end, b + kBlock) - b);
  });
}

template <class T>
struct GradientDescent : GradientDescentSpec {
  // in: the non-variable inputs, in order.
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool /*nesterov*/) {
    const T alpha = in[0].base<T>()[0];
    const VarSlot<T> var = vars[0];
    const T* delta = in[1].base<T>();
    ForBlocks(ctx, size, 2, [&](int64_t b, int64_t n) {
      Arr<T>(var.out + b, n) = ConstArr<T>(var.in + b, n) - ConstArr<T>(delta + b, n) * alpha;
    });
  }
};

template <class T>
struct Momentum : MomentumSpec {
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool nesterov) {
    const VarSlot<T> var = vars[0], accum = vars[1];
    const T lr = in[0].base<T>()[0], momentum = in[2].base<T>()[0];
    const T* grad = in[1].base<T>();
    ForBlocks(ctx, size, 4, [&](int64_t b, int64_t n) {
      ConstArr<T> v(var.in + b, n), g(grad + b, n);
      Arr<T> a(accum.out + b, n);
      a = ConstArr<T>(accum.in + b, n) * momentum + g;
      if (nesterov) {
        Arr<T>(var.out + b, n) = v - (g * lr + a * momentum * lr);  // TensorFlow's order (half rounds each step)
      } else {
        Arr<T>(var.out + b, n) = v - a * lr;
      }
    });
  }
};

template <class T>
struct IsComplex : std::false_type {};
template <class R>
struct IsComplex<std::complex<R>> : std::true_type {};

// Adam of complex64 and complex128, element by element as TensorFlow's ApplyAdamNonCuda
// computes it: the elements in whole AVX vectors (all of them when the size is a multiple of
// the vector, its shards then being whole vectors) with Eigen's vector product, quotient and
// square root, the rest with the scalar ones, which differ at infinities (a vector quotient
// by an infinite square root is NaN, the scalar one 0). alpha is scalar arithmetic.
template <class R>
void ComplexAdam(OpKernelContext* ctx, const std::vector<VarSlot<std::complex<R>>>& vars, int64_t size,
                 const std::vector<Tensor>& in, bool nesterov) {
  using C = std::complex<R>;
  using namespace complex_math;  // NOLINT: the vector and scalar forms
  const VarSlot<C> var = vars[0], m = vars[1], v = vars[2];
  const C beta1_power = in[0].base<C>()[0], beta2_power = in[1].base<C>()[0], lr = in[2].base<C>()[0];
  const C beta1 = in[3].base<C>()[0], beta2 = in[4].base<C>()[0], epsilon = in[5].base<C>()[0];
  const C* grad = in[6].base<C>();
  const C alpha = ScalarDiv(lr * Sqrt(C(1) - beta2_power), C(1) - beta1_power);
  const C keep1 = C(1) - beta1, keep2 = C(1) - beta2;
  const int64_t vector_end = VectorEnd<R>(size);
  ForBlocks(ctx, size, 64, [&](int64_t b, int64_t n) {
    for (int64_t i = b; i < b + n; ++i) {
      const bool vec = i < vector_end;
      auto mul = [vec](C x, C y) { return vec ? VectorMul(x, y) : x * y; };
      const C g = grad[i];
      const C m1 = m.in[i] + mul(g - m.in[i], keep1);
      const C v1 = v.in[i] + mul(mul(g, g) - v.in[i], keep2);
      const C den = (vec ? VectorSqrt(v1) : Sqrt(v1)) + epsilon;
      const C num = nesterov ? mul(mul(g, keep1) + mul(beta1, m1), alpha) : mul(m1, alpha);
      var.out[i] = var.in[i] - (vec ? VectorDiv(num, den) : ScalarDiv(num, den));
      m.out[i] = m1;
      v.out[i] = v1;
    }
  });
}

template <class T>
struct Adam : AdamSpec {
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool nesterov) {
    if constexpr (IsComplex<T>::value) {
      ComplexAdam(ctx, vars, size, in, nesterov);
      return;
    }
    const VarSlot<T> var = vars[0], m = vars[1], v = vars[2];
    const T beta1_power = in[0].base<T>()[0], beta2_power = in[1].base<T>()[0], lr = in[2].base<T>()[0];
    const T beta1 = in[3].base<T>()[0], beta2 = in[4].base<T>()[0], epsilon = in[5].base<T>()[0];
    const T* grad = in[6].base<T>();
    const T alpha = lr * Eigen::numext::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
    ForBlocks(ctx, size, 16, [&](int64_t b, int64_t n) {
      Arr<T> m_b(m.out + b, n), v_b(v.out + b, n);
      ConstArr<T> g(grad + b, n), var_in(var.in + b, n), m_in(m.in + b, n), v_in(v.in + b, n);
      m_b = m_in + (g - m_in) * (T(1) - beta1);
      v_b = v_in + (g.square() - v_in) * (T(1) - beta2);
      // The correctly rounded square root, vectorised (kernels/cpu/ieee_sqrt.h): Eigen 3.4's
      // AVX-512 packet sqrt (a refined reciprocal estimate) makes sqrt(inf) NaN, where
      // TensorFlow's is inf and the update 0; a scalar lambda would make the update scalar.
      auto sqrt_v = v_b.unaryExpr(IeeeSqrt<T>());
      if (nesterov) {
        Arr<T>(var.out + b, n) = var_in - ((g * (T(1) - beta1) + m_b * beta1) * alpha) / (sqrt_v + epsilon);
      } else {
        Arr<T>(var.out + b, n) = var_in - (m_b * alpha) / (sqrt_v + epsilon);
      }
    });
  }
};

#define TA_REGISTER_APPLY(T)                                                                                  \
  REGISTER_KERNEL(Name("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"),                     \
                  ApplyOp<T, GradientDescent, false>);                                                        \
  REGISTER_KERNEL(Name("ResourceApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"),             \
                  ApplyOp<T, GradientDescent, true>);                                                         \
  REGISTER_KERNEL(Name("ApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyOp<T, Momentum, false>); \
  REGISTER_KERNEL(Name("ResourceApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"),                    \
                  ApplyOp<T, Momentum, true>);                                                                \
  REGISTER_KERNEL(Name("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyOp<T, Adam, false>);      \
  REGISTER_KERNEL(Name("ResourceApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyOp<T, Adam, true>);
TA_REGISTER_APPLY(float)
TA_REGISTER_APPLY(double)
TA_REGISTER_APPLY(Eigen::half)
TA_REGISTER_APPLY(Eigen::bfloat16)
TA_REGISTER_APPLY(complex64)
TA_REGISTER_APPLY(complex128)
#undef TA_REGISTER_APPLY

}  // namespace
}  // namespace tensoract
