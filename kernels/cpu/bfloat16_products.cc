// Products in bfloat16 (see bfloat16_products.h).
#include "kernels/cpu/bfloat16_products.h"

#include <cstring>

#include "graph/node_def_util.h"
#include "graph/optimizer/mixed_precision.h"
#include "base/bfloat16_rounding.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/onednn_conv.h"
#include "kernels/device.h"

#ifdef TENSORACT_HAVE_ONEDNN
#include "kernels/cpu/onednn_util.h"
#endif

namespace tensoract {

bool NativeBfloat16Products() {
#ifdef TENSORACT_HAVE_ONEDNN
  // Every ISA with bfloat16 arithmetic (AMX's too) holds avx512_core_bf16's features.
  static const bool native = OnednnConv::Enabled() && OnednnCpuHas(dnnl::cpu_isa::avx512_core_bf16);
  return native;
#else
  return false;
#endif
}

bool WantsBfloat16Products(OpKernelConstruction* ctx) {
  return AttrIsTrue(ctx->def(), kBfloat16ProductsAttr) && NativeBfloat16Products();
}

void RoundToBfloat16(const float* in, uint16_t* out, int64_t n) { NarrowToBfloat16(in, out, n); }

StatusOr<Tensor> RoundedToBfloat16(OpKernelContext* ctx, const float* in, int64_t n) {
  Allocator* allocator = ctx->device() != nullptr ? ctx->device()->allocator() : cpu_allocator();
  TA_ASSIGN_OR_RETURN(Tensor rounded, Tensor::Allocate(allocator, tensorflow::DT_BFLOAT16, TensorShape({n})));
  uint16_t* out = static_cast<uint16_t*>(rounded.data());
  CwiseParallelFor(ctx, n, 2, [&](int64_t begin, int64_t end) { RoundToBfloat16(in + begin, out + begin, end - begin); });
  return rounded;
}

}  // namespace tensoract
