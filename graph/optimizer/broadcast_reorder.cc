#include "graph/optimizer/broadcast_reorder.h"

#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {

using remapper::DataInput;
using remapper::Source;

bool TryScaleBeforeBroadcast(Graph* graph, Node* step) {
  const Source broadcast = DataInput(*step, 0);
  const Source scale = DataInput(*step, 1);
  Node* bt = broadcast.node;
  if (bt == nullptr || scale.node == nullptr || bt->type_string() != "BroadcastTo" || broadcast.port != 0) return false;
  if (!remapper::SameCpuFloat(*bt, *step) || remapper::SoleConsumer(*bt) == nullptr) return false;
  const PartialTensorShape& scale_shape = scale.node->output_shape(scale.port);
  if (scale_shape.unknown_rank() || scale_shape.dims() != 0) return false;
  const Source value = DataInput(*bt, 0);
  if (value.node == nullptr) return false;

  // step(value, scale) -> BroadcastTo(step, shape); step's consumers move to the broadcast.
  const PartialTensorShape broadcast_shape = step->output_shape(0);
  const std::vector<const Edge*> outs(step->out_edges().begin(), step->out_edges().end());
  for (const Edge* e : outs) {
    Node* dst = e->dst;
    const int input = e->IsControlEdge() ? Edge::kControlSlot : e->dst_input;
    const int port = e->src_output;
    graph->RemoveEdge(e);
    if (input == Edge::kControlSlot) graph->AddControlEdge(bt, dst);
    else graph->AddEdge(bt, port, dst, input);
  }
  graph->RemoveEdge(step->input_edge(0));
  graph->RemoveEdge(bt->input_edge(0));
  graph->AddEdge(value.node, value.port, step, 0);
  graph->AddEdge(step, 0, bt, 0);
  step->set_output_shape(0, value.node->output_shape(value.port));
  bt->set_output_shape(0, broadcast_shape);
  return true;
}

}  // namespace tensoract
