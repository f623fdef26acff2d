// Small graph utilities the optimizer passes share, written on Graph's public API.
#ifndef TENSORACT_GRAPH_OPTIMIZER_OPTIMIZER_UTIL_H_
#define TENSORACT_GRAPH_OPTIMIZER_OPTIMIZER_UTIL_H_

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/node_names.h"  // UnusedNodeName, for the passes

namespace tensoract {

// The op nodes in an order where each comes after all its inputs (data and control), ties
// broken by lowest id, so that a pass walking it makes the same choices on every run.
// A control-flow loop's back edges (NextIteration -> Merge) do not count, so a loop's
// body comes after its Merge nodes; nodes on any other cycle (a malformed graph) and
// everything after them are left out: the passes then simply do not touch them.
std::vector<Node*> StableTopologicalOrder(const Graph& graph);

// True when any input or output of `node` is a reference (a variable's storage), or a data
// input comes from a reference output: such a node reads or writes state that its inputs
// do not show, so no pass may merge or fold it.
bool HasRefInputOrOutput(const Node& node);

// Ops whose value is not a function of their inputs alone, or that exist only to move
// values or control between frames, devices and calls: never evaluated ahead of time
// (constant folding, shape inference's constant subgraphs) even when not marked stateful.
bool IsNeverEvaluatedAhead(const std::string& op);

// A new constant Enter named `name` (unused in `graph`) that carries output `port` of `n`
// into the loop frame `frame_name` as a loop invariant, on `n`'s device, with `n`'s inferred
// shape of that output.
Node* AddConstantEnter(Graph* graph, Node* n, int port, const std::string& frame_name, int64_t parallel_iterations,
                       const std::string& name);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_OPTIMIZER_UTIL_H_
