// Builder functions for the conditional accumulator ops (graph/ops/accumulator_ops.cc).
// Conventions as in graph/builder/ops.h.
//
//   Output acc = ops::ConditionalAccumulator(s, DT_FLOAT, {784, 256}, {.shared_name = "w/grad_accum"});
//   Node* apply = ops::AccumulatorApplyGradient(s, acc, local_step, grad);
//   Output mean = ops::AccumulatorTakeGradient(s, acc, replicas_to_aggregate, DT_FLOAT);
#ifndef TENSORACT_GRAPH_BUILDER_ACCUMULATOR_OPS_H_
#define TENSORACT_GRAPH_BUILDER_ACCUMULATOR_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

struct AccumulatorAttrs {
  std::string container;
  std::string shared_name;          // "": the node's name
  std::string reduction_type = "MEAN";  // or "SUM"
};

// A ResourceConditionalAccumulator.
Output ConditionalAccumulator(const Scope& scope, DataType dtype, const PartialTensorShape& shape,
                              const AccumulatorAttrs& attrs = {});
Node* AccumulatorApplyGradient(const Scope& scope, const Input& handle, const Input& local_step,
                               const Input& gradient);
// The output's shape is `shape` when given (the handle does not carry it).
Output AccumulatorTakeGradient(const Scope& scope, const Input& handle, const Input& num_required, DataType dtype,
                               const PartialTensorShape& shape = PartialTensorShape());
Output AccumulatorNumAccumulated(const Scope& scope, const Input& handle);
Node* AccumulatorSetGlobalStep(const Scope& scope, const Input& handle, const Input& new_global_step);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_ACCUMULATOR_OPS_H_
