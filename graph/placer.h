// The placer: which device runs each node of a graph.
//
// PlaceGraph writes a full device name ("/job:localhost/replica:0/task:0/device:CPU:0")
// into every op node's NodeDef (node->def().device()), where the partitioner reads it. It
// follows TensorFlow's placer for what is allowed and the TensorFlow whitepaper's section
// 3.2.1 for what is chosen:
//
// 1. Constraints. A node's requested device (its NodeDef's `device`, full or partial, see
//    graph/device_name.h) is a constraint. A malformed one is an InvalidArgument naming
//    the node and the string.
// 2. Colocation groups, by union-find over the nodes:
//    - `_class: ["loc:@w", ...]` puts a node in the group of each named node (TensorFlow's
//      colocate_with; a name not in the graph, pruned away, is ignored);
//    - a data edge into a reference input (IsRefType) or a DT_RESOURCE input joins the
//      consumer to its producer: the variable lives in the resource manager or buffer of
//      one device, and Assign, ReadVariableOp, ResourceApplyAdam ... must run there. This
//      holds with soft placement too.
//    Joining two groups merges their constraints (MergeDeviceNames). Constraints that
//    cannot both hold (CPU:0 and CPU:1) are an InvalidArgument naming the nodes that asked
//    and what each asked for; with allow_soft_placement a conflicting device type or id is
//    dropped instead, as TensorFlow does (conflicting jobs or tasks stay errors).
// 3. Feasible devices of a group: those matching its merged constraint whose device type
//    has a kernel for every member (`has_kernel`). No device matching the constraint, or
//    none with the kernels, is an InvalidArgument naming the node, its op, the requested
//    device and the devices there are. With allow_soft_placement the constraint is relaxed
//    instead: first to its job/replica/task alone, then to any device with the kernels.
//    A group without constraints goes to `default_device` when that names a feasible one.
//    A group whose constraint names no device type goes to a GPU when a GPU has the
//    kernels for all its members (TensorFlow's device-type priority: GPU before CPU),
//    unless the cost model has measured one of its nodes: then step 5 decides.
// 4. Pinned groups, whose feasible set is one device (a complete name asks for that), go
//    there.
// 5. Every other group is placed by a greedy simulated execution of the graph: nodes are
//    visited in the order they would become ready (by the simulated finish times of their
//    inputs); each device has a time at which it becomes free. A node on device d would
//    start at max(free[d], max over its inputs of (input's finish + TransferMicros(bytes,
//    input's device, d))) and finish CostModel::ComputeMicros later. A group is decided at
//    its first node, on the feasible device where that node finishes first; ties go to the
//    lowest device index, so a graph with nothing to gain stays on device 0. Later members
//    go where their group is, and their time is simulated there.
//    A node with no inputs that is alone in its group and stateless (a Const, a
//    Placeholder) is placed with its first consumer, as TensorFlow's placer does for such
//    "generator" nodes: otherwise it would land on whichever device happened to be idle
//    and send its tensor across for nothing.
// Source, Sink and anything that is not an op node are left alone. _Arg and _Retval are
// placed like any other node.
//
// Thread-safety: PlaceGraph modifies the graph and reads the cost model; nothing else may
// touch either meanwhile. It does not block.
#ifndef TENSORACT_GRAPH_PLACER_H_
#define TENSORACT_GRAPH_PLACER_H_

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "graph/cost_model.h"
#include "graph/graph.h"
#include "messages/device_attributes.pb.h"

namespace tensoract {

// Whether a kernel for `node` is registered for `device_type` ("CPU", "GPU"). The runtime
// passes one that asks its kernel registry (the graph layer cannot see kernels/). An empty
// function means every device type has every kernel.
using KernelSupportFn = std::function<bool(const Node& node, const std::string& device_type)>;

struct PlacerOptions {
  // TensorFlow's allow_soft_placement: an unsatisfiable or conflicting constraint is
  // relaxed (see the header comment) rather than an error.
  bool allow_soft_placement = false;
  // Times for the simulation; nullptr: a default-constructed CostModel (static estimates).
  const CostModel* cost_model = nullptr;
  // When non-empty (a full or partial name), groups without any constraint go to a
  // feasible device it matches instead of where the simulation would put them.
  std::string default_device;
  // When true and placement_log is set, one "node: device" line per op node is appended
  // to *placement_log, in node id order.
  bool log_device_placement = false;
  std::vector<std::string>* placement_log = nullptr;
};

// Places every op node of `graph` on one of `devices` (whose names must be complete) and
// writes the chosen full name into its NodeDef's device field. On error the graph is left
// as it was.
Status PlaceGraph(Graph* graph, const std::vector<tensorflow::DeviceAttributes>& devices,
                  const KernelSupportFn& has_kernel, const PlacerOptions& options);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_PLACER_H_
