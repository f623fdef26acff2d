/// @file
/// Builder functions for the complex number ops (graph/ops/math_complex_ops.cc: Complex, Real,
/// Imag, Conj), the truncated remainders (Mod, TruncateMod), ApproximateEqual and the checks
/// for infinities and NaNs (CheckNumerics, CheckNumericsV2) and EuclideanNorm. Each adds one node to the
/// scope's graph and returns its output, with the type attrs taken from the inputs (see
/// graph/builder/ops.h for the conventions).
#ifndef TENSORACT_GRAPH_BUILDER_MATH_MORE_OPS_H_
#define TENSORACT_GRAPH_BUILDER_MATH_MORE_OPS_H_

#include <string>

#include "graph/builder/array_ops.h"
#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// Element-wise real + i imag, with NumPy broadcasting: float parts give complex64, double parts complex128.
Output Complex(const Scope& scope, const Input& real, const Input& imag);
/// The real part of each element of a complex64 (giving float) or complex128 (giving double) tensor.
Output Real(const Scope& scope, const Input& input);
/// The imaginary part of each element of a complex64 (giving float) or complex128 (giving double) tensor.
Output Imag(const Scope& scope, const Input& input);
/// The complex conjugate of each element, a - ib for a + ib (complex64 or complex128).
Output Conj(const Scope& scope, const Input& input);
/// `x` for a real type, its complex conjugate (a Conj node) for a complex one, as TensorFlow's
/// math_ops.conj: what a gradient function conjugates complex inputs with.
Output ConjIfComplex(const Scope& scope, const Output& x);

/// Element-wise x - trunc(x / y) * y with NumPy broadcasting: the remainder has x's sign (C's `%` and fmod).
Output Mod(const Scope& scope, const Input& x, const Input& y);
/// TruncateMod: the same remainder as Mod (TensorFlow's name for it in tf.math.truncatemod).
Output TruncateMod(const Scope& scope, const Input& x, const Input& y);

/// Element-wise |x - y| <= tolerance as bool (TensorFlow's kernel's <=) (computed in x's type); x and y have one shape.
Output ApproximateEqual(const Scope& scope, const Input& x, const Input& y, float tolerance = 1e-5f);

/// `tensor` unchanged, or an InvalidArgument error ("<message> : Tensor had Inf values") when the step
/// runs if it holds an infinity or a NaN.
Output CheckNumerics(const Scope& scope, const Input& tensor, const std::string& message);
/// CheckNumerics whose error tells -Inf from +Inf ("<message> : Tensor had -Inf and NaN values").
Output CheckNumericsV2(const Scope& scope, const Input& tensor, const std::string& message);

/// sqrt(sum(x * conj(x))) of input's elements along the dimensions in `axis` (an int32 or int64 scalar or
/// vector; negative counts from the end): the Euclidean (L2) norm, tf.norm's.
Output EuclideanNorm(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_MATH_MORE_OPS_H_
