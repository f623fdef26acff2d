#include "kernels/constant_evaluator.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "graph/eval_const_tensor.h"
#include "kernels/denormal.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class CpuEvaluator : public ConstantEvaluator {
 public:
  // A device of its own, so folding neither counts against a session's device memory nor
  // queues behind its kernels. Its threads serve kernels that split their work with Eigen.
  CpuEvaluator()
      : device_(std::make_unique<Device>("/job:localhost/replica:0/task:0/device:CPU:0/constant_folding",
                                         DEVICE_CPU, std::max(1u, std::thread::hardware_concurrency()))) {}

  Status Evaluate(const NodeDef& node, const tensorflow::OpDef& op_def,
                  const std::vector<const tensorflow::TensorProto*>& inputs,
                  std::vector<tensorflow::TensorProto>* outputs) const override {
    std::unique_ptr<OpKernel> kernel;
    TA_RETURN_IF_ERROR(CreateOpKernel(device_.get(), node, op_def, &kernel));
    const std::string where = StrCat("constant folding node '", node.name(), "' (op '", node.op(), "')");
    if (inputs.size() != kernel->input_types().size()) {
      return errors::InvalidArgument(where, ": got ", inputs.size(), " input(s) but the op takes ",
                                     kernel->input_types().size());
    }
    std::vector<Tensor> values;
    values.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      StatusOr<Tensor> t = Tensor::FromProto(*inputs[i], device_->allocator());
      if (!t.ok()) return t.status().WithContext(StrCat(where, ": input ", i));
      if (t->dtype() != BaseType(kernel->input_types()[i])) {
        return errors::InvalidArgument(where, ": input ", i, " is ", DataTypeString(t->dtype()), " but the op wants ",
                                       DataTypeString(kernel->input_types()[i]));
      }
      values.push_back(std::move(t).value());
    }
    OpKernelContext::Params params;
    params.device = device_.get();
    params.kernel = kernel.get();
    params.inputs = &values;
    OpKernelContext ctx(params);
    {
      // As the executor runs kernels: a folded constant must be the value the same node
      // computes when its input is fed (issue 32 found them differing on denormals).
      ScopedFlushDenormal flush;
      kernel->Compute(&ctx);
    }
    if (!ctx.status().ok()) return ctx.status().WithContext(where);
    outputs->clear();
    outputs->resize(kernel->num_outputs());
    for (int i = 0; i < kernel->num_outputs(); ++i) {
      const Tensor& out = ctx.outputs()[i];
      if (!out.IsInitialized() || out.dtype() != BaseType(kernel->output_types()[i])) {
        return errors::Internal(where, ": the kernel did not produce output ", i, " as ",
                                DataTypeString(kernel->output_types()[i]));
      }
      out.AsProtoTensorContent(&(*outputs)[i]);
    }
    return Status::OK();
  }

 private:
  std::unique_ptr<Device> device_;  // Device is thread-safe; unique_ptr keeps Evaluate const
};

// Shape inference's evaluator (graph/eval_const_tensor.h): the CPU evaluator, made on
// first use, so that loading the library starts no threads.
class LazyCpuEvaluator : public ConstantEvaluator {
 public:
  Status Evaluate(const NodeDef& node, const tensorflow::OpDef& op_def,
                  const std::vector<const tensorflow::TensorProto*>& inputs,
                  std::vector<tensorflow::TensorProto>* outputs) const override {
    return CpuConstantEvaluator()->Evaluate(node, op_def, inputs, outputs);
  }
};

// Every process with the kernels evaluates small constant subgraphs while it infers
// shapes, as TensorFlow's shape refiner does; never destroyed, as the evaluator.
[[maybe_unused]] const bool kShapeInferenceEvaluatorInstalled =
    (shape_inference::SetConstantEvaluator(new LazyCpuEvaluator), true);

}  // namespace

const ConstantEvaluator* CpuConstantEvaluator() {
  // Never destroyed: its device's threads must not be joined during static destruction.
  static const ConstantEvaluator* const kEvaluator = new CpuEvaluator;
  return kEvaluator;
}

}  // namespace tensoract
