// The remapper's fusion of an embedding bag: Keras' Embedding then GlobalAveragePooling1D
// writes Mean(GatherV2(table, ids), axis 1), ids [batch, tokens] and the table [rows,
// depth], which gathers [batch, tokens, depth] (0.5 MB for the zoo's embedding_bag at batch
// 32) only to average it away. One _FusedGatherMean node (graph/ops/embedding_ops.cc,
// kernels/cpu/gather_mean_op.cc) adds each token's row into its batch row's sum instead.
// Matched on float CPU nodes of one device: GatherV2 on axis 0 without batch dimensions of
// a table and ids known to be matrices, read only by a Mean over axis 1 that drops it.
#ifndef TENSORACT_GRAPH_OPTIMIZER_GATHER_MEAN_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_GATHER_MEAN_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// The fusion above, from `mean` (a Mean node): true when it fused.
bool TryFuseGatherMean(Graph* graph, Node* mean);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_GATHER_MEAN_FUSION_H_
