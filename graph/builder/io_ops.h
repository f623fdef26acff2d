// Builder functions for the checkpoint ops (graph/ops/io_ops.cc): SaveV2, RestoreV2 and
// MergeV2Checkpoints. Conventions as in graph/builder/ops.h. client/saver.h builds whole
// save/restore subgraphs from these.
#ifndef TENSORACT_GRAPH_BUILDER_IO_OPS_H_
#define TENSORACT_GRAPH_BUILDER_IO_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// A 1-D string constant written inline (tensor_names, shape_and_slices, prefixes).
Input StringVector(const std::vector<std::string>& values);

// Writes `tensors` as `tensor_names` to the checkpoint `prefix` (a scalar string);
// shape_and_slices holds one "" per tensor (slices are not supported). dtypes are taken
// from the tensors (a reference variable saves its value).
Node* SaveV2(const Scope& scope, const Input& prefix, const Input& tensor_names, const Input& shape_and_slices,
             const InputList& tensors);

// Reads `tensor_names` from the checkpoint `prefix`, one output per name, of `dtypes`.
OutputList RestoreV2(const Scope& scope, const Input& prefix, const Input& tensor_names,
                     const Input& shape_and_slices, const DataTypeVector& dtypes);

struct MergeV2CheckpointsAttrs {
  bool delete_old_dirs = true;
  bool allow_missing_files = false;
};
Node* MergeV2Checkpoints(const Scope& scope, const Input& checkpoint_prefixes, const Input& destination_prefix,
                         MergeV2CheckpointsAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_IO_OPS_H_
