// SelectV2's condition read before a Tile that only broadcasts it: SelectV2(Tile(c, m), t, e)
// becomes SelectV2(c, t, e) where every dimension the Tile repeats is 1 in c and is m's
// multiple in t or e, so SelectV2's own broadcasting picks the same elements.
//
// Keras' recurrent layers with a mask (a bidirectional GRU over padded text) tile each step's
// mask [batch, 1] to [batch, units] twice an iteration, only to select the new state or keep
// the old one: 256 Tile kernels and [batch, units] buffers a step for the zoo's bigru, where
// SelectV2 reads a [batch, 1] condition along each row (kernels/cpu/cwise_select.cc). The
// values are the same. Done where every reader of the Tile is a SelectV2's condition (the
// common subexpression elimination merges the two Tiles of one mask), all on one CPU device
// (a remapper pass: graph/optimizer/remapper.h), with the shapes inferred.
#ifndef TENSORACT_GRAPH_OPTIMIZER_SELECT_BROADCAST_H_
#define TENSORACT_GRAPH_OPTIMIZER_SELECT_BROADCAST_H_

#include "graph/graph.h"

namespace tensoract {

// Drops the Tile at `select`'s condition (a SelectV2 node) as above. Returns whether the
// graph changed.
bool TryBroadcastSelectCondition(Graph* graph, Node* select);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_SELECT_BROADCAST_H_
