#include "graph/slack_analysis.h"

#include <algorithm>

namespace tensoract {

Status ComputeSlack(const Graph& graph, const std::function<double(const Node&)>& node_cost,
                    SlackTimes* times) {
  std::vector<Node*> order;
  TA_RETURN_IF_ERROR(TopologicalOrder(graph, &order));
  const size_t n = static_cast<size_t>(graph.num_node_ids());
  times->cost.assign(n, 0);
  times->asap.assign(n, 0);
  times->alap.assign(n, 0);
  for (Node* node : order) {
    if (!node->IsOp()) continue;
    times->cost[node->id()] = std::max(0.0, node_cost ? node_cost(*node) : 1.0);
  }

  // Forward: a node starts when its last input finishes.
  times->critical_path = 0;
  for (Node* node : order) {
    double start = 0;
    for (const Edge* e : node->in_edges()) start = std::max(start, times->AsapFinish(e->src->id()));
    times->asap[node->id()] = start;
    times->critical_path = std::max(times->critical_path, times->AsapFinish(node->id()));
  }

  // Backward: a node must finish before its earliest consumer's latest start.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node* node = *it;
    double finish = times->critical_path;
    for (const Edge* e : node->out_edges()) finish = std::min(finish, times->alap[e->dst->id()]);
    times->alap[node->id()] = finish - times->cost[node->id()];
  }
  return Status::OK();
}

}  // namespace tensoract
