#include "kernels/summary_encode.h"

#include <algorithm>
#include <cmath>

#include "kernels/dtype_dispatch.h"
#include "kernels/histogram.h"
#include "kernels/io/png.h"

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

template <class T>
Status AddAll(const Tensor& values, const std::string& node, Histogram* histogram) {
  const T* p = values.base<T>();
  for (int64_t i = 0, n = values.NumElements(); i < n; ++i) {
    const double v = ToDouble<T>(p[i]);
    if (std::isnan(v)) return errors::InvalidArgument("Nan in summary histogram for: ", node);
    if (std::isinf(v)) return errors::InvalidArgument("Infinity in Histogram for: ", node);
    histogram->Add(v);
  }
  return Status::OK();
}

// x * scale + offset as TensorFlow's Eigen expression computes it: the product rounded
// to T, then the sum (-max * (127 / max) + 128 is then exactly 1 where one fused
// multiply-add gives 0.99999 and a byte of 0). GCC would fuse the two by default.
template <class T>
TA_NO_FP_CONTRACT T MulAdd(T x, T scale, T offset) {
  const T product = x * scale;
  return product + offset;
}

// Truncated, as Eigen's cast (half through float, which holds every half exactly).
template <class T>
uint8_t ToByte(T v) {
  if constexpr (std::is_same_v<T, Eigen::half>) {
    return static_cast<uint8_t>(static_cast<float>(v));
  } else {
    return static_cast<uint8_t>(v);
  }
}

template <class T>
void NormalizeAs(const T* in, int64_t pixels, int channels, const std::vector<uint8_t>& bad_color, uint8_t* out) {
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
          finite ? ToByte<T>(MulAdd(in[p * channels + c], scale, offset)) : bad_color[c];
    }
  }
}


// One floating-point image to bytes, as TensorFlow scales it: with no negative value
// the largest becomes 255; otherwise the largest magnitude becomes 127 away from 128.
// A pixel with a NaN or an infinity in any channel is bad_color, and takes no part in
// the range. The range and the scale are floats, the transform is in the image's own
// type, truncated to bytes: TensorFlow's arithmetic, so the pixels are its pixels.
void Normalize(const Tensor& images, int64_t first, int64_t pixels, int channels, const std::vector<uint8_t>& bad_color,
               uint8_t* out) {
  switch (images.dtype()) {
    case tensorflow::DT_FLOAT: return NormalizeAs(images.base<float>() + first, pixels, channels, bad_color, out);
    case tensorflow::DT_DOUBLE: return NormalizeAs(images.base<double>() + first, pixels, channels, bad_color, out);
    case tensorflow::DT_HALF: return NormalizeAs(images.base<Eigen::half>() + first, pixels, channels, bad_color, out);
    default: return;  // the op's type attr admits no other
  }
}

}  // namespace

// Element i of a real-number tensor, as a double.
double ElementAsDouble(const Tensor& t, int64_t i) {
  double v = 0;
  TA_SWITCH_FIXED_SIZE_TYPES(t.dtype(), break, v = ToDouble<T>(t.base<T>()[i]));
  return v;
}

StatusOr<std::string> ScalarTag(const Tensor& t, const char* what) {
  if (t.dims() != 0 || t.dtype() != tensorflow::DT_STRING) {
    return errors::InvalidArgument(what, " must be scalar, not ", t.shape().DebugString());
  }
  return t.base<std::string>()[0];
}

Status AddHistogram(const std::string& tag, const Tensor& values, const std::string& node, tensorflow::Summary* out) {
  Histogram histogram;
  Status added;
  TA_SWITCH_FIXED_SIZE_TYPES(values.dtype(), break, added = AddAll<T>(values, node, &histogram));
  TA_RETURN_IF_ERROR(added);
  tensorflow::Summary::Value* value = out->add_value();
  value->set_tag(tag);
  histogram.EncodeToProto(value->mutable_histo());
  return Status::OK();
}

Status AddImages(const std::string& tag, const Tensor& images, int64_t max_images,
                 const std::vector<uint8_t>& bad_color, tensorflow::Summary* out) {
  if (!(images.dims() == 4 && (images.dim_size(3) == 1 || images.dim_size(3) == 3 || images.dim_size(3) == 4))) {
    return errors::InvalidArgument("Tensor must be 4-D with last dim 1, 3, or 4, not ", images.shape().DebugString());
  }
  const int64_t batch = images.dim_size(0), height = images.dim_size(1), width = images.dim_size(2);
  const int channels = static_cast<int>(images.dim_size(3));
  constexpr int64_t kMaxSide = (int64_t{1} << 31) - 1;
  if (!(height < kMaxSide && width < kMaxSide && height * width < kMaxSide)) {
    return errors::InvalidArgument("Image size exceeds limits: ", images.shape().DebugString());
  }
  if (static_cast<int64_t>(bad_color.size()) < channels) {
    return errors::InvalidArgument("bad_color must have at least ", channels, " elements, not ", bad_color.size());
  }
  const int64_t n = std::min(batch, max_images);
  const int64_t pixels = height * width;
  std::vector<uint8_t> image(static_cast<size_t>(pixels * channels));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t first = i * pixels * channels;
    if (images.dtype() == tensorflow::DT_UINT8) {
      std::copy_n(images.base<uint8_t>() + first, image.size(), image.begin());
    } else {
      Normalize(images, first, pixels, channels, bad_color, image.data());
    }
    if (pixels == 0) continue;  // no PNG of an empty image
    TA_ASSIGN_OR_RETURN(std::string png,
                        EncodePng(image.data(), static_cast<int>(height), static_cast<int>(width), channels));
    tensorflow::Summary::Value* v = out->add_value();
    v->set_tag(max_images > 1 ? StrCat(tag, "/image/", i) : StrCat(tag, "/image"));
    tensorflow::Summary::Image* encoded = v->mutable_image();
    encoded->set_height(static_cast<int>(height));
    encoded->set_width(static_cast<int>(width));
    encoded->set_colorspace(channels);
    encoded->set_encoded_image_string(std::move(png));
  }
  return Status::OK();
}

void AddTensor(const std::string& tag, const Tensor& tensor, tensorflow::Summary* out) {
  tensorflow::Summary::Value* v = out->add_value();
  v->set_tag(tag);
  if (tensor.dtype() == tensorflow::DT_STRING) {
    tensor.AsProtoField(v->mutable_tensor());
  } else {
    tensor.AsProtoTensorContent(v->mutable_tensor());
  }
}

}  // namespace tensoract
