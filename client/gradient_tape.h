/// @file
/// GradientTape: records eager ops and differentiates them (tf.GradientTape).
///
/// @code
///   GradientTape tape(*ctx);
///   tape.Watch(x);                                  // variables: tape.Watch(v)
///   Output y = ops::Mul(s, x, x);
///   std::vector<Output> g = tape.Gradient(y, {x}).value();   // 2x, an eager value
/// @endcode
///
/// While a tape lives it records every op that reads a watched tensor or the output of an
/// op it recorded. Like TensorFlow's default (watch_accessed_variables), a variable that
/// an op reads while the tape records is watched without asking: Gradient(loss, vars)
/// just works after the forward pass. Gradient walks the recorded ops backwards from the target and runs,
/// eagerly, the same gradient functions graphs use (graph/gradients/gradient_registry.h):
/// gradients of a tensor's consumers are summed, an output no gradient reached gets zeros,
/// StopGradient and the other no-gradient ops stop it, an op without a gradient function on
/// the way is an error naming it, and a source no path reaches gets Output() (None).
///
/// Tapes nest: the ops one tape's Gradient runs are recorded by an enclosing tape that
/// watches what they read, so a gradient of a gradient is a second Gradient call (higher
/// order derivatives). A tape is used for one Gradient call unless it is persistent.
///
/// Thread-safety: as its context (one thread).
#ifndef TENSORACT_CLIENT_GRADIENT_TAPE_H_
#define TENSORACT_CLIENT_GRADIENT_TAPE_H_

#include <memory>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "client/eager_context.h"
#include "graph/training/variables.h"

namespace tensoract {

/// Records the eager ops that read watched tensors and computes gradients of their results
/// (tf.GradientTape); see gradient_tape.h.
class GradientTape : public OpRecorder {
 public:
  /// Starts recording on `ctx` (until destroyed or StopRecording). A `persistent` tape
  /// allows more than one Gradient call; `watch_accessed_variables` watches every variable
  /// an op reads while it records.
  explicit GradientTape(EagerContext& ctx, bool persistent = false, bool watch_accessed_variables = true);
  ~GradientTape() override;
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  /// Records the ops that read `x` (an eager value) from now on; a graph Output is ignored.
  void Watch(const Output& x);
  /// The variable's reads: gradients with respect to it are those of its handle.
  void Watch(const Variable& v);
  /// tape.stop_recording(): ops run meanwhile are not recorded.
  void StopRecording();
  /// Resumes recording after StopRecording (nothing if the tape records already).
  void StartRecording();

  /// d(target)/d(source) for each source, as eager values shaped like the sources (Output()
  /// where no path leads); `output_gradient` (target's shape) in place of ones. A second
  /// call on a tape that is not persistent is FailedPrecondition.
  StatusOr<std::vector<Output>> Gradient(const Output& target, const std::vector<Output>& sources,
                                         const Output& output_gradient = Output());
  /// d(target)/d(v) for each variable `v` of `sources`: the gradients with respect to their
  /// handles.
  StatusOr<std::vector<Output>> Gradient(const Output& target, const std::vector<Variable>& sources);

  // OpRecorder
  bool Wants(const std::vector<Output>& inputs) const override;
  void Record(const std::shared_ptr<EagerNode>& op) override;

 private:
  using TensorKey = std::pair<const EagerNode*, int>;
  bool Watched(const Output& x) const;

  EagerContext& ctx_;
  const bool persistent_;
  const bool watch_accessed_variables_;
  bool recording_ = false;
  bool used_ = false;
  std::set<TensorKey> watched_;
  std::vector<Output> watched_values_;  // kept alive, so their keys stay unique
  std::unordered_set<const EagerNode*> recorded_;
  std::vector<std::shared_ptr<EagerNode>> ops_;  // in the order they ran
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_GRADIENT_TAPE_H_
