// Summary kernels on the CPU: each outputs a serialized Summary (messages/summary.proto)
// as TensorFlow's kernels write it: ScalarSummary (a simple_value per tag),
// HistogramSummary (kernels/histogram.h), ImageSummary (PNG images, floats scaled per
// image as TensorFlow does), TensorSummaryV2 (the tensor itself), MergeSummary.
#include <cmath>
#include <set>

#include "kernels/dtype_dispatch.h"
#include "kernels/histogram.h"
#include "kernels/io/png.h"
#include "kernels/kernel_registry.h"
#include "messages/summary.pb.h"

// GCC fuses a * b + c into one multiply-add by default, across statements too; clang
// only within one expression.
#if defined(__GNUC__) && !defined(__clang__)
#define TA_NO_FP_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define TA_NO_FP_CONTRACT
#endif

namespace tensoract {
namespace {

template <class T>
double ToDouble(const T& v) {
  constexpr bool kReal = std::is_arithmetic_v<T> || std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;
  if constexpr (kReal) {
    return static_cast<double>(v);
  } else {
    return 0;  // the ops' type attrs admit real numbers only
  }
}

// Element i of a real-number tensor, as a double.
double ElementAsDouble(const Tensor& t, int64_t i) {
  double v = 0;
  TA_SWITCH_FIXED_SIZE_TYPES(t.dtype(), break, v = ToDouble<T>(t.base<T>()[i]));
  return v;
}

void OutputSummary(OpKernelContext* ctx, const tensorflow::Summary& summary) {
  Tensor out(tensorflow::DT_STRING, TensorShape());
  summary.SerializeToString(out.base<std::string>());
  ctx->set_output(0, out);
}

// A scalar string input (a tag).
bool ScalarTag(OpKernelContext* ctx, const char* what, std::string* tag) {
  const Tensor& t = ctx->input(0);
  if (t.dims() != 0) {
    ctx->SetStatus(errors::InvalidArgument(what, " must be scalar, not ", t.shape().DebugString()));
    return false;
  }
  *tag = t.base<std::string>()[0];
  return true;
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

  template <class T>
  Status AddAll(const Tensor& values, Histogram* histogram) const {
    const T* p = values.base<T>();
    for (int64_t i = 0, n = values.NumElements(); i < n; ++i) {
      const double v = ToDouble<T>(p[i]);
      if (std::isnan(v)) return errors::InvalidArgument("Nan in summary histogram for: ", name());
      if (std::isinf(v)) return errors::InvalidArgument("Infinity in Histogram for: ", name());
      histogram->Add(v);
    }
    return Status::OK();
  }
  void Compute(OpKernelContext* ctx) override {
    std::string tag;
    if (!ScalarTag(ctx, "tags", &tag)) return;
    const Tensor& values = ctx->input(1);
    Histogram histogram;
    Status added;
    TA_SWITCH_FIXED_SIZE_TYPES(values.dtype(), break, added = AddAll<T>(values, &histogram));
    OP_REQUIRES_OK(ctx, added);
    tensorflow::Summary summary;
    tensorflow::Summary::Value* value = summary.add_value();
    value->set_tag(tag);
    histogram.EncodeToProto(value->mutable_histo());
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
    std::string tag;
    if (!ScalarTag(ctx, "Tags", &tag)) return;
    const Tensor& images = ctx->input(1);
    OP_REQUIRES(ctx, images.dims() == 4 && (images.dim_size(3) == 1 || images.dim_size(3) == 3 || images.dim_size(3) == 4),
                errors::InvalidArgument("Tensor must be 4-D with last dim 1, 3, or 4, not ",
                                        images.shape().DebugString()));
    const int64_t batch = images.dim_size(0), height = images.dim_size(1), width = images.dim_size(2);
    const int channels = static_cast<int>(images.dim_size(3));
    constexpr int64_t kMaxSide = (int64_t{1} << 31) - 1;
    OP_REQUIRES(ctx, height < kMaxSide && width < kMaxSide && height * width < kMaxSide,
                errors::InvalidArgument("Image size exceeds limits: ", images.shape().DebugString()));
    OP_REQUIRES(ctx, static_cast<int64_t>(bad_color_.size()) >= channels,
                errors::InvalidArgument("bad_color must have at least ", channels, " elements, not ",
                                        bad_color_.size()));
    tensorflow::Summary summary;
    const int64_t n = std::min(batch, max_images_);
    const int64_t pixels = height * width;
    std::vector<uint8_t> image(static_cast<size_t>(pixels * channels));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t first = i * pixels * channels;
      if (images.dtype() == tensorflow::DT_UINT8) {
        std::copy_n(images.base<uint8_t>() + first, image.size(), image.begin());
      } else {
        Normalize(images, first, pixels, channels, image.data());
      }
      if (pixels == 0) continue;  // no PNG of an empty image
      auto png = EncodePng(image.data(), static_cast<int>(height), static_cast<int>(width), channels);
      OP_REQUIRES_OK(ctx, png.status());
      tensorflow::Summary::Value* v = summary.add_value();
      v->set_tag(max_images_ > 1 ? StrCat(tag, "/image/", i) : StrCat(tag, "/image"));
      tensorflow::Summary::Image* out = v->mutable_image();
      out->set_height(static_cast<int>(height));
      out->set_width(static_cast<int>(width));
      out->set_colorspace(channels);
      out->set_encoded_image_string(std::move(png).value());
    }
    OutputSummary(ctx, summary);
  }

 private:
  // One floating-point image to bytes, as TensorFlow scales it: with no negative value
  // the largest becomes 255; otherwise the largest magnitude becomes 127 away from 128.
  // A pixel with a NaN or an infinity in any channel is bad_color, and takes no part in
  // the range. The range and the scale are floats, the transform is in the image's own
  // type, truncated to bytes: TensorFlow's arithmetic, so the pixels are its pixels.
  void Normalize(const Tensor& images, int64_t first, int64_t pixels, int channels, uint8_t* out) const {
    switch (images.dtype()) {
      case tensorflow::DT_FLOAT: return NormalizeAs(images.base<float>() + first, pixels, channels, out);
      case tensorflow::DT_DOUBLE: return NormalizeAs(images.base<double>() + first, pixels, channels, out);
      case tensorflow::DT_HALF: return NormalizeAs(images.base<Eigen::half>() + first, pixels, channels, out);
      default: return;  // the op's type attr admits no other
    }
  }

  // x * scale + offset as TensorFlow's Eigen expression computes it: the product rounded
  // to T, then the sum (-max * (127 / max) + 128 is then exactly 1 where one fused
  // multiply-add gives 0.99999 and a byte of 0). GCC would fuse the two by default.
  template <class T>
  TA_NO_FP_CONTRACT static T MulAdd(T x, T scale, T offset) {
    const T product = x * scale;
    return product + offset;
  }

  // Truncated, as Eigen's cast (half through float, which holds every half exactly).
  template <class T>
  static uint8_t ToByte(T v) {
    if constexpr (std::is_same_v<T, Eigen::half>) {
      return static_cast<uint8_t>(static_cast<float>(v));
    } else {
      return static_cast<uint8_t>(v);
    }
  }

  template <class T>
  void NormalizeAs(const T* in, int64_t pixels, int channels, uint8_t* out) const {
    auto finite_pixel = [&](int64_t p) {
      for (int c = 0; c < channels; ++c) {
        if (!std::isfinite(static_cast<float>(in[p * channels + c]))) return false;
      }
      return true;
    };
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t p = 0; p < pixels; ++p) {
      if (!finite_pixel(p)) continue;
      for (int c = 0; c < channels; ++c) {
        const float v = static_cast<float>(in[p * channels + c]);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    constexpr float kZeroThreshold = 1e-6f;
    T scale, offset;
    if (lo < 0) {
      const float largest = std::max(std::abs(lo), std::abs(hi));
      scale = T(largest < kZeroThreshold ? 0.0f : 127.0f / largest);
      offset = T(128.0f);
    } else {
      scale = T(hi < kZeroThreshold ? 0.0f : 255.0f / hi);
      offset = T(0.0f);
    }
    for (int64_t p = 0; p < pixels; ++p) {
      const bool finite = finite_pixel(p);
      for (int c = 0; c < channels; ++c) {
        out[p * channels + c] =
            finite ? ToByte<T>(MulAdd(in[p * channels + c], scale, offset)) : bad_color_[c];
      }
    }
  }

  int64_t max_images_ = 3;
  std::vector<uint8_t> bad_color_;
};

class TensorSummaryV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string tag;
    if (!ScalarTag(ctx, "tag", &tag)) return;
    const Tensor& tensor = ctx->input(1);
    const Tensor& metadata = ctx->input(2);
    OP_REQUIRES(ctx, metadata.NumElements() == 1,
                errors::InvalidArgument("serialized_summary_metadata must be one string, not ",
                                        metadata.shape().DebugString()));
    tensorflow::Summary summary;
    tensorflow::Summary::Value* v = summary.add_value();
    v->set_tag(tag);
    OP_REQUIRES(ctx, v->mutable_metadata()->ParseFromString(metadata.base<std::string>()[0]),
                errors::InvalidArgument("serialized_summary_metadata is not a SummaryMetadata"));
    if (tensor.dtype() == tensorflow::DT_STRING) {
      tensor.AsProtoField(v->mutable_tensor());
    } else {
      tensor.AsProtoTensorContent(v->mutable_tensor());
    }
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
