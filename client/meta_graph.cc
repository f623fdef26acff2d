#include "client/meta_graph.h"

#include <set>

#include "base/durable_file.h"
#include "base/proto_io.h"

namespace tensoract {

namespace {

constexpr char kVariablesCollection[] = "variables";
constexpr char kTrainableVariablesCollection[] = "trainable_variables";

// TensorFlow's description of a graph variable, by the names NewVariable gives its nodes.
tensorflow::VariableDef ToVariableDef(const Variable& v, bool trainable) {
  tensorflow::VariableDef def;
  def.set_variable_name(v.handle.node->name() + ":0");
  if (v.initializer != nullptr) {
    def.set_initializer_name(v.initializer->name());
    if (v.initializer->def().input_size() > 1) def.set_initial_value_name(v.initializer->def().input(1));
  }
  if (v.value.node != nullptr) def.set_snapshot_name(v.value.node->name() + ":" + std::to_string(v.value.index));
  def.set_is_resource(true);
  def.set_trainable(trainable);
  return def;
}

void AddVariables(const std::vector<Variable>& vars, bool trainable, const std::string& key,
                  std::set<std::string>* seen, tensorflow::MetaGraphDef* meta) {
  auto* list = (*meta->mutable_collection_def())[key].mutable_bytes_list();
  for (const Variable& v : vars) {
    if (v.handle.node == nullptr || v.handle.is_eager() || !seen->insert(key + "/" + v.name()).second) continue;
    list->add_value(ToVariableDef(v, trainable).SerializeAsString());
  }
}

}  // namespace

tensorflow::MetaGraphDef MakeMetaGraph(const tensorflow::GraphDef& graph, const tensorflow::SaverDef* saver,
                                       const MetaGraphCollections& collections) {
  tensorflow::MetaGraphDef meta;
  meta.mutable_meta_info_def()->set_tensorflow_version(kMetaGraphTensorFlowVersion);
  *meta.mutable_graph_def() = graph;
  if (saver != nullptr) *meta.mutable_saver_def() = *saver;
  for (const auto& [key, nodes] : collections.nodes) {
    auto* list = (*meta.mutable_collection_def())[key].mutable_node_list();
    for (const std::string& n : nodes) list->add_value(n);
  }
  std::set<std::string> seen;
  if (!collections.trainable_variables.empty()) {
    AddVariables(collections.trainable_variables, true, kVariablesCollection, &seen, &meta);
    AddVariables(collections.trainable_variables, true, kTrainableVariablesCollection, &seen, &meta);
  }
  if (!collections.variables.empty()) AddVariables(collections.variables, false, kVariablesCollection, &seen, &meta);
  return meta;
}

Status WriteMetaGraph(const std::string& path, const tensorflow::MetaGraphDef& meta_graph) {
  std::string bytes;
  if (IsTextProtoPath(path)) {
    bytes = ToTextProto(meta_graph);
  } else if (!meta_graph.SerializeToString(&bytes)) {
    return errors::Internal("cannot serialize the MetaGraphDef for ", path);
  }
  return WriteFileDurably(path, bytes);
}

StatusOr<tensorflow::MetaGraphDef> ReadMetaGraph(const std::string& path) {
  tensorflow::MetaGraphDef meta;
  Status st = ReadProto(path, &meta);
  if (!st.ok()) return st.WithContext(StrCat("reading the MetaGraphDef ", path));
  return meta;
}

StatusOr<Saver> ImportMetaGraph(Session& session, const tensorflow::MetaGraphDef& meta_graph, SaverOptions options) {
  if (!meta_graph.has_saver_def()) return errors::FailedPrecondition("the MetaGraphDef has no SaverDef");
  TA_RETURN_IF_ERROR(session.Create(meta_graph.graph_def()));
  return Saver::FromSaverDef(meta_graph.saver_def(), std::move(options));
}

std::vector<std::string> CollectionNodes(const tensorflow::MetaGraphDef& meta_graph, const std::string& key) {
  auto it = meta_graph.collection_def().find(key);
  if (it == meta_graph.collection_def().end()) return {};
  return {it->second.node_list().value().begin(), it->second.node_list().value().end()};
}

}  // namespace tensoract

namespace tensoract {

StatusOr<std::vector<tensorflow::VariableDef>> CollectionVariables(const tensorflow::MetaGraphDef& meta_graph,
                                                                   const std::string& key) {
  std::vector<tensorflow::VariableDef> defs;
  auto it = meta_graph.collection_def().find(key);
  if (it == meta_graph.collection_def().end()) return defs;
  for (const std::string& bytes : it->second.bytes_list().value()) {
    if (!defs.emplace_back().ParseFromString(bytes)) {
      return errors::DataLoss("collection '", key, "' holds a value that is not a VariableDef");
    }
  }
  return defs;
}

}  // namespace tensoract
