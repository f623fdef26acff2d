// Products whose weights are constants: a float MatMul or _FusedMatMul whose right-hand side
// is a Const (in a served model, a frozen variable's value: actors/frozen_variables.cc)
// carries the attr "_constant_weights". Its kernel may then keep the weights in oneDNN's
// blocked layout across steps and multiply on oneDNN's float kernels (kernels/cpu/
// matmul_op.cc), which a right-hand side that changes every step (a training step's
// weights, a gradient) would have to be reordered for on every call.
#ifndef TENSORACT_GRAPH_OPTIMIZER_CONSTANT_WEIGHTS_H_
#define TENSORACT_GRAPH_OPTIMIZER_CONSTANT_WEIGHTS_H_

#include "graph/graph.h"

namespace tensoract {

inline constexpr char kConstantWeightsAttr[] = "_constant_weights";

// Marks the products above; returns how many.
int MarkConstantWeights(Graph* graph);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_CONSTANT_WEIGHTS_H_
