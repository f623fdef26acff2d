// ScalarSummary on the CPU: a serialized Summary (messages/summary.proto) with one
// simple_value per tag, as TensorFlow's kernel writes it.
#include "kernels/dtype_dispatch.h"
#include "kernels/kernel_registry.h"
#include "messages/summary.pb.h"

namespace tensoract {
namespace {

class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tags = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(ctx, tags.shape() == values.shape(),
                errors::InvalidArgument("tags and values are not the same shape: ", tags.shape().DebugString(),
                                        " != ", values.shape().DebugString(), " (tag '",
                                        tags.NumElements() > 0 ? tags.base<std::string>()[0] : "", "')"));
    tensorflow::Summary summary;
    for (int64_t i = 0; i < tags.NumElements(); ++i) {
      tensorflow::Summary::Value* v = summary.add_value();
      v->set_tag(tags.base<std::string>()[i]);
      v->set_simple_value(static_cast<float>(ElementAsDouble(values, i)));
    }
    Tensor out(tensorflow::DT_STRING, TensorShape());
    summary.SerializeToString(out.base<std::string>());
    ctx->set_output(0, out);
  }
  bool IsExpensive() const override { return false; }

 private:
  static double ElementAsDouble(const Tensor& t, int64_t i) {
    switch (t.dtype()) {
      case tensorflow::DT_FLOAT: return t.base<float>()[i];
      case tensorflow::DT_DOUBLE: return t.base<double>()[i];
      case tensorflow::DT_INT32: return t.base<int32_t>()[i];
      case tensorflow::DT_INT64: return static_cast<double>(t.base<int64_t>()[i]);
      case tensorflow::DT_UINT8: return t.base<uint8_t>()[i];
      case tensorflow::DT_INT16: return t.base<int16_t>()[i];
      case tensorflow::DT_INT8: return t.base<int8_t>()[i];
      case tensorflow::DT_UINT16: return t.base<uint16_t>()[i];
      case tensorflow::DT_UINT32: return t.base<uint32_t>()[i];
      case tensorflow::DT_UINT64: return static_cast<double>(t.base<uint64_t>()[i]);
      default: return 0;
    }
  }
};

REGISTER_KERNEL(Name("ScalarSummary").Device(DEVICE_CPU), ScalarSummaryOp);

}  // namespace
}  // namespace tensoract
