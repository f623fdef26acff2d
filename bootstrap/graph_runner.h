// Running a GraphDef file from the command line (the tensoract-run tool):
//
//   tensoract-run --graph model.pbtxt --feed x=1,1,2,0@2x2 --fetch y [--target init]
//
// A feed is name=comma-separated float values, optionally @ and a shape (default: a
// vector). The graph file is text when it ends in .pbtxt or .txt, binary otherwise.
#ifndef TENSORACT_BOOTSTRAP_GRAPH_RUNNER_H_
#define TENSORACT_BOOTSTRAP_GRAPH_RUNNER_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kernels/tensor.h"

namespace tensoract {

struct GraphRunSpec {
  std::string graph_path;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

// "1,2,3,4@2x2" -> a float tensor of shape [2,2]. InvalidArgument naming the bad part.
StatusOr<Tensor> ParseFeedValue(const std::string& text);
// Parses the command line above; InvalidArgument names an unknown or incomplete flag.
StatusOr<GraphRunSpec> ParseGraphRunArgs(const std::vector<std::string>& args);
// Loads the graph, runs one step and prints "name = <values>" per fetch to `out`.
Status RunGraphFile(const GraphRunSpec& spec, std::ostream& out);

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_GRAPH_RUNNER_H_
