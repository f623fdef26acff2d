// The output of a Cast kept for the next step while its input is unchanged: where a graph
// that keeps its activations in bfloat16 casts a float weight (a variable's value, a
// constant) for a bfloat16 convolution (graph/optimizer/mixed_precision.h marks those Casts
// with kReuseUnchangedInputAttr). Casting ResNet50's 25M weights every step would cost more
// than its bfloat16 convolutions at batch 1, and a fresh buffer each step would make the
// convolutions reorder their filters again (OnednnWeightCache keys on the buffer).
//
// "Unchanged" as OnednnWeightCache tells it: the cache holds the input's buffer, so a
// resource variable's writer copies it before writing (its value then has another buffer),
// and a ref variable's in-place writers move RefVariableWriteEpoch. Thread-safe.
#ifndef TENSORACT_KERNELS_CPU_CAST_CACHE_H_
#define TENSORACT_KERNELS_CPU_CAST_CACHE_H_

#include <cstdint>
#include <mutex>

#include "kernels/op_kernel.h"
#include "kernels/cpu/weights_version.h"
#include "kernels/tensor.h"

namespace tensoract {

class UnchangedInputCache {
 public:
  // True (and output 0 of ctx set) where `input` is the input kept, unchanged. Otherwise
  // `*epoch` is the ref variables' write epoch read before the caller derives anew.
  bool Reuse(OpKernelContext* ctx, const Tensor& input, uint64_t* epoch);
  // Keeps `input` and the output computed from it, at the `epoch` Reuse read before it was
  // computed (an in-place write meanwhile makes the next step compute again).
  void Keep(const Tensor& input, const Tensor& output, uint64_t epoch);

 private:
  std::mutex mu_;
  WeightsVersion input_;  // under mu_
  Tensor output_;         // under mu_
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_CAST_CACHE_H_
