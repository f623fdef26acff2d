#include "actors/frozen_variables.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>
#include <unordered_map>

#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/optimizer/constant_folding.h"
#include "graph/optimizer/constant_weights.h"
#include "graph/optimizer/filter_scale_folding.h"
#include "kernels/constant_evaluator.h"

namespace tensoract {

bool FrozenVariables::Current() const {
  // No variable anywhere changed since every one of these was last seen current.
  const uint64_t epoch = VariableChangeEpoch();
  if (seen_current_ && epoch == current_at_) return true;
  for (const auto& [key, entry] : vars_) {
    if (entry.var->version() != entry.version) return false;
  }
  seen_current_ = true;
  current_at_ = epoch;
  return true;
}

const FrozenVariables::Entry* FrozenVariables::Find(const Key& key) const {
  auto it = vars_.find(key);
  return it == vars_.end() ? nullptr : &it->second;
}

namespace {

// The variable a VarHandleOp names, on `device` (a node without a device runs on the
// worker's first, as the worker places it).
FrozenVariables::Key HandleKey(const NodeDef& handle, const std::string& device) {
  std::string container, shared_name;
  GetNodeAttr(handle, "container", &container).IgnoreError();
  GetNodeAttr(handle, "shared_name", &shared_name).IgnoreError();
  if (shared_name.empty()) shared_name = handle.name();  // as VarHandleOp's kernel names it
  return {device, container.empty() ? ResourceMgr::kDefaultContainer : container, shared_name};
}

// The VarHandleOp nodes of `graph` by name.
std::unordered_map<std::string, const NodeDef*> HandlesByName(const tensorflow::GraphDef& graph) {
  std::unordered_map<std::string, const NodeDef*> handles;
  for (const NodeDef& node : graph.node()) {
    if (node.op() == "VarHandleOp") handles[node.name()] = &node;
  }
  return handles;
}

// A handle with inputs waits for something (a loop's pivot: it runs in that loop's frame),
// and a Const replacing its reads would leave the frame: such variables are not frozen.
bool InRootFrame(const NodeDef& handle) { return handle.input_size() == 0; }

// The VarHandleOp whose handle `input` (a data input) names, or null.
const NodeDef* HandleOf(const std::unordered_map<std::string, const NodeDef*>& handles, const std::string& input) {
  TensorId id;
  if (!ParseTensorName(input, &id).ok() || id.IsControl() || id.index != 0) return nullptr;
  auto it = handles.find(id.node);
  return it == handles.end() ? nullptr : it->second;
}

// The nodes of `graph` whose every data consumer is a Cast to bfloat16 or half (Keras' mixed
// precision reading its float32 variables), by name; a node with no data consumer is not
// listed. Freezing such a read, however large its variable, folds the cast into a Const of
// the narrow type, instead of casting the weights at every step (ResNet50 under
// mixed_bfloat16: 13 ms of a 61 ms step at batch 1).
std::set<std::string> ReadOnlyNarrowed(const tensorflow::GraphDef& graph) {
  std::map<std::string, bool> only_narrowed;
  for (const NodeDef& node : graph.node()) {
    tensorflow::DataType to = tensorflow::DT_INVALID;
    const bool narrowing = node.op() == "Cast" && GetNodeAttr(node, "DstT", &to).ok() &&
                           (to == tensorflow::DT_BFLOAT16 || to == tensorflow::DT_HALF);
    for (const std::string& input : node.input()) {
      TensorId id;
      if (!ParseTensorName(input, &id).ok() || id.IsControl()) continue;
      auto [it, fresh] = only_narrowed.emplace(std::string(id.node), narrowing);
      if (!fresh) it->second = it->second && narrowing;
    }
  }
  std::set<std::string> out;
  for (const auto& [name, narrowed] : only_narrowed) {
    if (narrowed) out.insert(name);
  }
  return out;
}

}  // namespace

FrozenVariables FreezableVariables(const tensorflow::GraphDef& graph, const std::vector<std::shared_ptr<Device>>& devices) {
  FrozenVariables freezable;
  if (devices.empty()) return freezable;
  const auto handles = HandlesByName(graph);
  if (handles.empty()) return freezable;
  std::set<FrozenVariables::Key> read, other_use;
  std::map<FrozenVariables::Key, std::vector<std::string>> reads;  // the plain reads of each
  for (const NodeDef& node : graph.node()) {
    for (const std::string& input : node.input()) {
      const NodeDef* handle = HandleOf(handles, input);
      if (handle == nullptr) continue;
      const std::string device = handle->device().empty() ? devices[0]->name() : handle->device();
      // A write, a handle passed on (to a function, a _Send) or a read on another device:
      // anything but a plain read may change or outlive what a constant would hold.
      const bool plain_read = node.op() == "ReadVariableOp" && node.input_size() >= 1 && node.input(0) == input &&
                              (node.device().empty() ? devices[0]->name() : node.device()) == device &&
                              InRootFrame(*handle);
      (plain_read ? read : other_use).insert(HandleKey(*handle, device));
      if (plain_read) reads[HandleKey(*handle, device)].push_back(node.name());
    }
  }
  const std::set<std::string> narrowed = ReadOnlyNarrowed(graph);
  for (const FrozenVariables::Key& key : read) {
    if (other_use.count(key)) continue;
    auto device = std::find_if(devices.begin(), devices.end(),
                               [&](const std::shared_ptr<Device>& d) { return d->name() == std::get<0>(key); });
    if (device == devices.end() || (*device)->device_type() != DEVICE_CPU) continue;
    auto var = (*device)->resource_manager()->Lookup<Var>(std::get<1>(key), std::get<2>(key));
    if (!var.ok()) continue;
    const uint64_t version = var.value()->version();  // before the read: a write between shows
    auto value = var.value()->Read();
    if (!value.ok() || !DataTypeIsFixedSize(value.value().dtype())) continue;
    const std::vector<std::string>& its_reads = reads[key];
    const bool only_narrowed = std::all_of(its_reads.begin(), its_reads.end(),
                                           [&](const std::string& r) { return narrowed.count(r) > 0; });
    if (static_cast<int64_t>(value.value().TotalBytes()) > kMaxFrozenVariableBytes && !only_narrowed) continue;
    freezable.Add(key, std::move(var).value(), version);
  }
  return freezable;
}

StatusOr<FrozenVariables> FreezeVariableReads(const FrozenVariables& freezable, const std::string& device,
                                              tensorflow::GraphDef* part) {
  FrozenVariables frozen;
  const auto handles = HandlesByName(*part);
  tensorflow::GraphDef rewritten = *part;
  std::set<std::string> frozen_reads;  // the Consts the reads became
  for (NodeDef& node : *rewritten.mutable_node()) {
    if (node.op() != "ReadVariableOp" || node.input_size() < 1) continue;
    const NodeDef* handle = HandleOf(handles, node.input(0));
    if (handle == nullptr) continue;
    FrozenVariables::Key key = HandleKey(*handle, handle->device().empty() ? device : handle->device());
    const FrozenVariables::Entry* entry = freezable.Find(key);
    if (entry == nullptr) continue;
    TA_ASSIGN_OR_RETURN(Tensor value, entry->var->Read());
    if (entry->var->version() != entry->version) {
      return errors::FailedPrecondition("variable ", std::get<2>(key), " changed since the graph was registered");
    }
    NodeDef constant;
    constant.set_name(node.name());
    constant.set_op("Const");
    constant.set_device(node.device());
    for (int i = 1; i < node.input_size(); ++i) {
      if (node.input(i).rfind("^", 0) == 0) constant.add_input(node.input(i));
    }
    for (const auto& [name, attr] : node.attr()) {
      if (!name.empty() && name[0] == '_') (*constant.mutable_attr())[name] = attr;  // the partitioner's marks
    }
    (*constant.mutable_attr())["dtype"].set_type(value.dtype());
    value.AsProtoTensorContent((*constant.mutable_attr())["value"].mutable_tensor());
    node = std::move(constant);
    frozen_reads.insert(node.name());
    frozen.Add(std::move(key), entry->var, entry->version);
  }
  if (frozen.empty()) return frozen;

  Graph graph;
  TA_RETURN_IF_ERROR(ImportGraphDef(rewritten, &graph));
  const ConstantFoldingOptions folding;
  ConstantFold(folding, *CpuConstantEvaluator(), &graph);
  // A batch norm's scale, fused into a convolution whose filter is now a constant, goes into
  // the filter (graph/optimizer/filter_scale_folding.h), folded once here.
  if (FoldChannelMulIntoFilters(&graph, folding.max_constant_size_in_bytes) > 0) {
    ConstantFold(folding, *CpuConstantEvaluator(), &graph);
  }
  // Products by frozen weights may keep them in oneDNN's layout (graph/optimizer/constant_weights.h).
  MarkConstantWeights(&graph);
  // A frozen read whose every consumer folded away (a narrowing Cast, now a Const of its
  // own) would only hold a second copy of the variable.
  for (Node* n : graph.op_nodes()) {
    if (n->type_string() != "Const" || frozen_reads.count(n->name()) == 0) continue;
    bool used = false;
    for (const Edge* e : n->out_edges()) used |= e->dst != graph.sink_node();
    if (!used) graph.RemoveNode(n);
  }
  // Handles whose reads all became constants are left with nothing to do.
  for (Node* n : graph.op_nodes()) {
    if (n->type_string() != "VarHandleOp") continue;
    bool used = false;
    for (const Edge* e : n->out_edges()) used |= e->dst != graph.sink_node();
    if (!used) graph.RemoveNode(n);
  }
  tensorflow::GraphDef folded;
  graph.ToGraphDef(&folded);
  *folded.mutable_library() = part->library();  // import inlines calls and drops it; kernels may name its functions
  *folded.mutable_versions() = part->versions();
  *part = std::move(folded);
  return frozen;
}

}  // namespace tensoract
