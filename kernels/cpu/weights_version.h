// What a cache derived from a weights tensor (a reordered or transformed filter, a cast) was
// made from, to tell whether it still stands: the tensor's buffer (a resource variable's
// writer copies its value before writing, so new weights are a new buffer), the ref
// variables' write epoch (their writers write in place: RefVariableWriteEpoch,
// kernels/variable.h), and the per-channel scale folded in (a batch norm's factor, equal
// every step in inference; none: empty).
//
// Read the epoch before deriving and record that one: a write during the derivation then
// makes the next call derive again. Not thread-safe: its owner's lock guards it.
#ifndef TENSORACT_KERNELS_CPU_WEIGHTS_VERSION_H_
#define TENSORACT_KERNELS_CPU_WEIGHTS_VERSION_H_

#include <cstdint>
#include <vector>

#include "kernels/tensor.h"

namespace tensoract {

class WeightsVersion {
 public:
  // Whether `source` times `scale` (`channels` values; nullptr: none) at `epoch` is what
  // was recorded.
  bool Matches(const Tensor& source, uint64_t epoch, const float* scale = nullptr, int64_t channels = 0) const;
  void Record(const Tensor& source, uint64_t epoch, const float* scale = nullptr, int64_t channels = 0);

 private:
  bool recorded_ = false;
  Tensor source_;
  uint64_t epoch_ = 0;
  std::vector<float> scale_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_WEIGHTS_VERSION_H_
