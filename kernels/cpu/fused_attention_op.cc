// _FusedAttention on the CPU, float: Keras' multi-head attention without its [B, N, T, S]
// scores in memory. The unfused ops write the scores (Einsum), read and write them twice
// more (Mul by the scale, Softmax) and read them again (the second Einsum): at ViT's 197
// tokens and batch 32 that is 20 MB a pass, and the products of depth 16 are bound by it.
// Here each task takes one batch element, one head and a block of query rows, and keeps
// their scores in a buffer of its own that stays in cache:
//
//   scores [rows, S] = query rows [rows, H] x key^T [H, S]        (gemm::Gemm, strided in place)
//   scores *= scale; += mask (optional); each row through SoftmaxRow (kernels/cpu/softmax_row.h)
//   output rows [rows, H'] = scores x value [S, H']               (written in place)
//
// With the vector kernels, gemm::AttentionHead does those steps on tiles of 12 query rows
// (kernels/cpu/gemm_attention.cc): the GEMM calls cost more than their products at Keras'
// head depths of 16 (the zoo's transformer, batch 32: 1.94 -> 1.40 ms a layer).
// query [B, T, N, H], key [B, S, N, H], value [B, S, N, H'], output [B, T, N, H'].
#include <algorithm>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/softmax_row.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class FusedAttentionOp : public OpKernel {
 public:
  explicit FusedAttentionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("scale", &scale_));
    int64_t masks = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_masks", &masks));
    OP_REQUIRES(ctx, masks <= 1,
                errors::InvalidArgument(CwiseNodeContext(*this), ": num_masks is ", masks,
                                        "; at most one mask"));
    masked_ = masks == 1;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& query = ctx->input(0);
    const Tensor& key = ctx->input(1);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES(ctx, query.dims() == 4 && key.dims() == 4 && value.dims() == 4,
                errors::InvalidArgument(CwiseNodeContext(*this), ": query, key and value must be [batch, tokens, heads, "
                                        "depth], got ", query.shape().DebugString(), ", ", key.shape().DebugString(),
                                        " and ", value.shape().DebugString()));
    const int64_t batch = query.dim_size(0), t = query.dim_size(1), heads = query.dim_size(2), h = query.dim_size(3);
    const int64_t s = key.dim_size(1), hv = value.dim_size(3);
    OP_REQUIRES(ctx, key.dim_size(0) == batch && key.dim_size(2) == heads && key.dim_size(3) == h &&
                         value.dim_size(0) == batch && value.dim_size(1) == s && value.dim_size(2) == heads,
                errors::InvalidArgument(CwiseNodeContext(*this), ": key ", key.shape().DebugString(), " and value ",
                                        value.shape().DebugString(), " do not match query ",
                                        query.shape().DebugString()));
    // The mask: [B or 1, N or 1, T, S], added to each row of scaled scores.
    const float* mask = nullptr;
    int64_t mask_batch = 0, mask_head = 0;
    if (masked_) {
      const Tensor& m = ctx->input(3);
      OP_REQUIRES(ctx, m.dims() == 4 && (m.dim_size(0) == batch || m.dim_size(0) == 1) &&
                           (m.dim_size(1) == heads || m.dim_size(1) == 1) && m.dim_size(2) == t && m.dim_size(3) == s,
                  errors::InvalidArgument(CwiseNodeContext(*this), ": the mask ", m.shape().DebugString(),
                                          " is not [", batch, " or 1, ", heads, " or 1, ", t, ", ", s, "]"));
      mask = m.base<float>();
      mask_head = m.dim_size(1) == 1 ? 0 : t * s;
      mask_batch = m.dim_size(0) == 1 ? 0 : m.dim_size(1) * t * s;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch, t, heads, hv}), &out));
    if (out->NumElements() == 0) return;
    float* o = out->base<float>();
    if (s == 0) {  // softmax over no keys: the unfused ops' empty sum gives zeros
      std::fill(o, o + out->NumElements(), 0.f);
      return;
    }
    const float* q = query.base<float>();
    const float* k = key.base<float>();
    const float* v = value.base<float>();
    const float scale = scale_;
    if (gemm::HaveFastKernels()) {
      // A head's rows in one task where there are heads enough to keep every thread busy
      // (gemm::AttentionHead lays its keys and values out once a call), else in as many
      // blocks as that takes.
      const int threads = ctx->device() == nullptr ? 1 : ctx->device()->num_threads();
      const int64_t blocks = std::min<int64_t>(t, (4 * threads + batch * heads - 1) / (batch * heads));
      const int64_t rows_per_task = (t + blocks - 1) / blocks;
      CwiseParallelFor(ctx, batch * heads * blocks, rows_per_task * s * (h + hv + 20), [&](int64_t first, int64_t last) {
        for (int64_t item = first; item < last; ++item) {
          const int64_t bn = item / blocks, r0 = (item % blocks) * rows_per_task;
          const int64_t b = bn / heads, n = bn % heads, rows = std::min(rows_per_task, t - r0);
          if (rows <= 0) continue;
          const float* mask_rows = mask == nullptr ? nullptr : mask + b * mask_batch + n * mask_head + r0 * s;
          gemm::AttentionHead(rows, s, h, hv, q + ((b * t + r0) * heads + n) * h, heads * h,
                              k + (b * s * heads + n) * h, heads * h, v + (b * s * heads + n) * hv, heads * hv, scale,
                              mask_rows, s, o + ((b * t + r0) * heads + n) * hv, heads * hv);
        }
      });
      return;
    }
    // Blocks of query rows whose scores fit in 128 KB (L2), at least 8 rows.
    const int64_t rows_per_block = std::max<int64_t>(8, std::min<int64_t>(t, (int64_t{32} << 10) / s));
    const int64_t blocks = (t + rows_per_block - 1) / rows_per_block;
    CwiseParallelFor(ctx, batch * heads * blocks, rows_per_block * s * (h + hv + 20), [&](int64_t first, int64_t last) {
      std::vector<float> scores(rows_per_block * s);
      for (int64_t item = first; item < last; ++item) {
        const int64_t bn = item / blocks, r0 = (item % blocks) * rows_per_block;
        const int64_t b = bn / heads, n = bn % heads, rows = std::min(rows_per_block, t - r0);
        const float* q_rows = q + ((b * t + r0) * heads + n) * h;
        const float* k_head = k + (b * s * heads + n) * h;
        const float* v_head = v + (b * s * heads + n) * hv;
        gemm::Gemm(false, true, rows, s, h, q_rows, heads * h, k_head, heads * h, scores.data(), s, false);
        for (int64_t r = 0; r < rows; ++r) {
          float* row = scores.data() + r * s;
          if (scale != 1.f) {
            for (int64_t j = 0; j < s; ++j) row[j] *= scale;
          }
          if (mask != nullptr) {
            const float* add = mask + b * mask_batch + n * mask_head + (r0 + r) * s;
            for (int64_t j = 0; j < s; ++j) row[j] += add[j];
          }
          SoftmaxRow(row, row, s);
        }
        gemm::Gemm(false, false, rows, hv, s, scores.data(), s, v_head, heads * hv, o + ((b * t + r0) * heads + n) * hv,
                   heads * hv, false);
      }
    });
  }

 private:
  float scale_ = 1.f;
  bool masked_ = false;  // input 3: added to the scaled scores
};

REGISTER_KERNEL(Name("_FusedAttention").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedAttentionOp);

}  // namespace
}  // namespace tensoract
