/// @file
/// ops:: builders of the segment reductions (graph/ops/segment_ops.cc) and of Einsum
/// (graph/ops/einsum_ops.cc). T and the index types come from the inputs. UnsortedSegmentSum's
/// builder is in graph/builder/array_ops.h, beside the gathers it serves.
#ifndef TENSORACT_GRAPH_BUILDER_SEGMENT_OPS_H_
#define TENSORACT_GRAPH_BUILDER_SEGMENT_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// Sorted segment_ids (a vector as long as data's first dimension): output row s combines the
// data rows whose id is s; rows up to the last id, those without rows 0 (Prod: 1).
/// Output row s is the sum of the data rows whose (sorted) segment id is s; 0 for an id without rows.
/// `segment_ids`: sorted, as long as data's first dimension; the output has rows up to the last id.
Output SegmentSum(const Scope& scope, const Input& data, const Input& segment_ids);
/// Output row s is the mean of the data rows whose (sorted) segment id is s; 0 for an id without rows.
/// `segment_ids`: sorted, as long as data's first dimension; the output has rows up to the last id.
Output SegmentMean(const Scope& scope, const Input& data, const Input& segment_ids);
/// Output row s is the product of the data rows whose (sorted) segment id is s; 1 for an id without
/// rows.
/// `segment_ids`: sorted, as long as data's first dimension; the output has rows up to the last id.
Output SegmentProd(const Scope& scope, const Input& data, const Input& segment_ids);
/// Output row s is the element-wise maximum of the data rows whose (sorted) segment id is s; 0 for an
/// id without rows.
/// `segment_ids`: sorted, as long as data's first dimension; the output has rows up to the last id.
Output SegmentMax(const Scope& scope, const Input& data, const Input& segment_ids);
/// Output row s is the element-wise minimum of the data rows whose (sorted) segment id is s; 0 for an
/// id without rows.
/// `segment_ids`: sorted, as long as data's first dimension; the output has rows up to the last id.
Output SegmentMin(const Scope& scope, const Input& data, const Input& segment_ids);

// segment_ids in any order, of a shape data's starts with; negative ids drop their rows;
// num_segments output rows, those without rows the reduction's identity.
/// The product of the data slices with each segment id, `num_segments` rows (1 for an id without
/// slices); ids in any order, negative ones dropped.
/// `segment_ids` has a shape that data's shape starts with.
Output UnsortedSegmentProd(const Scope& scope, const Input& data, const Input& segment_ids,
                           const Input& num_segments);
/// The element-wise maximum of the data slices with each segment id, `num_segments` rows (the
/// lowest value of T for an id without slices); ids in any order, negative ones dropped.
/// `segment_ids` has a shape that data's shape starts with.
Output UnsortedSegmentMax(const Scope& scope, const Input& data, const Input& segment_ids,
                          const Input& num_segments);
/// The element-wise minimum of the data slices with each segment id, `num_segments` rows (the
/// largest value of T for an id without slices); ids in any order, negative ones dropped.
/// `segment_ids` has a shape that data's shape starts with.
Output UnsortedSegmentMin(const Scope& scope, const Input& data, const Input& segment_ids,
                          const Input& num_segments);

/// The contraction `equation` names over one or two inputs ("ij,jk->ik", "...ii->...i").
Output Einsum(const Scope& scope, const InputList& inputs, const std::string& equation);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_SEGMENT_OPS_H_
