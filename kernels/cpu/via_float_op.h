// A half or bfloat16 kernel that runs the float kernel of the same node: the T inputs
// widened to float (exactly), the float kernel's outputs rounded once to T, both on the
// device's threads (bfloat16 as bits: MobileNetV2's 35 Conv2Ds under Keras' mixed_bfloat16
// policy took 101 ms at batch 1 widening and rounding one element at a time). For ops whose
// TensorFlow CPU kernels take half and bfloat16 and compute them in float, or as a
// fallback for a faster T kernel (kernels/cpu/conv_bfloat16_op.cc).
#ifndef TENSORACT_KERNELS_CPU_VIA_FLOAT_OP_H_
#define TENSORACT_KERNELS_CPU_VIA_FLOAT_OP_H_

#include <memory>
#include <vector>

#include <Eigen/Core>
#include <type_traits>

#include "graph/op_registry.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/kernel_registry.h"

namespace tensoract {

template <class T>
class ViaFloatOp : public OpKernel {
 public:
  explicit ViaFloatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    NodeDef def = ctx->def();
    (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    // A list of types (_MklNativeFusedConv2D's TArgs) names T's inputs too: widened alike.
    for (auto& [name, value] : *def.mutable_attr()) {
      for (int i = 0; i < value.list().type_size(); ++i) {
        if (value.list().type(i) == DataTypeToEnum<T>::value) value.mutable_list()->set_type(i, tensorflow::DT_FLOAT);
      }
    }
    auto op_def = OpRegistry::Global()->LookUp(def.op());
    OP_REQUIRES_OK(ctx, op_def.status());
    // The float kernel checks the attrs (data format, strides, padding) as it would alone.
    OP_REQUIRES_OK(ctx, CreateOpKernel(ctx->device(), def, **op_def, &float_kernel_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> inputs;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dtype() != DataTypeToEnum<T>::value) {  // input_sizes, filter_sizes
        inputs.push_back(t);
        continue;
      }
      auto wide = Tensor::Allocate(ctx->device()->allocator(), tensorflow::DT_FLOAT, t.shape());
      OP_REQUIRES_OK(ctx, wide.status());
      ConvertOnDevice(ctx, t.base<T>(), wide->base<float>(), t.NumElements());
      inputs.push_back(std::move(wide).value());
    }
    OpKernelContext::Params params;
    params.device = ctx->device();
    params.kernel = float_kernel_.get();
    params.inputs = &inputs;
    OpKernelContext float_ctx(params);
    float_kernel_->Compute(&float_ctx);
    OP_REQUIRES_OK(ctx, float_ctx.status());
    const std::vector<Tensor>& outs = float_ctx.outputs();
    for (size_t k = 0; k < outs.size(); ++k) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(static_cast<int>(k), outs[k].shape(), &out));
      ConvertOnDevice(ctx, outs[k].base<float>(), out->base<T>(), out->NumElements());
    }
  }

 private:
  std::unique_ptr<OpKernel> float_kernel_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_VIA_FLOAT_OP_H_
