// ops:: builders of the batched matrix products besides BatchMatMulV2 (graph/builder/math_ops.h):
// BatchMatMul (v1: both sides of one rank, batch dimensions equal) and BatchMatMulV3
// (broadcast, with the product's type chosen).
#ifndef TENSORACT_GRAPH_BUILDER_BATCH_MATMUL_OPS_H_
#define TENSORACT_GRAPH_BUILDER_BATCH_MATMUL_OPS_H_

#include "graph/builder/math_ops.h"
#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

Output BatchMatMul(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs = {});
// Tout defaults to x's type.
Output BatchMatMulV3(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs = {},
                     DataType tout = tensorflow::DT_INVALID);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_BATCH_MATMUL_OPS_H_
