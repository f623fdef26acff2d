// The remapper's flattening of concatenations along one axis (DenseNet's blocks: each layer
// concatenates its output to the block so far, which is itself a concatenation):
//
//   ConcatV2(ConcatV2(a, b, axis), c, axis)  =>  ConcatV2(a, b, c, axis)
//
// The outer node then copies the pieces themselves; the inner one goes where nothing else
// reads it, else keeps its other consumers (a layer's pre-activation), which can then take
// the pieces in its place (graph/optimizer/steps_conv_fusion.h), so that no block but the
// last is ever written whole.
// The values are the same. Matched where the inner node is a ConcatV2 of the same T on the same
// CPU device, its axis the same Const value, without control inputs; inner concatenations of
// the inner one are taken apart too, so one pass flattens a chain in any node order.
#ifndef TENSORACT_GRAPH_OPTIMIZER_CONCAT_FLATTENING_H_
#define TENSORACT_GRAPH_OPTIMIZER_CONCAT_FLATTENING_H_

#include "graph/graph.h"

namespace tensoract {

// The flattening above, of `concat` (a ConcatV2): true when it took any input apart.
bool TryFlattenConcat(Graph* graph, Node* concat);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_CONCAT_FLATTENING_H_
