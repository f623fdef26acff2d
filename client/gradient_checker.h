/// @file
/// A numeric gradient checker: compares the Jacobian that AddSymbolicGradients builds with
/// central finite differences, by running both through a Session.
///
/// @code
///   auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
///   auto y = ops::Mul(root, x, x);
///   double err = MaxGradientError(root, {x}, {Tensor::FromVector<double>({1, 2})}, y).value();
///   // err is tiny when Mul's registered gradient is right
/// @endcode
///
/// xs must be placeholders (they are fed with `x_values`, and with each value moved by
/// +-delta); y must be float or double. Adds a placeholder for y's gradient and the gradient
/// nodes to the scope's graph. Use double for tight checks: float's rounding alone gives
/// errors around 1e-3 with the default delta.
#ifndef TENSORACT_CLIENT_GRADIENT_CHECKER_H_
#define TENSORACT_CLIENT_GRADIENT_CHECKER_H_

#include <vector>

#include "graph/builder/scope.h"
#include "kernels/tensor.h"

namespace tensoract {

/// The largest absolute difference between the Jacobian of `y` with respect to `xs` (fed
/// `x_values`) that AddSymbolicGradients builds and its central finite-difference estimate
/// with step `delta`. InvalidArgument when the counts of xs and values differ, y is not
/// float or double, or no gradient reaches an x.
StatusOr<double> MaxGradientError(const Scope& scope, const std::vector<Output>& xs,
                                  const std::vector<Tensor>& x_values, const Output& y, double delta = 1e-3);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_GRADIENT_CHECKER_H_
