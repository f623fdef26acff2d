// Optionals (OptionalFromValue, OptionalNone, OptionalGetValue, OptionalHasValue): a
// variant that holds a tuple of tensors or nothing. An If's gradient receives the forward
// branch's intermediates this way: the taken branch outputs OptionalFromValue of each, the
// other OptionalNone, so that both branches have the same outputs.
#include <memory>
#include <vector>

#include "kernels/kernel_registry.h"
#include "kernels/variant.h"
#include "messages/tensor.pb.h"

namespace tensoract {
namespace {

struct OptionalValue : VariantValue {
  std::vector<Tensor> components;
  bool has_value = false;

  std::string TypeName() const override { return "tensorflow::data::Optional"; }
  std::string DebugString() const override {
    return has_value ? StrCat("Optional<", components.size(), " components>") : "Optional<None>";
  }
  // TensorFlow's encoding: one metadata byte, 1 with a value, whose components are the tensors.
  void Encode(tensorflow::VariantTensorDataProto* data) const override {
    data->set_type_name(TypeName());
    data->set_metadata(std::string(1, has_value ? '\1' : '\0'));
    for (const Tensor& t : components) t.AsProtoField(data->add_tensors());
  }
};

StatusOr<Variant> DecodeOptional(const tensorflow::VariantTensorDataProto& data) {
  OptionalValue value;
  if (data.metadata().size() != 1 || (data.metadata()[0] != 0 && data.metadata()[0] != 1)) {
    return errors::InvalidArgument("an encoded Optional is corrupt: its metadata is ", data.metadata().size(),
                                   " bytes, not the one byte 0 or 1");
  }
  value.has_value = data.metadata()[0] == 1;
  if (!value.has_value && data.tensors_size() > 0) {
    return errors::InvalidArgument("an encoded Optional without a value holds ", data.tensors_size(), " tensors");
  }
  for (const auto& proto : data.tensors()) {
    TA_ASSIGN_OR_RETURN(Tensor t, Tensor::FromProto(proto));
    value.components.push_back(std::move(t));
  }
  return Variant(std::make_shared<const OptionalValue>(std::move(value)));
}

const bool registered = RegisterVariantDecoder("tensorflow::data::Optional", DecodeOptional);

Tensor OptionalTensor(OptionalValue value) {
  Tensor t(tensorflow::DT_VARIANT, TensorShape());
  *t.base<Variant>() = Variant(std::make_shared<const OptionalValue>(std::move(value)));
  return t;
}

class FromValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OptionalValue value;
    value.has_value = true;
    for (int i = 0; i < ctx->num_inputs(); ++i) value.components.push_back(ctx->input(i));
    ctx->set_output(0, OptionalTensor(std::move(value)));
  }
  bool IsExpensive() const override { return false; }
};

class NoneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, OptionalTensor(OptionalValue())); }
  bool IsExpensive() const override { return false; }
};

// The optional at input 0; fails the kernel (and returns nullptr) when it is not one.
const OptionalValue* OptionalInput(OpKernelContext* ctx) {
  const Tensor& t = ctx->input(0);
  const OptionalValue* value = nullptr;
  if (t.dtype() == tensorflow::DT_VARIANT && t.dims() == 0) value = t.base<Variant>()->get<OptionalValue>();
  if (value == nullptr) {
    ctx->SetStatus(errors::InvalidArgument("node '", ctx->op_kernel().name(),
                                           "': Input tensor must be a scalar-shaped DT_VARIANT tensor holding an "
                                           "Optional, but it is a ", DataTypeString(t.dtype()), " tensor of shape ",
                                           t.shape().DebugString(),
                                           t.dtype() == tensorflow::DT_VARIANT && t.dims() == 0
                                               ? " holding " + t.base<Variant>()->TypeName()
                                               : ""));
  }
  return value;
}

class GetValueOp : public OpKernel {
 public:
  explicit GetValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_types", &output_types_));
  }
  void Compute(OpKernelContext* ctx) override {
    const OptionalValue* value = OptionalInput(ctx);
    if (value == nullptr) return;
    OP_REQUIRES(ctx, value->has_value,
                errors::InvalidArgument("node '", name(), "': The optional variant does not have a value."));
    OP_REQUIRES(ctx, value->components.size() == output_types_.size(),
                errors::InvalidArgument("node '", name(), "': The expected number of components (",
                                        output_types_.size(), ") does not match the number in the optional (",
                                        value->components.size(), ")."));
    for (size_t i = 0; i < output_types_.size(); ++i) {
      OP_REQUIRES(ctx, value->components[i].dtype() == output_types_[i],
                  errors::InvalidArgument("node '", name(), "': component ", i, " of the optional is ",
                                          DataTypeString(value->components[i].dtype()), ", not ",
                                          DataTypeString(output_types_[i])));
      ctx->set_output(static_cast<int>(i), value->components[i]);
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  DataTypeVector output_types_;
};

class HasValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const OptionalValue* value = OptionalInput(ctx);
    if (value == nullptr) return;
    ctx->set_output(0, Tensor::Scalar<bool>(value->has_value));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("OptionalFromValue").Device(DEVICE_CPU), FromValueOp);
REGISTER_KERNEL(Name("OptionalNone").Device(DEVICE_CPU), NoneOp);
REGISTER_KERNEL(Name("OptionalGetValue").Device(DEVICE_CPU), GetValueOp);
REGISTER_KERNEL(Name("OptionalHasValue").Device(DEVICE_CPU), HasValueOp);

}  // namespace
}  // namespace tensoract
