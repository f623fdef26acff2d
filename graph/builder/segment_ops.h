// ops:: builders of the segment reductions (graph/ops/segment_ops.cc) and of Einsum
// (graph/ops/einsum_ops.cc). T and the index types come from the inputs. UnsortedSegmentSum's
// builder is in graph/builder/array_ops.h, beside the gathers it serves.
#ifndef TENSORACT_GRAPH_BUILDER_SEGMENT_OPS_H_
#define TENSORACT_GRAPH_BUILDER_SEGMENT_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// Sorted segment_ids (a vector as long as data's first dimension): output row s combines the
// data rows whose id is s; rows up to the last id, those without rows 0 (Prod: 1).
Output SegmentSum(const Scope& scope, const Input& data, const Input& segment_ids);
Output SegmentMean(const Scope& scope, const Input& data, const Input& segment_ids);
Output SegmentProd(const Scope& scope, const Input& data, const Input& segment_ids);
Output SegmentMax(const Scope& scope, const Input& data, const Input& segment_ids);
Output SegmentMin(const Scope& scope, const Input& data, const Input& segment_ids);

// segment_ids in any order, of a shape data's starts with; negative ids drop their rows;
// num_segments output rows, those without rows the reduction's identity.
Output UnsortedSegmentProd(const Scope& scope, const Input& data, const Input& segment_ids,
                           const Input& num_segments);
Output UnsortedSegmentMax(const Scope& scope, const Input& data, const Input& segment_ids,
                          const Input& num_segments);
Output UnsortedSegmentMin(const Scope& scope, const Input& data, const Input& segment_ids,
                          const Input& num_segments);

// The contraction `equation` names over one or two inputs ("ij,jk->ik", "...ii->...i").
Output Einsum(const Scope& scope, const InputList& inputs, const std::string& equation);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_SEGMENT_OPS_H_
