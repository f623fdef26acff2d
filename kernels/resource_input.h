// The resource an input handle names, for kernels that take one (queues, readers, stacks): the
// handle is checked to be a single DT_RESOURCE and to name a T; errors name the node.
#ifndef TENSORACT_KERNELS_RESOURCE_INPUT_H_
#define TENSORACT_KERNELS_RESOURCE_INPUT_H_

#include <memory>

#include "kernels/op_kernel.h"
#include "kernels/resource_mgr.h"

namespace tensoract {

// `what` names the kind in the error: "input 1 is not a queue handle".
template <class T>
StatusOr<std::shared_ptr<T>> LookupResourceInput(OpKernelContext* ctx, int i, const char* what) {
  const Tensor& handle = ctx->input(i);
  if (handle.dtype() != tensorflow::DT_RESOURCE || handle.NumElements() != 1) {
    return errors::InvalidArgument("node '", ctx->op_kernel().name(), "': input ", i, " is not a ", what, " handle");
  }
  auto found = ctx->resource_manager()->Lookup<T>(*handle.base<ResourceHandle>());
  if (!found.ok()) return found.status().WithContext(StrCat("node '", ctx->op_kernel().name(), "'"));
  return found;
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_RESOURCE_INPUT_H_
