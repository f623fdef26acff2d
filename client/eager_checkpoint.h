/// @file
/// Checkpoint: saves eager variables to V2 checkpoints and restores them.
///
/// @code
///   auto ckpt = Checkpoint::New(*ctx, {w, b}).value();
///   std::string path = ckpt.Save("train/model.ckpt", step).value();
///   ckpt.Restore(LatestCheckpoint("train").value());
/// @endcode
///
/// Each variable is stored under its name ("dense/kernel"), in the same format and with the
/// same names as a graph's Saver (client/saver.h) writes, which this uses: a small graph of
/// VarHandleOps naming the eager variables, SaveV2 and RestoreV2, run by a session on the
/// context's server. So a checkpoint written by eager training restores into a graph with
/// variables of those names, TensorFlow's included, and the other way round.
///
/// Thread-safety: as its context.
#ifndef TENSORACT_CLIENT_EAGER_CHECKPOINT_H_
#define TENSORACT_CLIENT_EAGER_CHECKPOINT_H_

#include <memory>
#include <string>
#include <vector>

#include "client/eager_context.h"
#include "client/saver.h"
#include "client/session.h"
#include "graph/training/variables.h"

namespace tensoract {

/// Saves eager variables to V2 checkpoints and restores them (tf.train.Checkpoint), in the
/// format and names a graph's Saver uses.
class Checkpoint {
 public:
  /// A checkpoint of `vars` (eager variables of `ctx`), kept and named as `options` say
  /// (no .meta is written). InvalidArgument for no variables, a variable that is not eager,
  /// or two with one name.
  static StatusOr<Checkpoint> New(EagerContext& ctx, const std::vector<Variable>& vars, SaverOptions options = {});

  /// Writes `prefix`-`global_step` (`prefix` when global_step < 0); returns its prefix.
  StatusOr<std::string> Save(const std::string& prefix, int64_t global_step = -1);
  /// Gives every variable its value in the checkpoint at `prefix`; NotFound when there is
  /// none there.
  Status Restore(const std::string& prefix);

 private:
  Checkpoint() = default;
  std::shared_ptr<Session> session_;
  std::shared_ptr<Saver> saver_;
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_EAGER_CHECKPOINT_H_
