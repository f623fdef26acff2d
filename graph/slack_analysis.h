// Slack analysis: how early and how late each node of a graph can start.
//
// Given a cost per node (its run time), ASAP is the earliest a node can start if every node
// starts as soon as all its inputs (data and control) are done; ALAP is the latest it can
// start without making the whole graph finish later than the critical path, the longest
// chain of costs from the entry to the exit. A node's slack is ALAP - ASAP: how long it
// may wait for free. Recv scheduling (graph/partition.h, whitepaper section 5.2) uses it
// to hold a Recv back until its value is needed.
//
// The analysis assumes unlimited parallelism (that a device runs a bounded number of nodes
// at once is not modelled) and ignores transfer times: it is a heuristic for ordering, not
// a simulator.
#ifndef TENSORACT_GRAPH_SLACK_ANALYSIS_H_
#define TENSORACT_GRAPH_SLACK_ANALYSIS_H_

#include <functional>
#include <vector>

#include "base/status.h"
#include "graph/graph.h"

namespace tensoract {

// Times in the unit of the costs, indexed by node id (ids of removed nodes hold 0).
struct SlackTimes {
  std::vector<double> cost;
  std::vector<double> asap;  // earliest start
  std::vector<double> alap;  // latest start that keeps the critical path's length
  double critical_path = 0;  // when the last node finishes, starting everything ASAP

  double AsapFinish(int id) const { return asap[id] + cost[id]; }
  double Slack(int id) const { return alap[id] - asap[id]; }
};

// `node_cost` is asked once per op node (null: 1 per op node); Source and Sink cost 0.
// A negative cost is taken as 0. InvalidArgument, naming nodes, when the graph has a cycle.
Status ComputeSlack(const Graph& graph, const std::function<double(const Node&)>& node_cost,
                    SlackTimes* times);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_SLACK_ANALYSIS_H_
