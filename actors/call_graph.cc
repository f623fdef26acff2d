#include "actors/call_graph.h"

#include "actors/cluster_rendezvous.h"
#include "graph/loop_lanes.h"
#include "graph/optimizer/mixed_precision.h"
#include "graph/optimizer/remapper.h"
#include "graph/optimizer/sequential_loops.h"
#include "graph/partition.h"
#include "graph/placer.h"
#include "kernels/constant_evaluator.h"
#include "kernels/cpu/bfloat16_products.h"
#include "kernels/kernel_libraries.h"
#include "kernels/kernel_registry.h"

namespace tensoract {

namespace {

// The key of feeds named by `name_of(feed)`, fetches and targets.
template <class Feeds, class NameOf>
std::string KeyOf(const Feeds& feeds, NameOf name_of, const std::vector<std::string>& fetches,
                  const std::vector<std::string>& targets) {
  std::string key;
  for (const auto& f : feeds) key += name_of(f) + ",";
  key += "|";
  for (const auto& f : fetches) key += f + ",";
  key += "|";
  for (const auto& t : targets) key += t + ",";
  return key;
}

}  // namespace

std::string SignatureKey(const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
                         const std::vector<std::string>& targets) {
  return KeyOf(feeds, [](const std::string& f) -> const std::string& { return f; }, fetches, targets);
}

std::string SignatureKey(const RunStepRequest& r) {
  return KeyOf(r.feeds, [](const NamedTensor& f) -> const std::string& { return f.first; }, r.fetches, r.targets);
}

namespace {

std::vector<tensorflow::DeviceAttributes> AllDevices(const std::vector<TaskState>& tasks) {
  std::vector<tensorflow::DeviceAttributes> all;
  for (const TaskState& t : tasks) all.insert(all.end(), t.devices.begin(), t.devices.end());
  return all;
}

}  // namespace

Status BuildCallGraph(const tensorflow::GraphDef& session_graph, const std::vector<TaskState>& tasks,
                      const MasterOptions& options, const CostModel& cost_model, CachedCall* call) {
  const bool cluster = tasks.size() > 1;
  Graph graph;
  TA_RETURN_IF_ERROR(ImportGraphDef(session_graph, &graph));
  TA_RETURN_IF_ERROR(RewriteForCall(&graph, &call->signature));
  PruneForTargets(&graph, call->signature.targets);
  TA_RETURN_IF_ERROR(OptimizeGraph(options.optimizer, CpuConstantEvaluator(), &graph));
  const std::vector<tensorflow::DeviceAttributes> devices = AllDevices(tasks);
  PlacerOptions placer;
  placer.allow_soft_placement = options.allow_soft_placement;
  placer.cost_model = &cost_model;
  if (cluster && !tasks[0].devices.empty()) {
    // As TensorFlow's master: what the graph does not place goes to the master's task,
    // and the step's feeds and fetches are exchanged there. On a task with a GPU the
    // default is the task, so its GPU takes the nodes it has kernels for (device priority).
    const std::string home = tasks[0].devices[0].name();
    bool home_has_gpu = false;
    for (const auto& d : tasks[0].devices) home_has_gpu = home_has_gpu || d.device_type() == DEVICE_GPU;
    placer.default_device = home_has_gpu ? TaskOfDevice(home) : home;
    for (Node* n : graph.op_nodes()) {
      if (n->type_string() == "_Arg" || n->type_string() == "_Retval") n->mutable_def()->set_device(home);
    }
  }
  std::vector<std::string> placement_log;
  placer.log_device_placement = options.log_device_placement;
  placer.placement_log = &placement_log;
  Status placed = PlaceGraph(&graph, devices,
                             [](const Node& n, const std::string& type) { return KernelExists(n.def(), type); }, placer);
  // A node with no kernel anywhere may have one in a kernel library that did not load.
  if (!placed.ok()) return Status(placed.code(), placed.message() + KernelLibraryLoadNote());
  // TensorFlow prints the placement of every node it compiles, on stderr.
  for (const std::string& line : placement_log) std::fprintf(stderr, "%s\n", line.c_str());
  const bool bfloat16_activations = options.optimizer.bfloat16_activations;
  const bool keeps_bfloat16 = bfloat16_activations && NativeBfloat16Products();
  RemapOptions remap;
  remap.fuse_pointwise_depthwise = !keeps_bfloat16;
  if (options.optimizer.do_remapping) Remap(&graph, remap);
  if (options.optimizer.bfloat16_products || bfloat16_activations) MarkBfloat16Products(&graph);
  if (options.optimizer.int8_products) MarkInt8Products(&graph);
  if (keeps_bfloat16) {
    KeepActivationsInBfloat16(&graph, [](const NodeDef& def) { return KernelExists(def, DEVICE_CPU); });
  }
  if (options.optimizer.sequential_loops) {
    FuseSequentialLoops(&graph, [](const Node& n) { return KernelExists(n.def(), DEVICE_CPU); });
  }
  PartitionOptions partition;
  for (const auto& d : devices) partition.device_incarnations[d.name()] = static_cast<int64_t>(d.incarnation());
  partition.lossy_float_transfers = options.enable_bfloat16_sendrecv;
  partition.schedule_recvs = options.enable_recv_scheduling;
  const CostModel* cost = &cost_model;
  partition.node_cost = [cost](const Node& n) { return cost->ComputeMicros(n, DEVICE_CPU); };
  std::vector<int> lanes;
  if (options.optimizer.parallel_loops) {
    TA_RETURN_IF_ERROR(IndependentLoopLanes(graph, &lanes));
    partition.lane_of = [&lanes](const Node& n) { return lanes[n.id()]; };
  }
  std::map<std::string, tensorflow::GraphDef> parts;
  TA_RETURN_IF_ERROR(Partition(graph, partition, &parts));
  // The second level: each task gets one graph with its devices' parts.
  std::map<int, tensorflow::GraphDef> by_task;
  for (auto& [key, part] : parts) {
    const std::string device = DeviceOfPartition(key);
    const std::string task = TaskOfDevice(device);
    int index = -1;
    for (size_t t = 0; t < tasks.size(); ++t) {
      if (tasks[t].name == task) index = static_cast<int>(t);
    }
    if (index < 0 && !cluster) index = 0;  // a lone worker may name its devices its own way
    if (index < 0) return errors::Internal("device ", device, " belongs to no task of the cluster");
    tensorflow::GraphDef& mine = by_task[index];
    *mine.mutable_versions() = graph.versions();
    for (const NodeDef& node : part.node()) *mine.add_node() = node;
    if (!part.has_versions()) *part.mutable_versions() = graph.versions();
    call->partitions.push_back(std::make_shared<const tensorflow::GraphDef>(std::move(part)));
  }
  if (by_task.empty()) by_task[0];  // nothing to run: the master's task answers an empty step
  for (auto& [index, g] : by_task) {
    call->tasks.push_back(TaskGraph{index, std::make_shared<const tensorflow::GraphDef>(std::move(g)), ""});
  }
  return Status::OK();
}

Status CheckFeed(const std::string& name, const Tensor& t, const CallSignature& sig, size_t i) {
  if (t.dtype() != sig.feed_types[i]) {
    return errors::InvalidArgument("feed '", name, "' is a ", DataTypeString(t.dtype()), " tensor but the graph's tensor '",
                                   name, "' is ", DataTypeString(sig.feed_types[i]));
  }
  if (!sig.feed_shapes[i].IsCompatibleWith(t.shape())) {
    return errors::InvalidArgument("feed '", name, "' has shape ", t.shape().DebugString(),
                                   " but the placeholder declares shape ", sig.feed_shapes[i].DebugString());
  }
  if (!t.IsInitialized()) return errors::InvalidArgument("feed '", name, "' is a tensor without memory");
  return Status::OK();
}

Status CheckFeeds(const RunStepRequest& r, const CallSignature& sig) {
  for (size_t i = 0; i < r.feeds.size(); ++i) TA_RETURN_IF_ERROR(CheckFeed(r.feeds[i].first, r.feeds[i].second, sig, i));
  return Status::OK();
}

}  // namespace tensoract
