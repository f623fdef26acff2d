// The geometry the 3-D convolution and pooling kernels share (NDHWC on the CPU, as
// TensorFlow's): a window sliding over planes, rows and columns with strides and SAME or
// VALID padding, its attrs checked with TensorFlow's messages.
#ifndef TENSORACT_KERNELS_CPU_WINDOW3D_H_
#define TENSORACT_KERNELS_CPU_WINDOW3D_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/op_kernel.h"

namespace tensoract {
namespace window3d {

// One spatial dimension: its input and output sizes, the window, the stride and the
// padding before the first input.
struct Dim {
  int64_t in = 0, out = 0, window = 0, stride = 1, pad = 0;
  // The inputs output `o`'s window covers, clipped to the input: [*first, *first + *count).
  void Covered(int64_t o, int64_t* first, int64_t* count) const {
    int64_t start = o * stride - pad, size = window;
    if (start < 0) {
      size += start;
      start = 0;
    }
    if (start + size > in) size = in - start;
    *first = start;
    *count = size < 0 ? 0 : size;
  }
  // The inputs TensorFlow's 3-D pooling gradients give output `o`'s gradient to (its
  // GetBroadcastSize): as Covered, except where the window is clipped at both ends, the
  // end's clip alone decides the count (a window of 5 rows with 2 of padding over 4 rows
  // covers rows 0-2 but sends its gradient to rows 0-3, averaged over 4). Matched, not mended:
  // models trained with TensorFlow's gradients.
  void GradientCovered(int64_t o, int64_t* first, int64_t* count) const {
    int64_t start = o * stride, size = window;
    if (start < pad) {
      size = window + start - pad;
      start = 0;
    } else {
      start -= pad;
    }
    if (start + window > in) size = std::min(in - start, window);
    *first = start;
    *count = size < 0 ? 0 : size;
  }
};

// The output size and padding of a window of `window` (dilated extent) over `in` inputs
// (TensorFlow's GetWindowedOutputSize: SAME pads to ceil(in / stride) outputs, half the
// padding before, the odd one after).
inline Status Size(int64_t in, int64_t window, int64_t stride, const std::string& padding, Dim* d) {
  d->in = in;
  d->window = window;
  d->stride = stride;
  if (padding == "VALID") {
    d->out = (in - window + stride) / stride;
    d->pad = 0;
  } else {
    d->out = (in + stride - 1) / stride;
    d->pad = std::max<int64_t>((d->out - 1) * stride + window - in, 0) / 2;
  }
  if (d->out < 0) {
    return errors::InvalidArgument("Computed output size would be negative: ", d->out, " [input_size: ", in,
                                   ", effective_filter_size: ", window, ", stride: ", stride, "]");
  }
  return Status::OK();
}

// The spatial attrs of a 3-D op: `name` (strides, ksize) holds 5 values, 1 for the batch
// and the channels (the message and error code TensorFlow gives otherwise), and NDHWC.
inline Status ReadSpatial(OpKernelConstruction* ctx, const std::string& name, bool pool, std::array<int64_t, 3>* v) {
  std::vector<int64_t> all;
  TA_RETURN_IF_ERROR(ctx->GetAttr(name, &all));
  if (all.size() != 5) {
    return errors::InvalidArgument(pool ? StrCat("Sliding window ", name == "strides" ? "stride" : name,
                                                 " field must specify 5 dimensions")
                                        : StrCat(name, " must specify 5 dimensions, got ", all.size()));
  }
  if (all[0] != 1 || all[4] != 1) {
    if (pool) {
      return errors::Unimplemented(all[0] != 1 ? "Pooling is not yet supported on the batch dimension."
                                               : "Pooling is not yet supported on the depth dimension.");
    }
    return errors::InvalidArgument("Current implementation does not yet support ", name,
                                   " in the batch and depth dimensions.");
  }
  for (int i = 0; i < 3; ++i) {
    if (all[i + 1] <= 0) {
      return errors::InvalidArgument(pool ? StrCat(name, " must be positive, got: ", all[i + 1])
                                          : StrCat("Spatial ", name, " should be larger than 0."));
    }
    (*v)[i] = all[i + 1];
  }
  return Status::OK();
}

inline Status RequireNdhwc(OpKernelConstruction* ctx) {
  std::string format = "NDHWC";
  if (ctx->GetAttr("data_format", &format).ok() && format != "NDHWC") {
    return errors::InvalidArgument(ctx->def().op(), " on the CPU only supports NDHWC (data_format ", format, ")");
  }
  return Status::OK();
}

// Input, output and window of a 3-D op over an NDHWC input of `shape`.
struct Geometry {
  int64_t batch = 0, channels = 0;
  std::array<Dim, 3> dims;  // planes, rows, cols
  int64_t in_positions() const { return dims[0].in * dims[1].in * dims[2].in; }
  int64_t out_positions() const { return dims[0].out * dims[1].out * dims[2].out; }
};

// The gradient of an input whose images' windows overlap: each image on its own (in
// parallel), summed into an accumulator of type Acc over the image's `image_elems` values by
// add(b, acc), and each sum rounded once into dx. `cost`: per image, for the thread split.
template <class Acc, class T, class F>
void AccumulatePerImage(OpKernelContext* ctx, int64_t batch, int64_t image_elems, int64_t cost, T* dx, F add) {
  CwiseParallelFor(ctx, batch, cost, [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(image_elems);
    for (int64_t b = begin; b < end; ++b) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      add(b, acc.data());
      for (int64_t i = 0; i < image_elems; ++i) dx[b * image_elems + i] = static_cast<T>(acc[i]);
    }
  });
}

inline Status MakeGeometry(const TensorShape& shape, const std::array<int64_t, 3>& window,
                           const std::array<int64_t, 3>& stride, const std::string& padding, Geometry* g) {
  if (shape.dims() != 5) return errors::InvalidArgument("input must be 5-dimensional, got ", shape.DebugString());
  g->batch = shape.dim_size(0);
  g->channels = shape.dim_size(4);
  for (int i = 0; i < 3; ++i) TA_RETURN_IF_ERROR(Size(shape.dim_size(i + 1), window[i], stride[i], padding, &g->dims[i]));
  return Status::OK();
}

}  // namespace window3d
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_WINDOW3D_H_
