// Builder functions for the registered ops: each adds one node to the scope's graph and
// returns its output(s). Attribute types are inferred from the inputs, as in TensorFlow's
// C++ API; an error is recorded in the scope (see graph/builder/scope.h).
#ifndef TENSORACT_GRAPH_BUILDER_OPS_H_
#define TENSORACT_GRAPH_BUILDER_OPS_H_

#include "base/tensor_shape.h"
#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

Output Const(const Scope& scope, const Input& value);
Output Placeholder(const Scope& scope, DataType dtype, const PartialTensorShape& shape = PartialTensorShape());
Output Identity(const Scope& scope, const Input& input);
Output Add(const Scope& scope, const Input& x, const Input& y);
Output AddV2(const Scope& scope, const Input& x, const Input& y);
Output Mul(const Scope& scope, const Input& x, const Input& y);

struct MatMulAttrs {
  bool transpose_a = false;
  bool transpose_b = false;
};
Output MatMul(const Scope& scope, const Input& a, const Input& b, MatMulAttrs attrs = {});

// A node with no outputs; target it, or depend on it, to run what it depends on.
Node* NoOp(const Scope& scope);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_OPS_H_
