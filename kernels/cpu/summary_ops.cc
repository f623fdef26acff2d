// Summary kernels on the CPU: each outputs a serialized Summary (messages/summary.proto)
// as TensorFlow's kernels write it: ScalarSummary (a simple_value per tag),
// HistogramSummary (kernels/histogram.h), ImageSummary (PNG images, floats scaled per
// image as TensorFlow does), TensorSummaryV2 (the tensor itself), MergeSummary.
#include <set>

#include "kernels/kernel_registry.h"
#include "kernels/summary_encode.h"
#include "messages/summary.pb.h"

namespace tensoract {
namespace {

void OutputSummary(OpKernelContext* ctx, const tensorflow::Summary& summary) {
  Tensor out(tensorflow::DT_STRING, TensorShape());
  summary.SerializeToString(out.base<std::string>());
  ctx->set_output(0, out);
}

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
    OutputSummary(ctx, summary);
  }
  bool IsExpensive() const override { return false; }
};

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto tag = ScalarTag(ctx->input(0), "tags");
    OP_REQUIRES_OK(ctx, tag.status());
    tensorflow::Summary summary;
    OP_REQUIRES_OK(ctx, AddHistogram(*tag, ctx->input(1), name(), &summary));
    OutputSummary(ctx, summary);
  }
};

class ImageSummaryOp : public OpKernel {
 public:
  explicit ImageSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t max_images = 3;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_images", &max_images));
    max_images_ = max_images;
    const tensorflow::TensorProto* bad_color = nullptr;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_color", &bad_color));
    auto color = Tensor::FromProto(*bad_color);
    OP_REQUIRES_OK(ctx, color.status());
    OP_REQUIRES(ctx, color->dtype() == tensorflow::DT_UINT8 && color->dims() == 1,
                errors::InvalidArgument("bad_color must be a uint8 vector, not ", color->shape().DebugString()));
    bad_color_.assign(color->base<uint8_t>(), color->base<uint8_t>() + color->NumElements());
  }

  void Compute(OpKernelContext* ctx) override {
    auto tag = ScalarTag(ctx->input(0), "Tags");
    OP_REQUIRES_OK(ctx, tag.status());
    tensorflow::Summary summary;
    OP_REQUIRES_OK(ctx, AddImages(*tag, ctx->input(1), max_images_, bad_color_, &summary));
    OutputSummary(ctx, summary);
  }

 private:
  int64_t max_images_ = 3;
  std::vector<uint8_t> bad_color_;
};

class TensorSummaryV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto tag = ScalarTag(ctx->input(0), "tag");
    OP_REQUIRES_OK(ctx, tag.status());
    const Tensor& tensor = ctx->input(1);
    const Tensor& metadata = ctx->input(2);
    OP_REQUIRES(ctx, metadata.NumElements() == 1,
                errors::InvalidArgument("serialized_summary_metadata must be one string, not ",
                                        metadata.shape().DebugString()));
    tensorflow::Summary summary;
    AddTensor(*tag, tensor, &summary);
    OP_REQUIRES(ctx, summary.mutable_value(0)->mutable_metadata()->ParseFromString(metadata.base<std::string>()[0]),
                errors::InvalidArgument("serialized_summary_metadata is not a SummaryMetadata"));
    OutputSummary(ctx, summary);
  }
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    tensorflow::Summary merged;
    std::set<std::string> tags;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& in = ctx->input(i);
      for (int64_t j = 0; j < in.NumElements(); ++j) {
        tensorflow::Summary part;
        OP_REQUIRES(ctx, part.ParseFromString(in.base<std::string>()[j]),
                    errors::InvalidArgument("Could not parse one of the summary inputs"));
        for (tensorflow::Summary::Value& v : *part.mutable_value()) {
          // TensorFlow 2's summaries may leave the tag empty; only named ones must be unique.
          OP_REQUIRES(ctx, v.tag().empty() || tags.insert(v.tag()).second,
                      errors::InvalidArgument("Duplicate tag ", v.tag(), " found in summary inputs "));
          *merged.add_value() = std::move(v);
        }
      }
    }
    OutputSummary(ctx, merged);
  }
};

REGISTER_KERNEL(Name("ScalarSummary").Device(DEVICE_CPU), ScalarSummaryOp);
REGISTER_KERNEL(Name("HistogramSummary").Device(DEVICE_CPU), HistogramSummaryOp);
REGISTER_KERNEL(Name("ImageSummary").Device(DEVICE_CPU), ImageSummaryOp);
REGISTER_KERNEL(Name("TensorSummaryV2").Device(DEVICE_CPU), TensorSummaryV2Op);
REGISTER_KERNEL(Name("MergeSummary").Device(DEVICE_CPU), MergeSummaryOp);

}  // namespace
}  // namespace tensoract
