// Kernels that run other nodes' kernels: the fused ops the remapper makes of several
// convolutions (graph/optimizer/pointwise_depthwise_fusion.h, steps_conv_fusion.h) keep each
// node's attrs under a prefix of its own ("_pointwise_strides"), run their fast path on
// oneDNN themselves, and fall back to the nodes' own kernels, made from those attrs, where
// it cannot run (oneDNN off, a shape it lacks).
#ifndef TENSORACT_KERNELS_CPU_SUB_KERNELS_H_
#define TENSORACT_KERNELS_CPU_SUB_KERNELS_H_

#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/fused_epilogue.h"
#include "kernels/op_kernel.h"

namespace tensoract {

// The NodeDef of one of a fused node's parts: op `op`, the fused node's attrs that carry
// `prefix` without it, named after the fused node and the prefix ("n/pointwise").
NodeDef SubNodeDef(const NodeDef& fused, const std::string& op, const std::string& prefix);

// The kernel of `def` on the fused kernel's device, and the part's epilogue (inactive for
// an op that fuses none).
Status MakeSubKernel(OpKernelConstruction* ctx, const NodeDef& def, std::unique_ptr<OpKernel>* kernel,
                     FusedEpilogue* epilogue);

// Runs `kernel` on `inputs` as a kernel of the fused node's step; its output 0 in *out.
Status RunSubKernel(OpKernelContext* ctx, OpKernel* kernel, const std::vector<Tensor>& inputs, Tensor* out);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_SUB_KERNELS_H_
