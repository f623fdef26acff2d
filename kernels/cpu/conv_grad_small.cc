// Gradients of convolutions on small images as one product each (see conv_grad_small.h).
#include "kernels/cpu/conv_grad_small.h"

#include <algorithm>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/parallel_gemm.h"

namespace tensoract {
namespace {

// A [pixels, k] float scratch matrix from the device's allocator (empty where it could not
// be had).
Tensor PatchMatrix(OpKernelContext* ctx, int64_t pixels, int64_t k) {
  Allocator* allocator = ctx->device() != nullptr ? ctx->device()->allocator() : cpu_allocator();
  auto made = Tensor::Allocate(allocator, tensorflow::DT_FLOAT, TensorShape({pixels, k}));
  return made.ok() ? std::move(made).value() : Tensor();
}

const auto kNothingAfter = [](float*, int64_t, int64_t, int64_t) {};

// A 1x1 filter of stride 1 and no padding: the input already is the patch matrix.
bool InputIsPatches(const conv::ConvDims& d) {
  return d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 && d.stride_cols == 1 && d.pad_top == 0 &&
         d.pad_left == 0 && d.in_rows == d.out_rows && d.in_cols == d.out_cols;
}

}  // namespace

bool SmallImageGrads(const conv::ConvDims& d) {
  return d.groups == 1 && d.in_depth >= 16 && d.out_depth >= 16 && d.out_rows * d.out_cols <= 16;
}

bool SmallImageFilterGrad(OpKernelContext* ctx, const conv::ConvDims& d, const float* input,
                          const float* out_backprop, float* filter_grad, float* bias_grad) {
  const int64_t k = d.patch_size(), n = d.out_depth, rows = d.batch * d.out_rows;
  const int64_t pixels = rows * d.out_cols;
  Tensor cols;
  const float* patches = input;
  if (!InputIsPatches(d)) {
    cols = PatchMatrix(ctx, pixels, k);
    if (cols.NumElements() != pixels * k) return false;
    float* written = cols.base<float>();
    CwiseParallelFor(ctx, rows, d.out_cols * k, [&](int64_t begin, int64_t end) {
      conv::Im2Col(d, input, begin, end, written + begin * d.out_cols * k);
    });
    patches = written;
  }
  ParallelGemm(ctx, /*transpose_a=*/true, /*transpose_b=*/false, k, n, pixels, patches, k, out_backprop, n,
               filter_grad, kNothingAfter);
  if (bias_grad != nullptr) conv::SetPixelSums(out_backprop, pixels, n, bias_grad);
  return true;
}

bool SmallImageInputGrad(OpKernelContext* ctx, const conv::ConvDims& d, const float* filter,
                         const float* out_backprop, float* in_backprop) {
  const int64_t k = d.patch_size(), n = d.out_depth;
  const int64_t out_pixels = d.out_rows * d.out_cols, pixels = d.batch * out_pixels;
  // The HWIO filter is [k, n]: its transpose multiplies out_backprop's rows.
  if (InputIsPatches(d)) {
    ParallelGemm(ctx, /*transpose_a=*/false, /*transpose_b=*/true, pixels, k, n, out_backprop, n, filter, n,
                 in_backprop, kNothingAfter);
    return true;
  }
  Tensor cols = PatchMatrix(ctx, pixels, k);
  if (cols.NumElements() != pixels * k) return false;
  float* patches = cols.base<float>();
  ParallelGemm(ctx, /*transpose_a=*/false, /*transpose_b=*/true, pixels, k, n, out_backprop, n, filter, n, patches,
               kNothingAfter);
  const int64_t image = d.in_rows * d.in_cols * d.in_depth;
  CwiseParallelFor(ctx, d.batch, out_pixels * k, [&](int64_t begin, int64_t end) {
    std::fill(in_backprop + begin * image, in_backprop + end * image, 0.f);
    conv::Col2ImAdd(d, patches + begin * out_pixels * k, begin, end, in_backprop);
  });
  return true;
}

}  // namespace tensoract
