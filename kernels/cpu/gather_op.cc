// GatherV2 and TensorFlow 1's Gather (axis 0, no batch dimensions) on the CPU: params seen
// as [batch, outer, gather, inner] and indices as [batch, n]; output row (b, o, j) is params
// row (b, o, indices[b, j]), `inner` elements copied at once. Every index is checked before
// anything is copied.
#include <cstring>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

// "[1,2]" for flat index 5 of indices shaped [2,3]; "[5]" for a vector.
std::string MultiIndex(const TensorShape& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    idx[d] = flat % shape.dim_size(d);
    flat /= shape.dim_size(d);
  }
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + std::to_string(idx[i]);
  return s;
}

class GatherV2Op : public OpKernel {
 public:
  explicit GatherV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->def().op() == "Gather") return;  // v1: no batch_dims attr, 0
    Status s = ctx->GetAttr("batch_dims", &batch_dims_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    const int rank = params.dims();
    int64_t axis = 0;  // v1 Gather has no axis input: 0
    if (ctx->num_inputs() == 3) {
      const Tensor& axis_t = ctx->input(2);
      OP_REQUIRES(ctx, axis_t.NumElements() == 1,
                  errors::InvalidArgument(NodePrefix(*this), "axis must be scalar, not ", axis_t.shape().DebugString()));
      axis = IndexValues(axis_t)[0];
      OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                  errors::InvalidArgument(NodePrefix(*this), "Expected axis in the range [", -rank, ", ", rank,
                                          "), but got ", axis));
      if (axis < 0) axis += rank;
    }
    OP_REQUIRES(ctx, rank >= 1, errors::InvalidArgument(NodePrefix(*this), "params must be at least 1 dimensional"));
    int64_t batch_dims = batch_dims_;
    if (batch_dims < 0) batch_dims += indices_t.dims();
    OP_REQUIRES(ctx, batch_dims >= 0 && batch_dims <= axis && batch_dims <= indices_t.dims(),
                errors::InvalidArgument(NodePrefix(*this), "batch_dims (", batch_dims_,
                                        ") must be in [0, min(axis, rank(indices))], axis ", axis, ", indices ",
                                        indices_t.shape().DebugString()));
    for (int i = 0; i < batch_dims; ++i) {
      OP_REQUIRES(ctx, params.dim_size(i) == indices_t.dim_size(i),
                  errors::InvalidArgument(NodePrefix(*this), "params.shape[", i, "]: ", params.dim_size(i),
                                          " should be equal to indices.shape[", i, "]: ", indices_t.dim_size(i)));
    }
    int64_t batch = 1, outer = 1, inner = 1, n = 1;
    std::vector<int64_t> out_dims;
    for (int i = 0; i < batch_dims; ++i) batch *= params.dim_size(i);
    for (int i = 0; i < axis; ++i) out_dims.push_back(params.dim_size(i));
    for (int i = static_cast<int>(batch_dims); i < axis; ++i) outer *= params.dim_size(i);
    for (int i = static_cast<int>(batch_dims); i < indices_t.dims(); ++i) {
      n *= indices_t.dim_size(i);
      out_dims.push_back(indices_t.dim_size(i));
    }
    for (int i = static_cast<int>(axis) + 1; i < rank; ++i) {
      inner *= params.dim_size(i);
      out_dims.push_back(params.dim_size(i));
    }
    const int64_t limit = params.dim_size(static_cast<int>(axis));
    const std::vector<int64_t> indices = IndexValues(indices_t);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    // Like TensorFlow, indices are checked only when something is copied: gathering from
    // rows of zero elements (the gradients of segment ops over [n, 0] data) never fails.
    if (out->NumElements() == 0) return;
    for (size_t i = 0; i < indices.size(); ++i) {
      OP_REQUIRES(ctx, indices[i] >= 0 && indices[i] < limit,
                  errors::InvalidArgument(NodePrefix(*this), "indices[", MultiIndex(indices_t.shape(), i),
                                          "] = ", indices[i], " is not in [0, ", limit, ")"));
    }
    // Rows (b, o, j) in output order; each copies `inner` elements.
    const int64_t rows = batch * outer * n;
    auto row_source = [&](int64_t r) {
      const int64_t j = r % n, bo = r / n, b = bo / outer;
      return (bo * limit + indices[b * n + j]) * inner;
    };
    if (!DataTypeIsFixedSize(params.dtype())) {  // strings and variants, by value
      for (int64_t r = 0; r < rows; ++r) CopyElements(params, row_source(r), out, r * inner, inner);
      return;
    }
    const size_t bytes = inner * DataTypeSize(params.dtype());
    const char* src = static_cast<const char*>(params.data());
    char* dst = static_cast<char*>(out->data());
    CwiseParallelFor(ctx, rows, std::max<int64_t>(1, inner), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        std::memcpy(dst + r * bytes, src + row_source(r) * DataTypeSize(params.dtype()), bytes);
      }
    });
  }

 private:
  int64_t batch_dims_ = 0;
};

REGISTER_KERNEL(Name("GatherV2").Device(DEVICE_CPU), GatherV2Op);
REGISTER_KERNEL(Name("Gather").Device(DEVICE_CPU), GatherV2Op);

}  // namespace
}  // namespace tensoract
