// Partitioning: cutting a placed graph into one GraphDef per device, joined by _Send/_Recv.
//
// Every op node must carry its full device name in node.def().device() (the placer's
// job). Each node goes, with its attrs (those starting with '_' too), into its device's
// partition; inputs and control inputs between nodes of one device are kept as they are.
// Each edge whose ends are on different devices is cut (whitepaper section 3.2.2):
//
//   data edge src:k -> dst      src:k -> _Send  (on src's device)
//                               _Recv -> dst    (on dst's device)
//   control edge ^src -> dst    Const (empty float, "^src") -> _Send  (on src's device)
//                               _Recv -> ^dst                         (on dst's device)
//
// There is one _Send/_Recv pair per (tensor, destination device), and one per (control
// source, destination device): every consumer of src:k on a device reads the same _Recv, so
// a tensor crosses to a device once however many consumers it has there. The pair's
// tensor_name is "edge_<id>_<src>", with the id of the first edge cut for it, as in
// TensorFlow; the rendezvous key of the pair is RendezvousKey (graph/rendezvous_key.h)
// applied to the pair's attrs.
//
// Names of the nodes added, with <src> the producer's name and <n> a number shared by the
// nodes of one pair (unique in the whole graph):
//   <src>/_Send_<n>, <src>/_Recv_<n>       the pair
//   <src>/_Control_<n>                     the dummy Const a control edge sends
//   <src>/_ToBfloat16_<n>, <src>/_FromBfloat16_<n>   lossy casts (below)
//
// Lossy transfers (lossy_float_transfers, whitepaper section 5.5): a DT_FLOAT tensor is
// cast to bfloat16 by truncation (Cast, Truncate=true: the low 16 mantissa bits of the
// float32 are dropped) on the sender, crosses as bfloat16, and is widened back to float
// (low 16 bits zero) on the receiver. Halves the bytes moved; other dtypes cross as they are.
//
// Recv scheduling (schedule_recvs, whitepaper section 5.2): a _Recv has no inputs, so it
// would otherwise start at the beginning of the step and hold its buffer (and its share of
// the network) long before its value is needed. With graph/slack_analysis.h's ASAP/ALAP
// times of the whole placed graph under node_cost, for each _Recv:
//   need   = the earliest ALAP start among its consumers (when the value must be there),
//   arrive = the ASAP finish of its producer (when the value can be there at the earliest).
// Among the original nodes on the _Recv's device (not its consumers), the one whose ASAP
// finish is the latest in (arrive, need] gets a control edge into the _Recv: the Recv then
// waits for work that, on the critical-path estimate, is over before the value is needed
// anyway, so the path does not lengthen. A value needed at once (no node finishes in
// (arrive, need]) gets no edge. A candidate that depends on the _Recv (through any
// partition, and through the edges added before) is skipped for the next one, so no cycle
// is ever created.
//
// Loops across devices (whitepaper section 4.4, TensorFlow's AddControlFlow): a device
// that receives a value inside a loop whose LoopCond is elsewhere could not tell when an
// iteration starts or the loop ends. It gets a control loop of its own for that frame:
//
//   _cloop/<frame>/Enter_<n>   Enter of an empty float (or of the enclosing frame's control
//                              loop Merge, for a nested loop: control loops nest too)
//   _cloop/<frame>/Merge_<n>   Merge(Enter, NextIteration)
//   _cloop/<frame>/Switch_<n>  Switch(Merge, the LoopCond's value, received every iteration)
//   _cloop/<frame>/NextIteration_<n>   NextIteration(Switch:1)
//
// and every _Recv of a value of that frame on that device waits (control edge) for the
// control loop's Merge, so it runs once per iteration, with the iteration in its key
// (frame:iter), and the LoopCond's last (false) value ends the frame there. Before that,
// control-flow nodes move next to their data, as TensorFlow's
// OptimizeControlFlowColocation does: a Switch to its data input's device, an Exit to its
// input's, an Enter (of a value) and a NextIteration to their first consumer's. Recv
// scheduling leaves _Recvs inside loops alone.
//
// Lanes (lane_of): nodes of one device may be split further, into lanes that the worker
// runs as executors of their own, side by side (graph/loop_lanes.h gives each independent
// loop one). An edge between lanes is cut as one between devices is, with both ends' device
// the same, and never narrowed to bfloat16; a partition of lane k > 0 has the key
// PartitionKey(device, k) ("<device>#lane:<k>") and its nodes carry the attr
// "_executor_lane" = k, by which the worker tells the lanes of a device apart again.
//
// Not handled: host-memory placement of Send/Recv on GPUs, and client-terminated feeds and
// fetches (the call frame's _Arg/_Retval nodes do that job here and stay on their devices
// unchanged).
#ifndef TENSORACT_GRAPH_PARTITION_H_
#define TENSORACT_GRAPH_PARTITION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "base/status.h"
#include "graph/graph.h"
#include "graph/rendezvous_key.h"
#include "messages/graph.pb.h"

namespace tensoract {

struct PartitionOptions {
  // Incarnation of each device (rendezvous keys carry the sender's); missing -> 1.
  std::map<std::string, int64_t> device_incarnations;
  bool lossy_float_transfers = false;  // section 5.5
  bool schedule_recvs = false;         // section 5.2
  std::function<double(const Node&)> node_cost;  // microseconds, for recv scheduling; null -> 1 per node
  std::function<int(const Node&)> lane_of;        // the node's lane on its device; null -> 0 for all
};

inline constexpr char kExecutorLaneAttr[] = "_executor_lane";
inline constexpr char kLaneSeparator[] = "#lane:";

// The key of a partition: the device, for lane 0; "<device>#lane:<lane>" otherwise.
std::string PartitionKey(const std::string& device, int lane);
std::string DeviceOfPartition(const std::string& key);
int LaneOfPartition(const std::string& key);

// Fills `partitions` (cleared first) with one GraphDef per partition key (the device name,
// without lanes), each node with its device set and the graph's versions. `graph` is not modified. InvalidArgument naming the
// node when an op node has no device, when a loop that spans devices has no LoopCond, or
// for malformed frames (graph/control_flow.h); with schedule_recvs, InvalidArgument when the
// graph has a cycle other than a loop's.
Status Partition(const Graph& graph, const PartitionOptions& options,
                 std::map<std::string, tensorflow::GraphDef>* partitions);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_PARTITION_H_
