// Turning a session's graph into what one Run signature executes.
//
// RewriteForCall replaces each fed tensor by an _Arg node (so whatever produced it is not
// run) and gives each fetched tensor a _Retval node; PruneForTargets then drops every node
// the fetches and targets do not need. Any tensor "node:port" can be fed or fetched, not
// only placeholders, as in TensorFlow.
#ifndef TENSORACT_GRAPH_SUBGRAPH_H_
#define TENSORACT_GRAPH_SUBGRAPH_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor_shape.h"
#include "graph/graph.h"

namespace tensoract {

// What a rewritten graph expects of a call: per feed its dtype and the shape it declares
// (unknown rank when nothing is declared), per fetch its dtype.
struct CallSignature {
  std::vector<std::string> feeds, fetches, targets;
  DataTypeVector feed_types;
  std::vector<PartialTensorShape> feed_shapes;
  DataTypeVector fetch_types;
};

// Rewrites `graph` in place for `sig.feeds`, `sig.fetches` and `sig.targets`, and fills
// the types and shapes in `sig`. NotFound names a feed, fetch or target whose node does not
// exist; InvalidArgument a port out of range or a name fed twice.
Status RewriteForCall(Graph* graph, CallSignature* sig);

// Removes every op node that neither reaches a _Retval nor a target, nor is one.
void PruneForTargets(Graph* graph, const std::vector<std::string>& targets);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_SUBGRAPH_H_
