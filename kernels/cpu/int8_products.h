// Products in 8-bit integers, where a session asked for them (GraphOptimizerOptions::
// int8_products; graph/optimizer/mixed_precision.h sets the attr "_int8_products" on the
// convolutions): dynamic quantization, as ONNX Runtime's and PyTorch's dynamic quantization
// do it, needing no calibration data and no quantized model. A marked convolution's filter
// is quantized once, per output channel, to int8 (scale 127 / the channel's largest |w|);
// its input is quantized on every call, per tensor, to unsigned values where it is never
// negative (after a ReLU: [0, 255] where the CPU has VNNI, [0, 127] elsewhere) and to int8
// [-127, 127] elsewhere. The input's scale is a power of two: the largest 2^k that keeps
// every |x| * 2^k within those levels. A layer then needs a oneDNN primitive for each k it
// meets (a few), not one per call: oneDNN 2.6's integer convolutions take their output
// scales when they are made. oneDNN's integer kernels sum the products exactly in int32;
// the scale back, the bias, the residual add and the activation are float
// (kernels/cpu/onednn_conv.h), as the output is.
//
// Why 7 bits without VNNI: there (AVX2, AVX-512 before Cascade Lake) oneDNN multiplies
// u8 x s8 by vpmaddubsw, which saturates the sum of two products at 32767; 127 x 127 x 2
// stays below it (ONNX Runtime's reduce_range for the same reason). For a signed input
// oneDNN halves the weights itself on such CPUs (it adds 128 to the input), so they keep 7
// bits there.
//
// Accuracy: each quantized operand is within half a step of its value (a step of the
// input 2^-k, up to 2/levels of its largest |x|; of the filter 1/127 of the channel's
// largest |w|); what that does to a network is stated in tests/bench/RESULTS.md (issue 54).
// A tensor holding NaN or inf is not quantized: that call runs in float.
#ifndef TENSORACT_KERNELS_CPU_INT8_PRODUCTS_H_
#define TENSORACT_KERNELS_CPU_INT8_PRODUCTS_H_

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace tensoract {

// oneDNN is built in and enabled, and this CPU has its integer convolutions (AVX2 or later).
bool NativeInt8Products();

// The largest value a never-negative input is quantized to: 255 where the CPU has VNNI
// (AVX-512 or AVX2's), whose products do not saturate; 127 elsewhere.
float Int8UnsignedLevels();

// The node's "_int8_products" attr is true and NativeInt8Products().
bool WantsInt8Products(OpKernelConstruction* ctx);

// An activation tensor quantized for the integer products: data[i] = round(x[i] * 2^exponent)
// as uint8 in [0, Int8UnsignedLevels()] (is_unsigned) or int8 in [-127, 127].
struct Int8Activations {
  Tensor data;  // [n] of DT_UINT8 or DT_INT8, from the device's allocator
  bool is_unsigned = true;
  int exponent = 0;
  float scale() const;  // 2^exponent
};

// Quantizes in[0, n) on the device's threads; false (nothing made) where it holds a NaN or an
// infinity or memory could not be had: the caller computes in float.
bool QuantizeActivations(OpKernelContext* ctx, const float* in, int64_t n, Int8Activations* out);

// Per output channel c of an HWIO filter [.., channels] times `affine_scale` (nullptr: 1):
// 127 / the largest |w * affine_scale[c]| over the channel (1 where that is 0). The filter's
// per-channel largest |w| is `largest_abs` (LargestAbsPerChannel).
std::vector<float> FilterInt8Scales(const std::vector<float>& largest_abs, const float* affine_scale);

// The largest |w| of each of the `channels` output channels of a float filter whose innermost
// dimension is the output channel.
std::vector<float> LargestAbsPerChannel(const float* w, int64_t n, int64_t channels);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_INT8_PRODUCTS_H_
