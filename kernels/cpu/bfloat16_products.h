// Products in bfloat16, where a session asked for them (GraphOptimizerOptions::
// bfloat16_products; graph/optimizer/mixed_precision.h sets the attr "_bfloat16_products"
// on the nodes): a convolution's or a MatMul's operands are rounded to bfloat16 (to
// nearest, ties to even) and multiplied on oneDNN's bfloat16 kernels (kernels/cpu/
// onednn_conv.h, kernels/cpu/onednn_matmul.h). Each product of two bfloat16 values is
// exact in float; the sums, the fused epilogue and the output stay float, so only the
// operands lose precision (8 significant bits instead of 24). Only where the CPU multiplies
// bfloat16 natively (AVX512-BF16 or AMX): elsewhere the attr is ignored and the node
// computes in float, as OpenVINO's precision hint falls back.
#ifndef TENSORACT_KERNELS_CPU_BFLOAT16_PRODUCTS_H_
#define TENSORACT_KERNELS_CPU_BFLOAT16_PRODUCTS_H_

#include <cstdint>

#include "base/status.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace tensoract {

// oneDNN is built in and enabled, and this CPU multiplies bfloat16 in hardware.
bool NativeBfloat16Products();

// The node's "_bfloat16_products" attr is true and NativeBfloat16Products().
bool WantsBfloat16Products(OpKernelConstruction* ctx);

// out[i] = in[i] rounded to bfloat16, to nearest with ties to even (a NaN stays a NaN), as
// the 16 high bits of the float.
void RoundToBfloat16(const float* in, uint16_t* out, int64_t n);

// A bfloat16 tensor [n] of in[0, n) rounded, from the device's allocator (which keeps large
// blocks for the next step), rounded on the device's threads.
StatusOr<Tensor> RoundedToBfloat16(OpKernelContext* ctx, const float* in, int64_t n);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_BFLOAT16_PRODUCTS_H_
