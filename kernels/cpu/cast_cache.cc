// A Cast's output kept while its input is unchanged (see cast_cache.h).
#include "kernels/cpu/cast_cache.h"

#include "kernels/variable.h"

namespace tensoract {

bool UnchangedInputCache::Reuse(OpKernelContext* ctx, const Tensor& input) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!kept_ || !input_.SharesBufferWith(input) || input_.data() != input.data() || input_.shape() != input.shape() ||
      input_.dtype() != input.dtype() || epoch_ != RefVariableWriteEpoch()) {
    return false;
  }
  ctx->set_output(0, output_);
  return true;
}

void UnchangedInputCache::Keep(const Tensor& input, const Tensor& output) {
  std::lock_guard<std::mutex> lock(mu_);
  input_ = input;
  output_ = output;
  epoch_ = RefVariableWriteEpoch();
  kept_ = true;
}

}  // namespace tensoract
