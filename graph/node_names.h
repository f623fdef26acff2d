// Names for the nodes a pass or a rewrite adds to a graph.
#ifndef TENSORACT_GRAPH_NODE_NAMES_H_
#define TENSORACT_GRAPH_NODE_NAMES_H_

#include <string>

namespace tensoract {

class Graph;

// `base` when no node of `graph` has that name, else the first free of base_1, base_2, ...
std::string UnusedNodeName(const Graph& graph, const std::string& base);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_NODE_NAMES_H_
