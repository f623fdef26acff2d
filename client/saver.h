/// @file
/// Saver: saves variables to V2 checkpoints and restores them, as TensorFlow 1.x's
/// tf.train.Saver does.
///
/// @code
///   Scope root = Scope::NewRootScope();
///   auto w = ops::Variable(root.WithOpName("w"), {2, 2}, DT_FLOAT);
///   auto b = ops::VarHandleOp(root.WithOpName("b"), DT_FLOAT, {2});
///   Saver saver = Saver::New(root, {w, b}).value();   // adds save/... nodes to the graph
///   session->Create(graph_def_of(root));
///   ... train ...
///   saver.Save(*session, "train/model.ckpt", step);   // train/model.ckpt-<step>.index, ...
///   saver.Restore(*other_session, LatestCheckpoint("train").value());
/// @endcode
///
/// New adds, under the scope's "save" name scope, a scalar string placeholder for the
/// checkpoint prefix, one SaveV2 of every variable's value and one RestoreV2 whose outputs
/// are assigned back (Assign for reference variables, AssignVariableOp for resource
/// variables, whose dtype is the VarHandleOp's). A variable's name in the checkpoint is its
/// node's name, as TensorFlow's. The nodes are in the graph the scope builds; create the
/// session from it (or Extend a session with them) before calling Save or Restore.
///
/// The Saver's SaverDef (filename tensor, save tensor, restore op) goes into MetaGraphDefs:
/// Save writes `<checkpoint>.meta` beside each checkpoint (the session's graph, the
/// SaverDef and the options' collections), which ImportMetaGraph (client/meta_graph.h)
/// and TensorFlow's tf.compat.v1.train.import_meta_graph read back, ready to restore and go
/// on training. FromSaverDef makes a Saver for any graph that has one (TensorFlow's own
/// sharded Savers included).
///
/// Save writes the checkpoint, then the directory's `checkpoint` file (a text-format
/// CheckpointState listing the kept checkpoints, oldest first, relative to the directory
/// when they are in it), and deletes the oldest checkpoints beyond max_to_keep.
///
/// Thread-safety: Save and Restore must not race with each other on one Saver.
#ifndef TENSORACT_CLIENT_SAVER_H_
#define TENSORACT_CLIENT_SAVER_H_

#include <map>
#include <string>
#include <vector>

#include "client/session.h"
#include "base/status.h"
#include "graph/builder/scope.h"
#include "graph/training/variables.h"
#include "messages/saver.pb.h"

namespace tensoract {

/// What each .meta a Saver writes names besides the graph (TensorFlow's collections).
struct MetaGraphCollections {
  /// Node-list collections, e.g. {"train_op", {"train"}}.
  std::map<std::string, std::vector<std::string>> nodes;
  /// @name Variable collections
  /// Described by VariableDefs in "variables" (these and the trainable ones) and
  /// "trainable_variables", from which TensorFlow's import_meta_graph rebuilds its variable
  /// objects (tf.compat.v1.global_variables() after an import). Graph variables only
  /// (graph/training/variables.h): an eager variable has no initializer to name.
  ///@{

  /// Variables listed in "variables" only (not trainable).
  std::vector<Variable> variables;
  /// Variables listed in both "variables" and "trainable_variables".
  std::vector<Variable> trainable_variables;
  ///@}
};

/// How a Saver names its nodes, keeps its checkpoints and writes its .meta files.
struct SaverOptions {
  /// Checkpoints kept on disk; older ones are deleted. 0 or less keeps them all.
  int max_to_keep = 5;
  /// The name scope of the save/restore nodes ("save", made unique: "save_1", ...).
  std::string name = "save";
  /// The checkpoint state file written beside the checkpoints.
  std::string latest_filename = "checkpoint";
  /// Whether Save writes `<checkpoint>.meta` (TensorFlow's write_meta_graph).
  bool write_meta_graph = true;
  /// Collections written into each .meta.
  MetaGraphCollections collections;
};

/// Saves a graph's variables to V2 checkpoints and restores them (tf.compat.v1.train.Saver),
/// by running its save and restore nodes in a Session.
class Saver {
 public:
  /// Adds the save and restore nodes for `vars` to `scope`'s graph. `vars`: outputs of
  /// ops::Variable/VariableV2 (references) and of ops::VarHandleOp (handles). None, two with
  /// one name, or anything else, is InvalidArgument.
  static StatusOr<Saver> New(const Scope& scope, const std::vector<Output>& vars, SaverOptions options = {});
  /// A Saver running the nodes `def` names (a graph imported from a MetaGraphDef or a
  /// SavedModel); InvalidArgument when a name is missing or the format is not V2. A nonzero
  /// max_to_keep in `def` overrides the options'.
  static StatusOr<Saver> FromSaverDef(const tensorflow::SaverDef& def, SaverOptions options = {});
  /// TensorFlow's description of this Saver's nodes (version V2; sharded only when
  /// FromSaverDef read a sharded one).
  tensorflow::SaverDef saver_def() const;

  /// Writes the variables' values to `prefix`-`global_step` (`prefix` itself when
  /// global_step < 0) and returns that checkpoint's prefix.
  StatusOr<std::string> Save(Session& session, const std::string& prefix, int64_t global_step = -1);
  /// Assigns every variable its value in the checkpoint at `prefix`; NotFound when there
  /// is no checkpoint index file there.
  Status Restore(Session& session, const std::string& prefix);

  /// Adopts the checkpoints listed in `dir`'s state file (those still on disk) as if this
  /// Saver had written them, so max_to_keep counts them after a restart (TensorFlow's
  /// recover_last_checkpoints). No state file: nothing to adopt, OK.
  Status RecoverLastCheckpoints(const std::string& dir);
  /// The checkpoints this Saver has written and still keeps, oldest first.
  const std::vector<std::string>& last_checkpoints() const { return last_checkpoints_; }

  /// @name Node names
  /// The graph's names for the pieces, to run them without a Saver.
  ///@{
  const std::string& prefix_tensor_name() const { return prefix_tensor_; }  ///< Feed the prefix here (a string scalar)
  const std::string& save_op_name() const { return save_op_; }                ///< Run it to save
  const std::string& save_tensor_name() const { return save_tensor_; }        ///< Or fetch this to save
  /// Run it, with the prefix fed, to assign every variable its saved value.
  const std::string& restore_op_name() const { return restore_op_; }
  ///@}

 private:
  Saver() = default;
  Status UpdateCheckpointState(const std::string& path);

  SaverOptions options_;
  std::string prefix_tensor_, save_op_, save_tensor_, restore_op_;
  bool sharded_ = false;
  std::vector<std::string> last_checkpoints_;
  std::vector<double> last_timestamps_;
};

/// The newest checkpoint's prefix in `dir`, from its state file; NotFound when there is no
/// state file or the checkpoint it names is gone.
StatusOr<std::string> LatestCheckpoint(const std::string& dir, const std::string& latest_filename = "checkpoint");

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_SAVER_H_
