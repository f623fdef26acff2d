// Var: a variable's state, shared by the ref variables of TensorFlow 1.x (Variable,
// VariableV2, whose outputs are references to it) and resource variables (VarHandleOp,
// whose output is a handle naming it).
//
// The tensor is guarded by mu(). Readers copy the Tensor (sharing its buffer) under the
// lock; writers either replace it or, for in-place updates, first make sure nobody else
// shares the buffer (copy-on-write), so a value a reader already took never changes under
// it. Ref variables follow TensorFlow 1.x instead: Assign and AssignAdd write in place
// into the shared buffer, and a reader that holds it sees the change (TF's documented ref
// semantics, which `w/read` Identity nodes exist to contain).
#ifndef TENSORACT_KERNELS_VARIABLE_H_
#define TENSORACT_KERNELS_VARIABLE_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "kernels/resource_mgr.h"
#include "kernels/tensor.h"

namespace tensoract {

// Moves whenever any variable's Var::version() does (after it): a check of many variables'
// versions (actors/frozen_variables.h, before every step of a served model) first compares
// this one count with the one it last saw.
uint64_t VariableChangeEpoch();
void NoteVariableChange();

class Var : public ResourceBase {
 public:
  // `name` is what errors call it: the variable node's name or its shared name.
  Var(DataType dtype, std::string name) : dtype_(dtype), name_(std::move(name)) {}

  DataType dtype() const { return dtype_; }
  const std::string& name() const { return name_; }
  std::mutex* mu() { return &mu_; }
  // Both under mu(). Every writer reaches the value through tensor(), so each call counts
  // as a change of value (version()).
  Tensor* tensor() {
    version_.fetch_add(1, std::memory_order_acq_rel);
    NoteVariableChange();
    return &tensor_;
  }
  bool is_initialized = false;

  // Changes whenever the value may have changed: each tensor() call (writers), and when the
  // resource manager drops the variable (a new one of the same name is another value). A
  // graph that took the value as a constant (actors/frozen_variables.h) compares it.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  void Dropped() override {
    version_.fetch_add(1, std::memory_order_acq_rel);
    NoteVariableChange();
  }

  // The current value, or FailedPrecondition "Attempting to use uninitialized value <name>"
  // (TensorFlow's words). Takes the lock.
  StatusOr<Tensor> Read();
  std::string DebugString() const override;

 private:
  const DataType dtype_;
  const std::string name_;
  mutable std::mutex mu_;
  Tensor tensor_;
  std::atomic<uint64_t> version_{0};
};

// Counts the kernels that took a ref variable (TensorFlow 1's Assign, AssignAdd, ApplyAdam
// on a Variable...): they may write in place into a buffer others share, which no other
// writer does. A cache of values derived from a tensor's buffer (oneDNN's reordered
// filters) compares the count to tell whether the buffer may have changed.
uint64_t RefVariableWriteEpoch();
void NoteRefVariableWrite();

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_VARIABLE_H_
