// Frozen variables: a registered graph that only reads a variable takes its value as a
// constant, and constant folding then computes, once, what the graph derived from it.
//
// A Keras model's batch normalisation, exported for serving, reads four variables per layer
// and recomputes its scale and shift from them every step (ReadVariableOp, AddV2, Rsqrt,
// Mul, Sub: MobileNetV2 runs ~470 such nodes a step around 52 convolutions, EfficientNetB0
// ~800). OpenVINO folds them when it reads the model; TensorFlow runs them every step. Here
// the worker folds them once it has seen that the variables hold still (actors/worker.cc):
//
//   1. At registration, FreezableVariables lists the variables the graph reads and never
//      writes (no node but ReadVariableOp takes their handle), on CPU devices, initialized
//      and small (kMaxFrozenVariableBytes: scales, shifts, biases, depthwise filters; a
//      large filter gains nothing as a Const) or read only through a Cast to bfloat16 or
//      half (Keras' mixed precision: the cast folds into a Const of the narrow type, and the
//      float Const is dropped), with each one's version (Var::version()).
//   2. When the graph runs again and none of their versions moved, FreezeVariableReads
//      turns each part's reads of them into Consts and constant-folds the part; the worker
//      rebuilds the part's plan from it.
//   3. Before every step of a frozen graph the worker checks FrozenVariables::Current():
//      a write (any kernel's, another graph's, a restore), a deleted variable or a reset
//      container moves the version, and the graph goes back to reading its variables, for
//      good.
//
// What a step sees is what it would see unfrozen: a value a step reads is the variable's
// value when the step starts (a write that races with a step may or may not be seen by it,
// frozen or not; writes within the graph itself rule a variable out).
#ifndef TENSORACT_ACTORS_FROZEN_VARIABLES_H_
#define TENSORACT_ACTORS_FROZEN_VARIABLES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "base/status.h"
#include "kernels/device.h"
#include "kernels/variable.h"
#include "messages/graph.pb.h"

namespace tensoract {

// A variable larger than this stays read at run time.
constexpr int64_t kMaxFrozenVariableBytes = 256 << 10;

// Variables a graph may take as constants, each at the version it had when listed.
class FrozenVariables {
 public:
  // Device name, container, shared name: what a VarHandleOp names.
  using Key = std::tuple<std::string, std::string, std::string>;
  struct Entry {
    std::shared_ptr<Var> var;
    uint64_t version = 0;
  };

  bool empty() const { return vars_.empty(); }
  // Every variable still holds the value it had when listed: no write, no delete since.
  // Compares each variable's version only when some variable changed since the last call
  // that found them current (VariableChangeEpoch): a served model's 262 frozen variables
  // (MobileNetV2) were 1% of its batch-1 step. Not thread-safe (the worker's handler).
  bool Current() const;
  const Entry* Find(const Key& key) const;
  void Add(Key key, std::shared_ptr<Var> var, uint64_t version) {
    vars_[std::move(key)] = {std::move(var), version};
    seen_current_ = false;
  }
  void Merge(const FrozenVariables& other) {
    vars_.insert(other.vars_.begin(), other.vars_.end());
    seen_current_ = false;
  }

 private:
  std::map<Key, Entry> vars_;
  mutable bool seen_current_ = false;  // Current() found them all current when the epoch was current_at_
  mutable uint64_t current_at_ = 0;
};

// The variables `graph` (a worker's whole registered graph) only reads, on those of
// `devices` that are CPUs: every node taking a VarHandleOp's handle is a ReadVariableOp,
// and the variable exists, is initialized, holds a fixed-size type and at most
// kMaxFrozenVariableBytes.
FrozenVariables FreezableVariables(const tensorflow::GraphDef& graph, const std::vector<std::shared_ptr<Device>>& devices);

// Rewrites `part` (the nodes of `device`; a node naming no device runs there): each ReadVariableOp of a variable in
// `freezable` becomes a Const of its value, then the part is constant-folded and the
// handles no node uses any more are removed. Returns the variables it froze (those of
// `freezable` the part reads); FailedPrecondition when one of them changed since it was
// listed (nothing is frozen then).
StatusOr<FrozenVariables> FreezeVariableReads(const FrozenVariables& freezable, const std::string& device,
                                              tensorflow::GraphDef* part);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_FROZEN_VARIABLES_H_
