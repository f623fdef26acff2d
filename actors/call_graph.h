// A call: what the master runs for one (feeds, fetches, targets) signature of a session.
//
// BuildCallGraph compiles it once, at the signature's first step: the session's graph
// rewritten for the feeds (_Arg) and fetches (_Retval), pruned to what they need, optimised
// (MasterOptions::optimizer), placed on every task's devices (graph/placer.h, with the
// master's cost model) and partitioned in two levels: by device with _Send/_Recv pairs
// (graph/partition.h), then the devices' parts grouped by task, one graph per task to
// register. Later steps of the signature only check their feeds (CheckFeeds) and run it.
#ifndef TENSORACT_ACTORS_CALL_GRAPH_H_
#define TENSORACT_ACTORS_CALL_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "actors/cluster_membership.h"
#include "actors/master.h"
#include "actors/messages.h"
#include "graph/cost_model.h"
#include "graph/subgraph.h"

namespace tensoract {

// One task's share of a call: its graph (every node on one of its devices) and the
// handle its worker gave that graph.
struct TaskGraph {
  int task = 0;
  std::shared_ptr<const tensorflow::GraphDef> graph;
  std::string handle;  // empty until registered
};

struct CachedCall {
  CallSignature signature;
  std::vector<TaskGraph> tasks;  // the master's own task (feeds, fetches) first
  // One per device (RunMetadata.partition_graphs).
  std::vector<std::shared_ptr<const tensorflow::GraphDef>> partitions;
};

// The key a session caches its calls under.
std::string SignatureKey(const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
                         const std::vector<std::string>& targets);
std::string SignatureKey(const RunStepRequest& request);

// Compiles `call->signature` (feeds, fetches, targets set) of `session_graph` for the
// cluster's `tasks` (their names and devices; [0] is the master's own).
Status BuildCallGraph(const tensorflow::GraphDef& session_graph, const std::vector<TaskState>& tasks,
                      const MasterOptions& options, const CostModel& cost_model, CachedCall* call);

// InvalidArgument naming the feed whose type or shape the call's placeholders refuse, or
// which is a tensor without memory.
Status CheckFeeds(const RunStepRequest& request, const CallSignature& signature);
// The same for one feed, `name` = `value`, the signature's feed `index`.
Status CheckFeed(const std::string& name, const Tensor& value, const CallSignature& signature, size_t index);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_CALL_GRAPH_H_
