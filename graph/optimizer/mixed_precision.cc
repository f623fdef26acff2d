// Products in bfloat16 (see mixed_precision.h).
#include "graph/optimizer/mixed_precision.h"

#include <string>

namespace tensoract {

int MarkBfloat16Products(Graph* graph) {
  int marked = 0;
  for (Node* n : graph->op_nodes()) {
    const std::string& op = n->type_string();
    if (op != "Conv2D" && op != "_FusedConv2D" && op != "MatMul" && op != "_FusedMatMul" &&
        op != "_FusedConv2DWithDepthwise" && op != "_FusedChannelStepsConv2D") {
      continue;
    }
    if (n->requested_device().find("/device:CPU:") == std::string::npos) continue;
    auto t = n->def().attr().find("T");
    if (t == n->def().attr().end() || t->second.type() != tensorflow::DT_FLOAT) continue;
    (*n->mutable_def()->mutable_attr())[kBfloat16ProductsAttr].set_b(true);
    ++marked;
  }
  return marked;
}

}  // namespace tensoract
