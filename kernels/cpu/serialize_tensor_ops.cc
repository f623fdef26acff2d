// SerializeTensor and ParseTensor on the CPU: a whole tensor to and from the bytes of its
// TensorProto, as tf.io.serialize_tensor and tf.io.parse_tensor (elements in
// tensor_content, strings in string_val, variants in variant_val: the bytes TensorFlow
// writes, kernels/tensor_proto.cc). Parsing checks what Tensor::FromProto checks (shape,
// dtype, value counts, sizes) and that the dtype is the one asked for.
#include "base/base64.h"
#include "kernels/kernel_registry.h"
#include "messages/tensor.pb.h"

namespace tensoract {
namespace {

class SerializeTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    tensorflow::TensorProto proto;
    ctx->input(0).AsProtoTensorContent(&proto);
    Tensor out(tensorflow::DT_STRING, TensorShape());
    OP_REQUIRES(ctx, proto.SerializeToString(out.base<std::string>()),
                errors::InvalidArgument("node '", name(), "': the tensor's TensorProto could not be serialized (",
                                        ctx->input(0).shape().DebugString(), ", ",
                                        DataTypeString(ctx->input(0).dtype()), ")"));
    ctx->set_output(0, std::move(out));
  }
};

class ParseTensorOp : public OpKernel {
 public:
  explicit ParseTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.dims() == 0,
                errors::InvalidArgument("Expected `serialized` to be a scalar, got shape: ",
                                        serialized.shape().DebugString()));
    const std::string& bytes = *serialized.base<std::string>();
    tensorflow::TensorProto proto;
    OP_REQUIRES(ctx, proto.ParseFromString(bytes),
                errors::InvalidArgument("Could not parse `serialized` as TensorProto, base64: ", Quoted(bytes)));
    OP_REQUIRES(ctx, proto.dtype() == out_type_,
                errors::InvalidArgument("Type mismatch between parsed tensor (", DataTypeString(proto.dtype()),
                                        ") and dtype (", DataTypeString(out_type_), ")"));
    auto parsed = Tensor::FromProto(proto);
    OP_REQUIRES(ctx, parsed.ok(),
                errors::InvalidArgument("Could not parse `serialized` as TensorProto: ", parsed.status().message()));
    ctx->set_output(0, std::move(parsed).value());
  }

 private:
  // Bytes that did not parse, in base64 as TensorFlow quotes them; only their start when
  // they are long (they may be megabytes).
  static std::string Quoted(const std::string& bytes) {
    constexpr size_t kShown = 3 * 1024;
    if (bytes.size() <= kShown) return Base64Encode(bytes);
    return Base64Encode(std::string_view(bytes).substr(0, kShown)) + "... (" + std::to_string(bytes.size()) + " bytes)";
  }

  DataType out_type_ = tensorflow::DT_INVALID;
};

REGISTER_KERNEL(Name("SerializeTensor").Device(DEVICE_CPU), SerializeTensorOp);
REGISTER_KERNEL(Name("ParseTensor").Device(DEVICE_CPU), ParseTensorOp);

}  // namespace
}  // namespace tensoract
