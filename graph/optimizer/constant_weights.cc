#include "graph/optimizer/constant_weights.h"

namespace tensoract {

int MarkConstantWeights(Graph* graph) {
  int marked = 0;
  for (Node* n : graph->op_nodes()) {
    if (n->type_string() != "MatMul" && n->type_string() != "_FusedMatMul") continue;
    if (n->input_type(1) != tensorflow::DT_FLOAT) continue;
    const Edge* weights = n->input_edge(1);
    if (weights == nullptr || weights->src->type_string() != "Const") continue;
    (*n->mutable_def()->mutable_attr())[kConstantWeightsAttr].set_b(true);
    ++marked;
  }
  return marked;
}

}  // namespace tensoract
