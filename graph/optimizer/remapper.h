// The remapper: on a placed graph, replaces chains of nodes that run on one CPU device by
// one kernel that does their work in fewer passes over memory:
//   - Conv2D -> BiasAdd [-> Relu] into _FusedConv2D and MatMul -> BiasAdd [-> Relu] into
//     _FusedMatMul, as TensorFlow's grappler remapper does for its CPU kernels: the bias
//     and the Relu are applied to each block of output right after it is computed
//     (kernels/cpu/fused_epilogue.h), which saves two passes over the activations;
//   - MaxPoolGrad -> ReluGrad, where the pool's input is the Relu's output that ReluGrad
//     takes as features (a Relu -> MaxPool layer's gradient), into _MaxPoolGradWithReluGrad,
//     a tensoract op TensorFlow lacks: a window's gradient goes to its maximum only when
//     that maximum is positive, which saves the ReluGrad's pass over the input gradient;
//   - Conv2DBackpropFilter and BiasAddGrad of one output gradient (a conv layer with a
//     bias) into _Conv2DBackpropFilterWithBias, tensoract's op: the bias gradient is summed
//     on the filter gradient's pass over that tensor instead of a pass of its own.
// The values are the very same as the unfused nodes', except the fused bias gradient's,
// which sums in another order (equal up to float rounding).
//
// A node of a chain is fused only when its output goes to the next node of the pattern
// alone (no other consumer, no control edge out, not fetched): the intermediate values must
// not be needed. The fused node takes the last node's name, its consumers and everyone's
// control inputs. Gradients are built before this runs, so the fused ops need none.
#ifndef TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_
#define TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_

#include "graph/graph.h"

namespace tensoract {

// Every fusion above; returns the number of patterns fused.
int Remap(Graph* graph);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_
