// Complex, Real, Imag and Conj on the CPU, for complex64 (float parts) and complex128
// (double parts), as TensorFlow registers them: exact copies of the parts (a denormal part
// stays itself, a NaN keeps its bits but for Conj's sign). Conj of a variant has no kernel
// here (TensorFlow's CPU has one, for the tensors a variant holds).
#include <complex>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/numeric_types.h"

namespace tensoract {
namespace {

struct RealPart : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.real(); }
};
struct ImagPart : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.imag(); }
};
struct Conjugate : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return a.conjugate(); }
};

template <class R>
struct MakeComplexScalar {
  std::complex<R> operator()(R re, R im) const { return std::complex<R>(re, im); }
};
struct MakeComplex : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a.binaryExpr(b, MakeComplexScalar<typename A::Scalar>()); }
};

#define TA_REGISTER_PARTS(C, R)                                                                          \
  REGISTER_KERNEL(Name("Complex").Device(DEVICE_CPU).TypeConstraint<R>("T").TypeConstraint<C>("Tout"),    \
                  BinaryOp<R, MakeComplex, C>);                                                           \
  REGISTER_KERNEL(Name("Real").Device(DEVICE_CPU).TypeConstraint<C>("T").TypeConstraint<R>("Tout"),       \
                  UnaryOp<C, RealPart, R>);                                                               \
  REGISTER_KERNEL(Name("Imag").Device(DEVICE_CPU).TypeConstraint<C>("T").TypeConstraint<R>("Tout"),       \
                  UnaryOp<C, ImagPart, R>);                                                               \
  REGISTER_KERNEL(Name("Conj").Device(DEVICE_CPU).TypeConstraint<C>("T"), UnaryOp<C, Conjugate>);
TA_REGISTER_PARTS(complex64, float)
TA_REGISTER_PARTS(complex128, double)
#undef TA_REGISTER_PARTS

}  // namespace
}  // namespace tensoract
