// BiasAdd's and BiasAddGrad's view of their value, shared by the CPU and GPU kernels:
// [outer, C, inner], the channels last (NHWC: inner 1) or dimension 1 (NCHW: outer N), and
// the data_format attr read as TensorFlow reads it.
#ifndef TENSORACT_KERNELS_CPU_BIAS_LAYOUT_H_
#define TENSORACT_KERNELS_CPU_BIAS_LAYOUT_H_

#include <cstdint>
#include <string>

#include "kernels/kernel_registry.h"

namespace tensoract {

struct BiasLayout {
  int64_t outer = 1, channels = 1, inner = 1;
};

inline Status GetBiasLayout(const std::string& node, const TensorShape& shape, bool nchw, BiasLayout* layout) {
  if (shape.dims() < 2) {
    return errors::InvalidArgument("Input tensor must be at least 2D: ", shape.DebugString(), " (node '", node, "')");
  }
  // NCHW's channels are dimension 1, which for a matrix is its last, as NHWC's: TensorFlow's
  // kernel takes such a value (its shape function refuses one of known rank 2).
  const int c = nchw ? 1 : shape.dims() - 1;
  layout->channels = shape.dim_size(c);
  for (int i = 0; i < c; ++i) layout->outer *= shape.dim_size(i);
  for (int i = c + 1; i < shape.dims(); ++i) layout->inner *= shape.dim_size(i);
  return Status::OK();
}

inline Status ReadBiasDataFormat(OpKernelConstruction* ctx, bool* nchw) {
  std::string data_format;
  Status s = ctx->GetAttr("data_format", &data_format);
  if (!s.ok()) data_format = "NHWC";  // old graphs lack the attr
  if (data_format != "NHWC" && data_format != "NCHW") {
    return errors::InvalidArgument("Invalid data format: ", data_format);
  }
  *nchw = data_format == "NCHW";
  return Status::OK();
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_BIAS_LAYOUT_H_
