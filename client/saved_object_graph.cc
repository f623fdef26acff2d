#include "client/saved_object_graph.h"

#include <map>
#include <set>

#include <google/protobuf/unknown_field_set.h>

#include "graph/builder/io_ops.h"
#include "graph/builder/ops.h"
#include "graph/node_def_util.h"
#include "kernels/checkpoint/tensor_bundle.h"
#include "messages/object_graph_view.pb.h"

namespace tensoract {
namespace {

namespace view = ::tensoract::object_graph_view;

constexpr int kObjectGraphFieldNumber = 7;  // MetaGraphDef.object_graph_def
constexpr char kObjectGraphCheckpointKey[] = "_CHECKPOINTABLE_OBJECT_GRAPH";
constexpr char kVariableValueAttribute[] = "VARIABLE_VALUE";
constexpr char kRestoreScope[] = "saved_model_restore_captured";

// MetaGraphDef keeps the object graph as an unknown field (it is not mirrored).
bool ReadObjectGraph(const tensorflow::MetaGraphDef& meta_graph, view::SavedObjectGraph* graph) {
  const auto& unknown = meta_graph.GetReflection()->GetUnknownFields(meta_graph);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const auto& field = unknown.field(i);
    if (field.number() == kObjectGraphFieldNumber && field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      return graph->ParseFromString(field.length_delimited());
    }
  }
  return false;
}

}  // namespace

Status RestoreCapturedVariables(Session& session, const tensorflow::MetaGraphDef& meta_graph,
                                const std::string& variables_prefix) {
  view::SavedObjectGraph objects;
  if (!ReadObjectGraph(meta_graph, &objects)) return Status::OK();
  const tensorflow::GraphDef& graph = meta_graph.graph_def();
  std::map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& node : graph.node()) nodes[node.name()] = &node;

  // What the Saver restores: the handles its restore call takes.
  std::set<std::string> restored_by_saver;
  if (auto it = nodes.find(NodeNameOf(meta_graph.saver_def().restore_op_name())); it != nodes.end()) {
    for (const std::string& in : it->second->input()) restored_by_saver.insert(NodeNameOf(in));
  }
  // Each captured VarHandleOp the Saver leaves alone, with its object's node id.
  std::map<std::string, int> captured;
  for (const auto& node : graph.node()) {
    if (node.op() != "StatefulPartitionedCall" && node.op() != "PartitionedCall") continue;
    auto f = node.attr().find("f");
    if (f == node.attr().end()) continue;
    auto fn = objects.concrete_functions().find(f->second.func().name());
    if (fn == objects.concrete_functions().end()) continue;
    const int n_bound = fn->second.bound_inputs_size();
    int data_inputs = 0;
    for (const std::string& in : node.input()) data_inputs += in.empty() || in[0] != '^';
    for (int i = 0; i < n_bound && i < data_inputs; ++i) {
      const std::string handle = NodeNameOf(node.input(data_inputs - n_bound + i));
      auto h = nodes.find(handle);
      const int id = fn->second.bound_inputs(i);
      if (h == nodes.end() || h->second->op() != "VarHandleOp" || restored_by_saver.count(handle) > 0) continue;
      if (id < 0 || id >= objects.nodes_size() || !objects.nodes(id).has_variable()) continue;
      captured.emplace(handle, id);
    }
  }
  if (captured.empty()) return Status::OK();

  TA_ASSIGN_OR_RETURN(auto reader, BundleReader::Open(variables_prefix));
  Tensor serialized;
  Status st = reader->Lookup(kObjectGraphCheckpointKey, &serialized);
  if (!st.ok()) return st.WithContext("the SavedModel's functions capture variables its Saver does not restore");
  view::TrackableObjectGraph trackables;
  if (serialized.dtype() != tensorflow::DT_STRING || serialized.NumElements() != 1 ||
      !trackables.ParseFromString(serialized.base<std::string>()[0])) {
    return errors::DataLoss("checkpoint ", variables_prefix, ": its ", kObjectGraphCheckpointKey, " does not parse");
  }
  std::vector<std::string> handles, keys;
  DataTypeVector dtypes;
  for (const auto& [handle, id] : captured) {
    if (id >= trackables.nodes_size()) {
      return errors::DataLoss("checkpoint ", variables_prefix, ": its object graph has no node ", id, " (variable '",
                              objects.nodes(id).variable().name(), "')");
    }
    std::string key;
    for (const auto& attr : trackables.nodes(id).attributes()) {
      if (attr.name() == kVariableValueAttribute) key = attr.checkpoint_key();
    }
    if (key.empty()) continue;  // a variable saved without a value (TensorFlow restores nothing either)
    if (!reader->Contains(key)) {
      return errors::NotFound("checkpoint ", variables_prefix, " lacks '", key, "', the value of variable '",
                              objects.nodes(id).variable().name(), "'");
    }
    DataType dtype;
    TA_RETURN_IF_ERROR(GetNodeAttr(*nodes[handle], "dtype", &dtype));
    handles.push_back(handle);
    keys.push_back(key);
    dtypes.push_back(dtype);
  }
  if (handles.empty()) return Status::OK();

  // A restore subgraph of their own: RestoreV2 of the keys, one AssignVariableOp each.
  Scope root = Scope::NewRootScope().NewSubScope(kRestoreScope);
  OutputList values = ops::RestoreV2(root.WithOpName("RestoreV2"), Input(variables_prefix), ops::StringVector(keys),
                                     ops::StringVector(std::vector<std::string>(keys.size(), "")), dtypes);
  tensorflow::GraphDef more;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&more));
  tensorflow::NodeDef* done = more.add_node();
  done->set_name(StrCat(kRestoreScope, "/restore_all"));
  done->set_op("NoOp");
  for (size_t i = 0; i < handles.size(); ++i) {
    tensorflow::NodeDef* assign = more.add_node();
    assign->set_name(StrCat(kRestoreScope, "/Assign_", i));
    assign->set_op("AssignVariableOp");
    assign->add_input(handles[i]);
    assign->add_input(StrCat(values[i].node->name(), ":", values[i].index));
    (*assign->mutable_attr())["dtype"].set_type(dtypes[i]);
    done->add_input("^" + assign->name());
  }
  TA_RETURN_IF_ERROR(session.Extend(more));
  return session.Run({}, {}, {done->name()}, nullptr);
}

}  // namespace tensoract
