/// @file
/// SavedModel: a graph with its variables, signatures and assets in one directory, in
/// TensorFlow's format, loaded and written here.
///
/// @code
///   export_dir/saved_model.pb         a SavedModel proto: one MetaGraphDef per tag set
///   export_dir/variables/variables.*  a V2 checkpoint of every variable
///   export_dir/assets/                files the graph reads (vocabularies, ...)
/// @endcode
///
/// Loading (TensorFlow's LoadSavedModel): picks the MetaGraphDef whose tags are exactly the
/// ones asked for, creates a session from its graph, restores the variables by running the
/// graph's own Saver (its SaverDef's restore op, fed the checkpoint's prefix) and runs the
/// init op (TensorFlow 2's `__saved_model_init_op` signature, or TensorFlow 1's main op or
/// legacy init op collection), feeding asset paths. Both TensorFlow 1 SavedModels and
/// TensorFlow 2 ones (tf.saved_model.save of a tf.Module or a Keras model: the signatures
/// are StatefulPartitionedCalls into the graph's function library) load this way.
///
/// @code
///   TA_ASSIGN_OR_RETURN(auto bundle, LoadSavedModel("/models/mnist/1", {"serve"}));
///   std::vector<std::pair<std::string, Tensor>> out;
///   TA_RETURN_IF_ERROR(bundle->Run("serving_default", {{"images", batch}}, &out));
/// @endcode
///
/// Writing (TensorFlow 1's SavedModelBuilder): SavedModelWriter takes a session, the
/// MetaGraphDef describing its graph (graph, SaverDef, signatures) and tags, saves the
/// variables through the SaverDef and writes saved_model.pb. TensorFlow 2.21 loads the
/// result with tf.saved_model.load and with tf.compat.v1.saved_model.load.
///
/// Thread-safety: a loaded bundle's Run may be called from many threads at once (each call
/// is its own step). Nothing else is thread-safe.
#ifndef TENSORACT_CLIENT_SAVED_MODEL_H_
#define TENSORACT_CLIENT_SAVED_MODEL_H_

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "client/session.h"
#include "kernels/tensor.h"
#include "messages/meta_graph.pb.h"
#include "messages/saved_model.pb.h"

namespace tensoract {

// TensorFlow's names (tensorflow/cc/saved_model/tag_constants.h, signature_constants.h).
/// The tag of the MetaGraphDef to serve with (TensorFlow's tag_constants.h), the tag set
/// LoadSavedModel loads by default.
inline constexpr char kSavedModelTagServe[] = "serve";
/// The tag of the MetaGraphDef to train with (TensorFlow's tag_constants.h).
inline constexpr char kSavedModelTagTrain[] = "train";
/// The key of the signature a model server runs when a request names none (TensorFlow's
/// signature_constants.h).
inline constexpr char kDefaultServingSignatureDefKey[] = "serving_default";
/// SignatureDef.method_name of a predict signature: any named inputs and outputs.
inline constexpr char kPredictMethodName[] = "tensorflow/serving/predict";
/// SignatureDef.method_name of a classify signature: input kClassifyInputs, outputs
/// kClassifyOutputClasses and/or kClassifyOutputScores.
inline constexpr char kClassifyMethodName[] = "tensorflow/serving/classify";
/// SignatureDef.method_name of a regress signature: input kRegressInputs, output
/// kRegressOutputs.
inline constexpr char kRegressMethodName[] = "tensorflow/serving/regress";
// The keys of classify and regress signatures.
/// The input key of a classify signature.
inline constexpr char kClassifyInputs[] = "inputs";             ///< serialized tf.Examples
/// The output key of a classify signature for the labels of the top classes.
inline constexpr char kClassifyOutputClasses[] = "classes";     ///< string [batch, n]
/// The output key of a classify signature for the classes' scores.
inline constexpr char kClassifyOutputScores[] = "scores";       ///< float [batch, n]
/// The input key of a regress signature: a string tensor of serialized tf.Examples.
inline constexpr char kRegressInputs[] = "inputs";
/// The output key of a regress signature: one predicted value per example.
inline constexpr char kRegressOutputs[] = "outputs";            ///< float [batch] or [batch, 1]

/// True when `dir` holds a saved_model.pb or saved_model.pbtxt.
bool MaybeSavedModelDirectory(const std::string& dir);

/// A loaded SavedModel: its MetaGraphDef and a session holding its restored variables.
class SavedModelBundle {
 public:
  /// The MetaGraphDef that was loaded: graph, SaverDef, signatures, collections, assets.
  const tensorflow::MetaGraphDef& meta_graph_def() const { return meta_graph_def_; }
  /// The session running the loaded graph, its variables restored and init op run: for
  /// running nodes no signature names.
  Session& session() { return *session_; }
  /// The directory the bundle was loaded from.
  const std::string& export_dir() const { return export_dir_; }

  /// The signature `key`; NotFound listing the keys there are (the init op's signature,
  /// `__saved_model_init_op`, is not one a caller may run).
  StatusOr<const tensorflow::SignatureDef*> Signature(const std::string& key) const;
  /// The signatures a caller may run, sorted by key.
  std::vector<std::string> SignatureKeys() const;

  /// Runs signature `key`: `inputs` by the signature's input keys (each one the signature
  /// has and no default covers must be given; dtypes must match, shapes must fit the
  /// signature's), and returns its outputs by key, sorted, or only `output_keys` in that
  /// order when some are named. A wrong key, dtype or shape is InvalidArgument naming it.
  Status Run(const std::string& key, const std::vector<std::pair<std::string, Tensor>>& inputs,
             std::vector<std::pair<std::string, Tensor>>* outputs, const std::vector<std::string>& output_keys = {},
             const RunOptions& options = {});

 private:
  friend StatusOr<std::unique_ptr<SavedModelBundle>> LoadSavedModel(const std::string&, const std::set<std::string>&,
                                                                    const SessionOptions&);
  SavedModelBundle() = default;
  std::string export_dir_;
  tensorflow::MetaGraphDef meta_graph_def_;
  std::unique_ptr<Session> session_;
};

/// Loads the MetaGraphDef of `export_dir` tagged exactly `tags`, restores its variables and
/// runs its init op. A missing or unparsable saved_model.pb, an unknown tag set, missing
/// variables or a graph that does not run here is a Status naming the problem.
StatusOr<std::unique_ptr<SavedModelBundle>> LoadSavedModel(const std::string& export_dir,
                                                           const std::set<std::string>& tags = {kSavedModelTagServe},
                                                           const SessionOptions& options = {});

/// Reads `export_dir`'s saved_model.pb (or .pbtxt) without loading anything: NotFound when
/// neither is there, DataLoss when the file does not parse.
StatusOr<tensorflow::SavedModel> ReadSavedModel(const std::string& export_dir);

/// Writes a SavedModel directory. One writer writes one directory, which must not exist
/// yet or be empty (TensorFlow's rule: an export never overwrites).
class SavedModelWriter {
 public:
  /// A writer for `export_dir`; nothing is touched on disk until AddMetaGraphAndVariables.
  explicit SavedModelWriter(std::string export_dir) : export_dir_(std::move(export_dir)) {}

  /// Adds `meta_graph` under `tags` and saves `session`'s variables through its SaverDef
  /// into variables/ (the first MetaGraphDef only; each SavedModel has one checkpoint).
  /// `assets` are files copied into assets/ (the graph's asset_file_def names them).
  /// AlreadyExists when the directory is not empty, FailedPrecondition on a second call.
  Status AddMetaGraphAndVariables(Session& session, tensorflow::MetaGraphDef meta_graph,
                                  const std::vector<std::string>& tags, const std::vector<std::string>& assets = {});
  /// Adds another view of the same graph and variables under other tags. FailedPrecondition
  /// before AddMetaGraphAndVariables, AlreadyExists for a tag set already added.
  Status AddMetaGraph(tensorflow::MetaGraphDef meta_graph, const std::vector<std::string>& tags);
  /// Writes saved_model.pb, last and atomically (a rename), so whoever watches for it (a
  /// model server) never loads a half-written model. FailedPrecondition when no meta graph
  /// was added.
  Status Save();

 private:
  std::string export_dir_;
  tensorflow::SavedModel saved_model_;
  bool variables_saved_ = false;
};

/// A signature's tensor: its name in the graph, dtype and shape (-1: unknown dimension;
/// `unknown_rank` true: unknown rank, `dims` ignored).
tensorflow::TensorInfo MakeTensorInfo(const std::string& tensor_name, DataType dtype,
                                      const std::vector<int64_t>& dims, bool unknown_rank = false);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_SAVED_MODEL_H_
