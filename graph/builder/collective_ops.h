// ops:: builders of TensorFlow 2's collective ops (graph/ops/collective_ops.cc): each member
// of a group (one device on each of group_size places) adds the same op with the same
// group_key and instance_key, and gets the result of all. Conventions as in
// graph/builder/ops.h; group_size, group_key and instance_key are int32 scalars.
//
//   // On each of 2 workers, data-parallel training's gradient average:
//   auto g = ops::CollectiveReduceV2(s, grad, 2, /*group_key=*/1, /*instance_key=*/7,
//                                    "Add", "Div");
#ifndef TENSORACT_GRAPH_BUILDER_COLLECTIVE_OPS_H_
#define TENSORACT_GRAPH_BUILDER_COLLECTIVE_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

struct CollectiveAttrs {
  std::string communication_hint = "auto";  // "ring": never the small-tensor algorithm
  float timeout_seconds = 0;                // 0: the runtime's deadline
};

// merge_op: "Add", "Mul", "Min" or "Max"; final_op: "Id" or "Div" (by group_size).
Output CollectiveReduceV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                          const Input& instance_key, const std::string& merge_op, const std::string& final_op,
                          CollectiveAttrs attrs = {});
// Every member's input (rank >= 1, one shape for all) concatenated along dimension 0.
Output CollectiveGatherV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                          const Input& instance_key, CollectiveAttrs attrs = {});
// One member sends `input`; every other member receives it (of `dtype` and `shape`).
Output CollectiveBcastSendV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                             const Input& instance_key, CollectiveAttrs attrs = {});
Output CollectiveBcastRecvV2(const Scope& scope, DataType dtype, const Input& group_size, const Input& group_key,
                             const Input& instance_key, const Input& shape, CollectiveAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_COLLECTIVE_OPS_H_
