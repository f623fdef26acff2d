/// @file
/// MetaGraphDef: a graph with what is needed to use it again (its Saver's SaverDef and named
/// collections), as TensorFlow's export_meta_graph writes and import_meta_graph reads it.
/// A Saver writes one beside each checkpoint (`model.ckpt-N.meta`); a SavedModel holds one
/// per tag set (client/saved_model.h).
///
/// @code
///   // a new process, continuing the training of another:
///   auto session = Session::New().value();
///   TA_ASSIGN_OR_RETURN(auto meta, ReadMetaGraph("train/model.ckpt-1000.meta"));
///   TA_ASSIGN_OR_RETURN(Saver saver, ImportMetaGraph(*session, meta));
///   TA_RETURN_IF_ERROR(saver.Restore(*session, "train/model.ckpt-1000"));
///   const std::string train_op = CollectionNodes(meta, "train_op").at(0);
/// @endcode
///
/// Files written by TensorFlow read here, and the ones written here read in TensorFlow
/// (tf.compat.v1.train.import_meta_graph).
#ifndef TENSORACT_CLIENT_META_GRAPH_H_
#define TENSORACT_CLIENT_META_GRAPH_H_

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "client/saver.h"
#include "client/session.h"
#include "messages/graph.pb.h"
#include "messages/meta_graph.pb.h"
#include "messages/variable.pb.h"

namespace tensoract {

/// The version written into meta_info_def.tensorflow_version: the TensorFlow whose formats
/// these files follow.
inline constexpr char kMetaGraphTensorFlowVersion[] = "2.21.0";

/// A MetaGraphDef of `graph`, with `saver` (may be null) and the collections.
tensorflow::MetaGraphDef MakeMetaGraph(const tensorflow::GraphDef& graph, const tensorflow::SaverDef* saver,
                                       const MetaGraphCollections& collections = {});

/// Writes `meta_graph` to `path` (replacing it whole): binary (a .meta file) or text
/// (ending in .pbtxt or .txt).
Status WriteMetaGraph(const std::string& path, const tensorflow::MetaGraphDef& meta_graph);
/// Reads the MetaGraphDef at `path`: text when it ends in .pbtxt or .txt, binary otherwise;
/// the error of a missing or unparsable file names the path.
StatusOr<tensorflow::MetaGraphDef> ReadMetaGraph(const std::string& path);

/// Creates `session` from the MetaGraphDef's graph and returns a Saver for its SaverDef
/// (FailedPrecondition when it has none).
StatusOr<Saver> ImportMetaGraph(Session& session, const tensorflow::MetaGraphDef& meta_graph,
                                SaverOptions options = {});

/// The node names of a node-list collection; empty when there is no such collection.
std::vector<std::string> CollectionNodes(const tensorflow::MetaGraphDef& meta_graph, const std::string& key);
/// The VariableDefs of a "variables" or "trainable_variables" collection (written here or by
/// TensorFlow); DataLoss when one does not parse.
StatusOr<std::vector<tensorflow::VariableDef>> CollectionVariables(const tensorflow::MetaGraphDef& meta_graph,
                                                                   const std::string& key);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_META_GRAPH_H_
