// The remapper's fusion of Keras' MultiHeadAttention core into one _FusedAttention node
// (kernels/cpu/fused_attention_op.cc), whose kernel never writes the [B, N, T, S] scores:
//
//   scores = Einsum("BTNH,BSNH->BNTS", query, key)      (any letters in these roles)
//   probs  = Softmax(scores * c + mask)                 (the Mul by a scalar Const optional;
//                                                        the mask, [B|1, N|1, T, S], too)
//   out    = Einsum("BNTS,BSNH->BTNH", probs, value)
//
// Matched on float CPU nodes of one device, each intermediate value read only by the next
// node (see remapper.h). A mask that would broadcast over T or S, or whose shape is not
// known, leaves the pattern unmatched.
#ifndef TENSORACT_GRAPH_OPTIMIZER_ATTENTION_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_ATTENTION_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// The fusion above, from `scores` (an Einsum node): true when it fused.
bool TryFuseAttention(Graph* graph, Node* scores);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_ATTENTION_FUSION_H_
