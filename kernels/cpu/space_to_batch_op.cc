// SpaceToBatchND and BatchToSpaceND on the CPU, for TensorFlow's real number types (its
// TF_CALL_REAL_NUMBER_TYPES; no bool, complex or string kernels there either).
//
// Both relate a "space" tensor [batch, s_1..s_M, rest...] (SpaceToBatchND's input,
// BatchToSpaceND's output) to a "batch" tensor [P * batch, y_1..y_M, rest...] (P the product
// of block_shape): for block offsets k = (k_1..k_M), taken row-major,
//   batch[k * batch + b, y_1..y_M, r] = space[b, y_j * block_j + k_j - start_j, r]
// with start the paddings' (crops') first column. For one k the positions y_j whose space
// coordinate falls inside the space tensor form a range, so each k is one StridedCopy of a
// box; SpaceToBatchND zero-fills its output first, for the padding.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

// TensorFlow's kMaxSpaceToBatchBlockDims: block dimensions other than leading or trailing
// ones of size 1 without padding (which TensorFlow folds into the batch or depth).
constexpr int kMaxSpaceBatchBlockDims = 4;

DataTypeVector SpaceBatchTypes() {
  namespace tf = ::tensorflow;
  return {tf::DT_FLOAT, tf::DT_DOUBLE, tf::DT_HALF,  tf::DT_BFLOAT16, tf::DT_INT8,   tf::DT_INT16,
          tf::DT_INT32, tf::DT_INT64,  tf::DT_UINT8, tf::DT_UINT16,   tf::DT_UINT32, tf::DT_UINT64};
}

// Floor division for a positive divisor.
int64_t FloorDivPositive(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& block_t = ctx->input(1);
    const Tensor& amounts_t = ctx->input(2);
    const char* amounts_name = kToBatch ? "paddings" : "crops";
    OP_REQUIRES(ctx, block_t.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "block_shape rank should be 1 instead of ", block_t.dims()));
    const int m = static_cast<int>(block_t.dim_size(0));
    OP_REQUIRES(ctx, input.dims() >= 1 + m,
                errors::InvalidArgument(NodePrefix(*this), "input rank should be >= ", 1 + m, " instead of ",
                                        input.dims()));
    OP_REQUIRES(ctx, amounts_t.dims() == 2 && amounts_t.dim_size(0) == m && amounts_t.dim_size(1) == 2,
                errors::InvalidArgument(NodePrefix(*this), amounts_name, " should have shape [", m, ", 2] instead of ",
                                        amounts_t.shape().DebugString()));
    const std::vector<int64_t> block = IndexValues(block_t);
    const std::vector<int64_t> amounts = IndexValues(amounts_t);

    // TensorFlow's folding of trivial leading and trailing block dimensions, for its limit.
    auto trivial = [&](int d) { return amounts[2 * d] == 0 && amounts[2 * d + 1] == 0 && block[d] == 1; };
    int prefix = 0, suffix = 0;
    while (prefix < m && trivial(prefix)) ++prefix;
    while (suffix < m - prefix && trivial(m - 1 - suffix)) ++suffix;

    int64_t product = 1;
    for (int d = 0; d < m; ++d) {
      OP_REQUIRES(ctx, block[d] >= 1,
                  errors::InvalidArgument(NodePrefix(*this), "All values in block_shape must be positive, got value, ",
                                          block[d], " at index ", d, "."));
      OP_REQUIRES(ctx, product <= std::numeric_limits<int64_t>::max() / block[d],
                  errors::InvalidArgument(NodePrefix(*this), "Product of block sizes must be positive, got overflow"));
      product *= block[d];
    }
    const int64_t in_batch = input.dim_size(0);
    if (!kToBatch) {
      OP_REQUIRES(ctx, in_batch % product == 0,
                  errors::InvalidArgument(NodePrefix(*this), "Input batch dimension (", in_batch,
                                          ") is not divisible by product of block sizes (", product, ")"));
    }
    const int internal = m - prefix - suffix;
    OP_REQUIRES(ctx, internal <= kMaxSpaceBatchBlockDims,
                errors::InvalidArgument(NodePrefix(*this), "Maximum number of non-combined block dimensions is ",
                                        internal, " but must not exceed ", kMaxSpaceBatchBlockDims));
    if (internal == 0) {
      ctx->set_output(0, input);
      return;
    }
    if (kToBatch) {
      OP_REQUIRES(ctx, in_batch == 0 || product <= std::numeric_limits<int64_t>::max() / in_batch,
                  errors::InvalidArgument(NodePrefix(*this),
                                          "Negative output dimension size caused by overflow when multiplying ",
                                          in_batch, " and ", product));
    }

    // The output's shape, and which side is the space tensor.
    std::vector<int64_t> out_dims = input.shape().dim_sizes();
    out_dims[0] = kToBatch ? in_batch * product : in_batch / product;
    for (int d = 0; d < m; ++d) {
      const int64_t start = amounts[2 * d], end = amounts[2 * d + 1];
      const int64_t size = input.dim_size(d + 1);
      if (kToBatch) {
        OP_REQUIRES(ctx, start >= 0 && end >= 0,
                    errors::InvalidArgument(NodePrefix(*this), "Paddings must be non-negative"));
        const int64_t padded = size + start + end;
        OP_REQUIRES(ctx, padded % block[d] == 0,
                    errors::InvalidArgument(NodePrefix(*this), "padded_shape[", d, "]=", padded,
                                            " is not divisible by block_shape[", d, "]=", block[d]));
        out_dims[d + 1] = padded / block[d];
      } else {
        OP_REQUIRES(ctx, start >= 0 && end >= 0,
                    errors::InvalidArgument(NodePrefix(*this), "Crops must be non-negative"));
        const int64_t cropped = size * block[d] - start - end;
        OP_REQUIRES(ctx, cropped >= 0,
                    errors::InvalidArgument(NodePrefix(*this), "cropped_shape[", d, "]=", cropped,
                                            " must be non-negative"));
        out_dims[d + 1] = cropped;
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    if (kToBatch) FillElements(ctx, nullptr, out);

    const Tensor& space = kToBatch ? input : *out;
    const Tensor& batch_side = kToBatch ? *out : input;
    const int64_t batch = space.dim_size(0);
    const std::vector<int64_t> space_strides = RowMajorStrides(space.shape());
    const std::vector<int64_t> batch_strides = RowMajorStrides(batch_side.shape());
    int64_t depth = 1;
    for (int d = m + 1; d < space.dims(); ++d) depth *= space.dim_size(d);

    // The box: [batch, n_1..n_M, depth]; one per block offset k.
    std::vector<int64_t> box(m + 2);
    box[0] = batch;
    box[m + 1] = depth;
    StridedView space_view{0, std::vector<int64_t>(m + 2)}, batch_view{0, std::vector<int64_t>(m + 2)};
    space_view.strides[0] = space_strides[0];
    batch_view.strides[0] = batch_strides[0];
    space_view.strides[m + 1] = batch_view.strides[m + 1] = 1;
    for (int d = 0; d < m; ++d) {
      space_view.strides[d + 1] = block[d] * space_strides[d + 1];
      batch_view.strides[d + 1] = batch_strides[d + 1];
    }
    std::vector<int64_t> offset(m, 0);
    for (int64_t k = 0; k < product; ++k) {
      // offset = k's row-major multi-index over block_shape.
      int64_t rest = k;
      for (int d = m - 1; d >= 0; --d) {
        offset[d] = rest % block[d];
        rest /= block[d];
      }
      space_view.base = 0;
      batch_view.base = k * batch * batch_strides[0];
      bool empty = false;
      for (int d = 0; d < m && !empty; ++d) {
        const int64_t shift = offset[d] - amounts[2 * d];  // space coordinate of y = 0
        const int64_t space_size = space.dim_size(d + 1), batch_size = batch_side.dim_size(d + 1);
        const int64_t lo = std::max<int64_t>(0, FloorDivPositive(-shift + block[d] - 1, block[d]));
        const int64_t hi = std::min<int64_t>(batch_size, FloorDivPositive(space_size - 1 - shift, block[d]) + 1);
        if (hi <= lo) {
          empty = true;
          break;
        }
        box[d + 1] = hi - lo;
        space_view.base += (lo * block[d] + shift) * space_strides[d + 1];
        batch_view.base += lo * batch_strides[d + 1];
      }
      if (empty) continue;
      if (kToBatch) {
        StridedCopy(ctx, input, space_view, out, batch_view, box);
      } else {
        StridedCopy(ctx, input, batch_view, out, space_view, box);
      }
    }
  }
};

REGISTER_KERNEL(Name("SpaceToBatchND").Device(DEVICE_CPU).TypeConstraint("T", SpaceBatchTypes()), SpaceBatchOp<true>);
REGISTER_KERNEL(Name("BatchToSpaceND").Device(DEVICE_CPU).TypeConstraint("T", SpaceBatchTypes()), SpaceBatchOp<false>);

}  // namespace
}  // namespace tensoract
