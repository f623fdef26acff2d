// ReverseSequence on the CPU, for every type TensorFlow's CPU kernel takes: the input
// copied whole, then for each index b along batch_dim the first seq_lengths[b] elements
// along seq_dim copied again backwards (a StridedCopy with a negative stride there).
#include <cstdint>
#include <vector>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

DataTypeVector ReverseSequenceTypes() {
  namespace tf = ::tensorflow;
  return {tf::DT_FLOAT,  tf::DT_DOUBLE, tf::DT_HALF,   tf::DT_BFLOAT16,  tf::DT_INT8,      tf::DT_INT16,
          tf::DT_INT32,  tf::DT_INT64,  tf::DT_UINT8,  tf::DT_UINT16,    tf::DT_UINT32,    tf::DT_UINT64,
          tf::DT_BOOL,   tf::DT_COMPLEX64, tf::DT_COMPLEX128, tf::DT_STRING};
}

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("seq_dim", &seq_dim_);
    if (s.ok()) s = ctx->GetAttr("batch_dim", &batch_dim_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& lengths_t = ctx->input(1);
    const int rank = input.dims();
    // TensorFlow's checks, in its order and words.
    OP_REQUIRES(ctx, lengths_t.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "seq_lengths must be 1-dim, not ", lengths_t.dims()));
    OP_REQUIRES(ctx, batch_dim_ >= 0 && batch_dim_ < rank,
                errors::InvalidArgument(NodePrefix(*this), "Invalid batch_dim ", batch_dim_));
    OP_REQUIRES(ctx, seq_dim_ >= 0 && seq_dim_ < rank,
                errors::InvalidArgument(NodePrefix(*this), "Invalid seq_dim ", seq_dim_));
    OP_REQUIRES(ctx, batch_dim_ != seq_dim_,
                errors::InvalidArgument(NodePrefix(*this), "batch_dim == seq_dim == ", seq_dim_));
    const int batch_dim = static_cast<int>(batch_dim_), seq_dim = static_cast<int>(seq_dim_);
    OP_REQUIRES(ctx, lengths_t.NumElements() == input.dim_size(batch_dim),
                errors::InvalidArgument(NodePrefix(*this), "Length of seq_lengths != input.dims(", batch_dim, "), (",
                                        lengths_t.NumElements(), " vs. ", input.dim_size(batch_dim), ")"));
    const std::vector<int64_t> lengths = IndexValues(lengths_t);
    for (size_t b = 0; b < lengths.size(); ++b) {
      OP_REQUIRES(ctx, lengths[b] >= 0, errors::InvalidArgument(NodePrefix(*this), "seq_lens(", b, ") < 0"));
      OP_REQUIRES(ctx, lengths[b] <= input.dim_size(seq_dim),
                  errors::InvalidArgument(NodePrefix(*this), "seq_lens(", b, ") > input.dims(", seq_dim, ")"));
    }
    // TensorFlow's kernel is instantiated for ranks 2 to 5.
    OP_REQUIRES(ctx, rank >= 2 && rank <= 5,
                errors::InvalidArgument(NodePrefix(*this), "ReverseSequenceOp : Unhandled input dimensions: ", rank));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    StridedCopy(ctx, input, {0, strides}, out, {0, strides}, input.shape().dim_sizes());
    std::vector<int64_t> box = input.shape().dim_sizes();
    box[batch_dim] = 1;
    for (size_t b = 0; b < lengths.size(); ++b) {
      if (lengths[b] < 2) continue;
      box[seq_dim] = lengths[b];
      const int64_t at = static_cast<int64_t>(b) * strides[batch_dim];
      StridedView src{at + (lengths[b] - 1) * strides[seq_dim], strides};
      src.strides[seq_dim] = -strides[seq_dim];
      StridedCopy(ctx, input, src, out, {at, strides}, box);
    }
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

REGISTER_KERNEL(Name("ReverseSequence").Device(DEVICE_CPU).TypeConstraint("T", ReverseSequenceTypes()),
                ReverseSequenceOp);

}  // namespace
}  // namespace tensoract
