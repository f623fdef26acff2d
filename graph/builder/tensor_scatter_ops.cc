#include "graph/builder/tensor_scatter_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

Output TensorScatterOf(const Scope& s, const char* op, const Input& tensor, const Input& indices,
                       const Input& updates) {
  return Output(s.AddOp(op, op, {tensor, indices, updates},
                        {{"T", TypeAttr(TypeOf(tensor))}, {"Tindices", TypeAttr(TypeOf(indices))}}),
                0);
}

}  // namespace

Output TensorScatterUpdate(const Scope& s, const Input& tensor, const Input& indices, const Input& updates) {
  return TensorScatterOf(s, "TensorScatterUpdate", tensor, indices, updates);
}
Output TensorScatterAdd(const Scope& s, const Input& tensor, const Input& indices, const Input& updates) {
  return TensorScatterOf(s, "TensorScatterAdd", tensor, indices, updates);
}
Output TensorScatterSub(const Scope& s, const Input& tensor, const Input& indices, const Input& updates) {
  return TensorScatterOf(s, "TensorScatterSub", tensor, indices, updates);
}
Output TensorScatterMax(const Scope& s, const Input& tensor, const Input& indices, const Input& updates) {
  return TensorScatterOf(s, "TensorScatterMax", tensor, indices, updates);
}
Output TensorScatterMin(const Scope& s, const Input& tensor, const Input& indices, const Input& updates) {
  return TensorScatterOf(s, "TensorScatterMin", tensor, indices, updates);
}

}  // namespace ops
}  // namespace tensoract
