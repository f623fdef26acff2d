// The remapper: on a placed graph, fuses Conv2D -> BiasAdd [-> Relu] into _FusedConv2D and
// MatMul -> BiasAdd [-> Relu] into _FusedMatMul where all of them run on one CPU device,
// as TensorFlow's grappler remapper does for its CPU kernels. The fused kernel adds the
// bias and applies the Relu to each block of its output right after computing it, which
// saves two passes over the activations (kernels/cpu/fused_epilogue.h).
//
// A node is fused only when its output goes to the next node of the pattern alone (no
// other consumer, no control edge out, not fetched): the intermediate values must not be
// needed. The fused node takes the last node's name, its consumers and everyone's
// control inputs. Gradients are built before this runs, so the fused ops need none.
#ifndef TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_
#define TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_

#include "graph/graph.h"

namespace tensoract {

// Returns the number of patterns fused.
int FuseBiasAndRelu(Graph* graph);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_REMAPPER_H_
