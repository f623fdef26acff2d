#include "graph/node_names.h"

#include "base/status.h"
#include "graph/graph.h"

namespace tensoract {

std::string UnusedNodeName(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1; graph.FindNode(name) != nullptr; ++i) name = StrCat(base, "_", i);
  return name;
}

}  // namespace tensoract
