/// @file
/// ops:: builders of the batched matrix products besides BatchMatMulV2 (graph/builder/math_ops.h):
/// BatchMatMul (v1: both sides of one rank, batch dimensions equal) and BatchMatMulV3
/// (broadcast, with the product's type chosen).
#ifndef TENSORACT_GRAPH_BUILDER_BATCH_MATMUL_OPS_H_
#define TENSORACT_GRAPH_BUILDER_BATCH_MATMUL_OPS_H_

#include "graph/builder/math_ops.h"
#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// TensorFlow 1's BatchMatMul: the matrix products of x's and y's last two dimensions, [..., m, k] x
/// [..., k, n] giving [..., m, n], where x and y have one rank and equal batch dimensions (no broadcasting).
Output BatchMatMul(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs = {});
/// BatchMatMulV2 (batch dimensions broadcast) whose sides may differ in type (Ta from x, Tb from y) and
/// whose product has type `tout`.
/// Tout defaults to x's type.
Output BatchMatMulV3(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs = {},
                     DataType tout = tensorflow::DT_INVALID);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_BATCH_MATMUL_OPS_H_
