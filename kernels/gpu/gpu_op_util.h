// Helpers shared by the GPU OpKernels (host code): the stream, the launch check, and the
// broadcast index for two shapes.
#ifndef TENSORACT_KERNELS_GPU_GPU_OP_UTIL_H_
#define TENSORACT_KERNELS_GPU_GPU_OP_UTIL_H_

#include "kernels/cpu/broadcast.h"
#include "kernels/gpu/gpu_context.h"
#include "kernels/gpu/gpu_device.h"
#include "kernels/gpu/launchers.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace gpu {

inline cudaStream_t StreamOf(OpKernelContext* ctx) { return ContextOf(ctx)->compute_stream(); }

// Makes the GPU current on this thread and fails if it is broken; call before launching.
inline Status BeginLaunch(OpKernelContext* ctx) {
  GpuContext* gpu = ContextOf(ctx);
  gpu->Activate();
  return gpu->health();
}

// The launch's error, if any, naming the node.
inline Status EndLaunch(OpKernelContext* ctx) { return ContextOf(ctx)->CheckLaunch(ctx->op_kernel().name()); }

// The kernels' view of a BroadcastPlan; InvalidArgument past kMaxBroadcastDims.
inline StatusOr<BroadcastIndex> IndexOf(const BroadcastPlan& plan) {
  BroadcastIndex b;
  if (plan.dims.size() > static_cast<size_t>(kMaxBroadcastDims)) {
    return errors::InvalidArgument("broadcasting over ", plan.dims.size(), " dimensions; the GPU kernels take up to ",
                                   kMaxBroadcastDims);
  }
  b.ndims = static_cast<int>(plan.dims.size());
  for (int d = 0; d < b.ndims; ++d) {
    b.dims[d] = plan.dims[d];
    b.x_strides[d] = plan.x_strides[d];
    b.y_strides[d] = plan.y_strides[d];
  }
  return b;
}

template <class T>
const T* In(OpKernelContext* ctx, int i) { return static_cast<const T*>(ctx->input(i).data()); }
template <class T>
T* Out(Tensor* t) { return static_cast<T*>(t->data()); }

}  // namespace gpu
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_GPU_GPU_OP_UTIL_H_
