#include "kernels/op_kernel.h"

#include <future>

#include "kernels/variable.h"

namespace tensoract {

std::string KernelWhere(const OpKernel& kernel) {
  return StrCat("node '", kernel.name(), "' (", kernel.type_string(), "): ");
}

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : name_(ctx->def().name()), type_(ctx->def().op()), input_types_(ctx->input_types()),
      output_types_(ctx->output_types()) {}

OpKernel::~OpKernel() = default;

OpKernelContext::OpKernelContext(const Params& params)
    : params_(params), outputs_(params.output_storage ? params.output_storage : &own_outputs_) {
  outputs_->clear();
  outputs_->resize(params.kernel->num_outputs());
}

Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  DataType type = BaseType(params_.kernel->output_types()[i]);
  auto t = Tensor::Allocate(params_.device->AllocatorFor(type), type, shape);
  if (!t.ok()) return t.status().WithContext(StrCat("output ", i, " of node '", params_.kernel->name(), "'"));
  (*outputs_)[i] = std::move(t).value();
  *out = &(*outputs_)[i];
  if (i < 64) outputs_set_ |= uint64_t{1} << i;
  return Status::OK();
}

Status OpKernelContext::forward_input_or_allocate_output(int input_index, int output_index, const TensorShape& shape,
                                                         Tensor** out) {
  return forward_input_or_allocate_output({input_index}, output_index, shape, out);
}

Status OpKernelContext::forward_input_or_allocate_output(std::initializer_list<int> candidates, int output_index,
                                                         const TensorShape& shape, Tensor** out) {
  const DataType type = BaseType(params_.kernel->output_types()[output_index]);
  for (int input_index : candidates) {
    if (!has_input(input_index) || input_ref(input_index) != nullptr) continue;
    const Tensor& in = input(input_index);
    if (in.dtype() != type || type == tensorflow::DT_STRING || in.NumElements() != shape.num_elements() ||
        !in.RefCountIsOne()) {
      continue;
    }
    auto t = in.Reshaped(shape);
    if (t.ok()) {
      set_output(output_index, std::move(t).value());
      *out = &(*outputs_)[output_index];
      return Status::OK();
    }
  }
  return allocate_output(output_index, shape, out);
}

void OpKernelContext::set_output(int i, const Tensor& t) {
  (*outputs_)[i] = t;
  if (i < 64) outputs_set_ |= uint64_t{1} << i;
}

const std::shared_ptr<Var>& OpKernelContext::input_ref(int i) const {
  static const std::shared_ptr<Var> kNone;
  if (params_.input_refs == nullptr) return kNone;
  const std::shared_ptr<Var>& var = (*params_.input_refs)[i];
  // The kernel may now write into the variable's buffer in place (ref semantics), where
  // others may hold it: caches keyed by buffers must know (RefVariableWriteEpoch).
  if (var != nullptr) NoteRefVariableWrite();
  return var;
}

void OpKernelContext::set_output_ref(int i, std::shared_ptr<Var> var) {
  if (output_refs_.empty()) output_refs_.resize(outputs_->size());
  output_refs_[i] = std::move(var);
  if (i < 64) outputs_set_ |= uint64_t{1} << i;
}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  std::promise<void> finished;
  ComputeAsync(ctx, [&finished] { finished.set_value(); });
  finished.get_future().wait();
}

}  // namespace tensoract
