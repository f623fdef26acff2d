/// @file
/// Builder functions for the optimizer updates (graph/ops/training_ops.cc). The Apply*
/// functions take reference variables (ops::Variable) and return the updated reference;
/// the ResourceApply* functions take resource handles (ops::VarHandleOp) and return the
/// node, to target or depend on. T is taken from the first non-variable input.
/// Conventions as in graph/builder/ops.h.
#ifndef TENSORACT_GRAPH_BUILDER_TRAINING_OPS_H_
#define TENSORACT_GRAPH_BUILDER_TRAINING_OPS_H_

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// Optional attributes of ApplyGradientDescent() and ResourceApplyGradientDescent().
struct ApplyGradientDescentAttrs {
  /// Whether the update holds the variable's lock (default false).
  bool use_locking = false;
};
/// var -= alpha * delta.
Output ApplyGradientDescent(const Scope& scope, const Input& var, const Input& alpha, const Input& delta,
                            ApplyGradientDescentAttrs attrs = {});
/// var -= alpha * delta, on the resource variable `var`; `alpha` is a scalar learning rate.
Node* ResourceApplyGradientDescent(const Scope& scope, const Input& var, const Input& alpha, const Input& delta,
                                   ApplyGradientDescentAttrs attrs = {});

/// Optional attributes of ApplyMomentum() and ResourceApplyMomentum().
struct ApplyMomentumAttrs {
  /// Whether the update holds the variables' locks (default false).
  bool use_locking = false;
  /// Whether to apply Nesterov momentum (default false).
  bool use_nesterov = false;
};
/// accum = accum * momentum + grad; var -= lr * accum (Nesterov: lr * (grad + momentum * accum)).
Output ApplyMomentum(const Scope& scope, const Input& var, const Input& accum, const Input& lr, const Input& grad,
                     const Input& momentum, ApplyMomentumAttrs attrs = {});
/// ApplyMomentum() on resource variables `var` and `accum`: accum = accum * momentum + grad;
/// var -= lr * accum (Nesterov: lr * (grad + momentum * accum)).
Node* ResourceApplyMomentum(const Scope& scope, const Input& var, const Input& accum, const Input& lr,
                            const Input& grad, const Input& momentum, ApplyMomentumAttrs attrs = {});

/// Optional attributes of ApplyAdam() and ResourceApplyAdam().
struct ApplyAdamAttrs {
  /// Whether the update holds the variables' locks (default false).
  bool use_locking = false;
  /// Whether var moves by the Nesterov estimate beta1 * m + (1 - beta1) * grad instead of m
  /// (default false).
  bool use_nesterov = false;
};
/// The Adam update of `var`, `m` and `v`: m = beta1 * m + (1 - beta1) * grad;
/// v = beta2 * v + (1 - beta2) * grad^2; var -= lr_t * m / (sqrt(v) + epsilon), where
/// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power). beta1_power and beta2_power are
/// beta1 and beta2 to the power of the step number; all but var, m, v and grad are scalars.
Output ApplyAdam(const Scope& scope, const Input& var, const Input& m, const Input& v, const Input& beta1_power,
                 const Input& beta2_power, const Input& lr, const Input& beta1, const Input& beta2,
                 const Input& epsilon, const Input& grad, ApplyAdamAttrs attrs = {});
/// ApplyAdam() on the resource variables `var`, `m` and `v`.
Node* ResourceApplyAdam(const Scope& scope, const Input& var, const Input& m, const Input& v,
                        const Input& beta1_power, const Input& beta2_power, const Input& lr, const Input& beta1,
                        const Input& beta2, const Input& epsilon, const Input& grad, ApplyAdamAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_TRAINING_OPS_H_
