#include "kernels/variable.h"

#include <atomic>

namespace tensoract {

StatusOr<Tensor> Var::Read() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!is_initialized) return errors::FailedPrecondition("Attempting to use uninitialized value ", name_);
  return tensor_;
}

std::string Var::DebugString() const {
  std::lock_guard<std::mutex> lock(mu_);
  return StrCat("Var ", name_, " ", DataTypeString(dtype_), is_initialized ? tensor_.shape().DebugString() : std::string(" uninitialized"));
}

namespace {
std::atomic<uint64_t> ref_variable_writes{0};
std::atomic<uint64_t> variable_changes{0};
}  // namespace

uint64_t VariableChangeEpoch() { return variable_changes.load(std::memory_order_acquire); }
void NoteVariableChange() { variable_changes.fetch_add(1, std::memory_order_acq_rel); }

uint64_t RefVariableWriteEpoch() { return ref_variable_writes.load(std::memory_order_acquire); }
void NoteRefVariableWrite() { ref_variable_writes.fetch_add(1, std::memory_order_acq_rel); }

}  // namespace tensoract
