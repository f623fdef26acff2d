#include "client/meta_graph.h"

#include "base/durable_file.h"
#include "base/proto_io.h"

namespace tensoract {

tensorflow::MetaGraphDef MakeMetaGraph(const tensorflow::GraphDef& graph, const tensorflow::SaverDef* saver,
                                       const std::map<std::string, std::vector<std::string>>& collections) {
  tensorflow::MetaGraphDef meta;
  meta.mutable_meta_info_def()->set_tensorflow_version(kMetaGraphTensorFlowVersion);
  *meta.mutable_graph_def() = graph;
  if (saver != nullptr) *meta.mutable_saver_def() = *saver;
  for (const auto& [key, nodes] : collections) {
    auto* list = (*meta.mutable_collection_def())[key].mutable_node_list();
    for (const std::string& n : nodes) list->add_value(n);
  }
  return meta;
}

Status WriteMetaGraph(const std::string& path, const tensorflow::MetaGraphDef& meta_graph) {
  const bool text = path.size() >= 6 && (path.compare(path.size() - 6, 6, ".pbtxt") == 0 ||
                                         path.compare(path.size() - 4, 4, ".txt") == 0);
  std::string bytes;
  if (text) {
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
