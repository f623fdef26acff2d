/// @file
/// Builder functions for the TensorScatter ops (graph/ops/array_nd_ops.cc): a copy of `tensor`
/// with the slices of `updates` applied at the index tuples in the last dimension of `indices`
/// (int32 or int64), each op applying them its own way. Each adds one node to the scope's graph
/// and returns its output, with T and Tindices taken from the inputs (see graph/builder/ops.h
/// for the conventions).
#ifndef TENSORACT_GRAPH_BUILDER_TENSOR_SCATTER_OPS_H_
#define TENSORACT_GRAPH_BUILDER_TENSOR_SCATTER_OPS_H_

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// `tensor` with the slices at `indices`' tuples replaced by `updates` (a repeated tuple: the last one wins).
Output TensorScatterUpdate(const Scope& scope, const Input& tensor, const Input& indices, const Input& updates);
/// `tensor` with `updates` added at `indices`' tuples (repeated tuples add up).
Output TensorScatterAdd(const Scope& scope, const Input& tensor, const Input& indices, const Input& updates);
/// `tensor` with `updates` subtracted at `indices`' tuples.
Output TensorScatterSub(const Scope& scope, const Input& tensor, const Input& indices, const Input& updates);
/// `tensor` with each element at `indices`' tuples raised to its update where that is larger.
Output TensorScatterMax(const Scope& scope, const Input& tensor, const Input& indices, const Input& updates);
/// `tensor` with each element at `indices`' tuples lowered to its update where that is smaller.
Output TensorScatterMin(const Scope& scope, const Input& tensor, const Input& indices, const Input& updates);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_TENSOR_SCATTER_OPS_H_
