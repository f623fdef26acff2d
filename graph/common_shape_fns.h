// Shape functions shared by many ops, and the building blocks of others.
//
// Each is a ShapeInferenceFn to pass to REGISTER_OP(...).SetShapeFn, or a helper a
// shape function calls. They follow TensorFlow's common_shape_fns, so a graph TensorFlow
// accepts is accepted here, with the same shapes inferred or less specific ones.
#ifndef TENSORACT_GRAPH_COMMON_SHAPE_FNS_H_
#define TENSORACT_GRAPH_COMMON_SHAPE_FNS_H_

#include "base/status.h"
#include "graph/shape_inference.h"

namespace tensoract {
namespace shape_inference {

// Every output of unknown shape: for ops whose output shape depends on values.
Status UnknownShape(InferenceContext* c);
// For ops without outputs (NoOp, _Retval, assigns to resource variables).
Status NoOutputs(InferenceContext* c);
// Every output is a scalar.
Status ScalarShape(InferenceContext* c);
// Output 0 has input 0's shape (and its resource handle data): Identity and every
// element-wise unary op.
Status UnchangedShape(InferenceContext* c);
// The same, requiring a rank of input 0.
Status UnchangedShapeWithRank(InferenceContext* c, int rank);
Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int rank);
Status UnchangedShapeWithRankAtMost(InferenceContext* c, int rank);
// Output 0 is inputs 0 and 1 merged; they must be compatible (Assign, AssignAdd).
Status MergeBothInputsShapeFn(InferenceContext* c);
// Output 0 is the node's `shape` attr (VariableV2).
Status ExplicitShape(InferenceContext* c);
// Output 0's shape is the value of input 0, a shape vector (random ops, Fill,
// StridedSliceGrad); unknown dimensions where the value is not known.
Status ShapeFromShapeInput(InferenceContext* c);

// NumPy broadcasting of `a` and `b`, aligned at the last dimension. A dimension of 1
// stretches to the other; known dimensions other than 1 must be equal. Where one side is
// unknown, the other side decides if it is greater than 1 (the program can only be correct
// if the unknown one is 1 or equal to it) or if the unknown one meets a 1; otherwise the
// result dimension is unknown. An unknown rank on either side gives an unknown shape.
Status BroadcastShapes(const InferenceContext& c, const PartialTensorShape& a, const PartialTensorShape& b,
                       PartialTensorShape* out);
// Output 0 is inputs 0 and 1 broadcast: Add, Mul and every element-wise binary op.
Status BroadcastBinaryOpShape(InferenceContext* c);

// [m,k] x [k,n] -> [m,n], honouring the transpose_a and transpose_b attrs; both inputs must
// be matrices and their inner dimensions equal where known.
Status MatMulShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_COMMON_SHAPE_FNS_H_
