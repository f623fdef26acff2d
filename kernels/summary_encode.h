// What a summary holds, computed as TensorFlow's summary kernels compute it: scalars,
// histograms (kernels/histogram.h), PNG images (floats scaled per image with TensorFlow's
// arithmetic) and tensors. The TensorFlow 1 summary ops (kernels/cpu/summary_ops.cc) and
// TensorFlow 2's writer ops (kernels/cpu/summary_writer_ops.cc) both build with these.
#ifndef TENSORACT_KERNELS_SUMMARY_ENCODE_H_
#define TENSORACT_KERNELS_SUMMARY_ENCODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/tensor.h"
#include "messages/summary.pb.h"

namespace tensoract {

// The string of a scalar string tensor (a tag); InvalidArgument naming `what` otherwise.
StatusOr<std::string> ScalarTag(const Tensor& t, const char* what);

// Element i of a real-number tensor, as a double (0 for other types).
double ElementAsDouble(const Tensor& t, int64_t i);

// A value `tag` with the histogram of every element of `values`; `node` names the op in
// the errors for a NaN or an infinity (TensorFlow's words).
Status AddHistogram(const std::string& tag, const Tensor& values, const std::string& node, tensorflow::Summary* out);

// Up to `max_images` PNG images of [batch, height, width, channels] `images` (uint8 as they
// are; float, double or half scaled per image; a non-finite pixel in `bad_color`), tagged
// "tag/image/N", or "tag/image" when max_images is 1.
Status AddImages(const std::string& tag, const Tensor& images, int64_t max_images,
                 const std::vector<uint8_t>& bad_color, tensorflow::Summary* out);

// A value `tag` holding the tensor itself (tensor_content, or the strings).
void AddTensor(const std::string& tag, const Tensor& tensor, tensorflow::Summary* out);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_SUMMARY_ENCODE_H_
