#include "kernels/cpu/sub_kernels.h"

#include "graph/op_registry.h"
#include "kernels/kernel_registry.h"

namespace tensoract {

NodeDef SubNodeDef(const NodeDef& fused, const std::string& op, const std::string& prefix) {
  NodeDef def;
  def.set_name(fused.name() + "/" + prefix.substr(1, prefix.size() - 2));  // "_pointwise_": "n/pointwise"
  def.set_op(op);
  for (const auto& [name, value] : fused.attr()) {
    if (name.rfind(prefix, 0) == 0) (*def.mutable_attr())[name.substr(prefix.size())] = value;
  }
  return def;
}

Status MakeSubKernel(OpKernelConstruction* ctx, const NodeDef& def, std::unique_ptr<OpKernel>* kernel,
                     FusedEpilogue* epilogue) {
  TA_ASSIGN_OR_RETURN(const tensorflow::OpDef* op_def, OpRegistry::Global()->LookUp(def.op()));
  TA_RETURN_IF_ERROR(CreateOpKernel(ctx->device(), def, *op_def, kernel));
  OpKernelConstruction construction(ctx->device(), def, {}, {});
  return epilogue->Init(&construction);
}

Status RunSubKernel(OpKernelContext* ctx, OpKernel* kernel, const std::vector<Tensor>& inputs, Tensor* out) {
  OpKernelContext::Params params;
  params.device = ctx->device();
  params.kernel = kernel;
  params.inputs = &inputs;
  params.step_id = ctx->step_id();
  OpKernelContext sub(params);
  kernel->Compute(&sub);
  if (!sub.status().ok()) return sub.status();
  *out = sub.outputs()[0];
  return Status::OK();
}

}  // namespace tensoract
