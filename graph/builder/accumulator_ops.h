/// @file
/// Builder functions for the conditional accumulator ops (graph/ops/accumulator_ops.cc).
/// Conventions as in graph/builder/ops.h.
///
/// @code
///   Output acc = ops::ConditionalAccumulator(s, DT_FLOAT, {784, 256}, {.shared_name = "w/grad_accum"});
///   Node* apply = ops::AccumulatorApplyGradient(s, acc, local_step, grad);
///   Output mean = ops::AccumulatorTakeGradient(s, acc, replicas_to_aggregate, DT_FLOAT);
/// @endcode
#ifndef TENSORACT_GRAPH_BUILDER_ACCUMULATOR_OPS_H_
#define TENSORACT_GRAPH_BUILDER_ACCUMULATOR_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// Optional attributes of ConditionalAccumulator().
struct AccumulatorAttrs {
  /// The resource container the accumulator lives in; "" is the default one.
  std::string container;
  std::string shared_name;          ///< "": the node's name
  std::string reduction_type = "MEAN";  ///< or "SUM": how AccumulatorTakeGradient() reduces the gradients
};

/// A ResourceConditionalAccumulator.
/// It aggregates gradients of `dtype` and `shape` for one global step and outputs its handle;
/// the default node name is "conditional_accumulator", as in TensorFlow's Python.
Output ConditionalAccumulator(const Scope& scope, DataType dtype, const PartialTensorShape& shape,
                              const AccumulatorAttrs& attrs = {});
/// Adds `gradient` to the accumulator `handle`, unless `local_step` (an int64 scalar) is below its
/// global step: a stale gradient is dropped.
Node* AccumulatorApplyGradient(const Scope& scope, const Input& handle, const Input& local_step,
                               const Input& gradient);
/// Waits until the accumulator holds `num_required` (an int32 scalar) gradients, outputs their mean
/// (or sum), resets the count and advances the global step by one.
/// The output's shape is `shape` when given (the handle does not carry it).
Output AccumulatorTakeGradient(const Scope& scope, const Input& handle, const Input& num_required, DataType dtype,
                               const PartialTensorShape& shape = PartialTensorShape());
/// How many gradients the accumulator holds, an int32 scalar.
Output AccumulatorNumAccumulated(const Scope& scope, const Input& handle);
/// Sets the accumulator's global step to `new_global_step` (an int64 scalar); gradients applied
/// with a lower local step are dropped.
Node* AccumulatorSetGlobalStep(const Scope& scope, const Input& handle, const Input& new_global_step);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_ACCUMULATOR_OPS_H_
