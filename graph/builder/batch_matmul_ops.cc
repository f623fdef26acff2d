#include "graph/builder/batch_matmul_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {

Output BatchMatMul(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs) {
  return TypedOp(scope, "BatchMatMul", {x, y}, {{"adj_x", BoolAttr(attrs.adj_x)}, {"adj_y", BoolAttr(attrs.adj_y)}});
}

Output BatchMatMulV3(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs, DataType tout) {
  const DataType ta = TypeOf(x);
  Attrs a = {{"Ta", TypeAttr(ta)},
             {"Tb", TypeAttr(TypeOf(y))},
             {"Tout", TypeAttr(tout == tensorflow::DT_INVALID ? ta : tout)},
             {"adj_x", BoolAttr(attrs.adj_x)},
             {"adj_y", BoolAttr(attrs.adj_y)}};
  return Output(scope.AddOp("BatchMatMulV3", "BatchMatMulV3", {x, y}, a), 0);
}

}  // namespace ops
}  // namespace tensoract
