/// @file
/// ops:: builders of TensorFlow 2's collective ops (graph/ops/collective_ops.cc): each member
/// of a group (one device on each of group_size places) adds the same op with the same
/// group_key and instance_key, and gets the result of all. Conventions as in
/// graph/builder/ops.h; group_size, group_key and instance_key are int32 scalars.
///
/// @code
///   // On each of 2 workers, data-parallel training's gradient average:
///   auto g = ops::CollectiveReduceV2(s, grad, 2, /*group_key=*/1, /*instance_key=*/7,
///                                    "Add", "Div");
/// @endcode
#ifndef TENSORACT_GRAPH_BUILDER_COLLECTIVE_OPS_H_
#define TENSORACT_GRAPH_BUILDER_COLLECTIVE_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// Optional attributes of the collective ops.
struct CollectiveAttrs {
  /// The algorithm hint; any value but "ring" (such as the default "auto") lets the runtime choose.
  std::string communication_hint = "auto";  ///< "ring": never the small-tensor algorithm
  /// How long the collective may take before it fails, in seconds.
  float timeout_seconds = 0;                ///< 0: the runtime's deadline
};

/// Every member's `input` merged element-wise with `merge_op`, then `final_op` applied; all
/// members get the result (an all-reduce).
/// merge_op: "Add", "Mul", "Min" or "Max"; final_op: "Id" or "Div" (by group_size).
Output CollectiveReduceV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                          const Input& instance_key, const std::string& merge_op, const std::string& final_op,
                          CollectiveAttrs attrs = {});
/// Every member's input (rank >= 1, one shape for all) concatenated along dimension 0.
/// Members come in rank order; all members get the result (an all-gather).
Output CollectiveGatherV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                          const Input& instance_key, CollectiveAttrs attrs = {});
// One member sends `input`; every other member receives it (of `dtype` and `shape`).
/// The sending member of a broadcast: sends `input` to every other member of the group, each of
/// which runs CollectiveBcastRecvV2(); outputs `input`.
Output CollectiveBcastSendV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                             const Input& instance_key, CollectiveAttrs attrs = {});
/// A receiving member of a broadcast: the tensor, of `dtype` and `shape` (an int32 or int64
/// vector), that the group's CollectiveBcastSendV2() member sends.
Output CollectiveBcastRecvV2(const Scope& scope, DataType dtype, const Input& group_size, const Input& group_key,
                             const Input& instance_key, const Input& shape, CollectiveAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_COLLECTIVE_OPS_H_
