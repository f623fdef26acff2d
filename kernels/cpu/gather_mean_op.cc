// _FusedGatherMean on the CPU, float: an embedding bag as the remapper fuses it
// (graph/optimizer/gather_mean_fusion.h). Each output row is the mean of the table rows its
// row of indices names: the rows are added in the indices' order into a float sum, then
// divided by their count (the unfused Mean sums the gathered tensor in its own order: equal
// up to float rounding). Every index is checked first, as GatherV2 checks them; no tokens
// give 0 / 0 (NaN), as the Mean of nothing does.
#include <algorithm>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class FusedGatherMeanOp : public OpKernel {
 public:
  explicit FusedGatherMeanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    OP_REQUIRES(ctx, params.dims() == 2 && indices_t.dims() == 2,
                errors::InvalidArgument(CwiseNodeContext(*this), ": params and indices must be matrices, got ",
                                        params.shape().DebugString(), " and ", indices_t.shape().DebugString()));
    const int64_t rows = params.dim_size(0), depth = params.dim_size(1);
    const int64_t batch = indices_t.dim_size(0), n = indices_t.dim_size(1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch, depth}), &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> indices = IndexValues(indices_t);
    for (size_t i = 0; i < indices.size(); ++i) {
      OP_REQUIRES(ctx, indices[i] >= 0 && indices[i] < rows,
                  errors::InvalidArgument(CwiseNodeContext(*this), ": indices[", i / n, ",", i % n, "] = ", indices[i],
                                          " is not in [0, ", rows, ")"));
    }
    const float* table = params.base<float>();
    float* dst = out->base<float>();
    const float count = static_cast<float>(n);
    CwiseParallelFor(ctx, batch, std::max<int64_t>(1, n * depth), [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        float* sum = dst + b * depth;
        std::fill(sum, sum + depth, 0.f);
        for (int64_t t = 0; t < n; ++t) {
          const float* row = table + indices[b * n + t] * depth;
          for (int64_t d = 0; d < depth; ++d) sum[d] += row[d];
        }
        for (int64_t d = 0; d < depth; ++d) sum[d] /= count;
      }
    });
  }
};

REGISTER_KERNEL(Name("_FusedGatherMean").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedGatherMeanOp);

}  // namespace
}  // namespace tensoract
