// DenseBincount on the CPU: for a vector (or scalar) input, output[v] counts the entries equal
// to v (or sums their weights; is 1 where any occurs with binary_output, weights or not), for
// v in [0, size); a matrix input does so row by row into [rows, size]. Values >= size are
// dropped, negative ones refused, with TensorFlow's messages (its vector and matrix kernels
// word the refusal differently). The sums run in the input's order (TensorFlow's vector
// kernel sums threads' partial bins, so float weights may round differently there).
#include <cstdint>

#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

template <class Tidx, class T>
class DenseBincountOp : public OpKernel {
 public:
  explicit DenseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("binary_output", &binary_output_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& size_in = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    OP_REQUIRES(ctx, data.dims() <= 2,
                errors::InvalidArgument(NodePrefix(*this), "Shape must be at most rank 2 but is rank ", data.dims()));
    OP_REQUIRES(ctx, size_in.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "Shape must be rank 0 but is rank ", size_in.dims()));
    OP_REQUIRES(ctx, weights.shape() == data.shape() || weights.NumElements() == 0,
                errors::InvalidArgument(NodePrefix(*this),
                                        "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which "
                                        "case it acts as all weights equal to 1. Received ",
                                        weights.shape().DebugString()));
    const int64_t size = static_cast<int64_t>(size_in.base<Tidx>()[0]);
    OP_REQUIRES(ctx, size >= 0, errors::InvalidArgument(NodePrefix(*this), "size (", size, ") must be non-negative"));
    const bool matrix = data.dims() == 2;
    const int64_t rows = matrix ? data.dim_size(0) : 1;
    const int64_t cols = matrix ? data.dim_size(1) : data.NumElements();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, matrix ? TensorShape({rows, size}) : TensorShape({size}), &out));
    const Tidx* in = data.base<Tidx>();
    for (int64_t i = 0; i < data.NumElements(); ++i) {
      if (in[i] >= 0) continue;
      ctx->SetStatus(matrix ? errors::InvalidArgument(NodePrefix(*this),
                                                      "Input 'in' must be non-negative! Negative input value found: ",
                                                      static_cast<int64_t>(in[i]))
                            : errors::InvalidArgument(NodePrefix(*this), "Input arr must be non-negative!"));
      return;
    }
    T* bins = out->base<T>();
    for (int64_t i = 0; i < out->NumElements(); ++i) bins[i] = T(0);
    const bool weighted = weights.NumElements() != 0;
    const T* w = weighted ? weights.base<T>() : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      T* row = bins + r * size;
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t k = r * cols + j;
        const int64_t v = static_cast<int64_t>(in[k]);
        if (v >= size) continue;
        if (binary_output_) {
          row[v] = T(1);
        } else {
          row[v] += weighted ? w[k] : T(1);
        }
      }
    }
  }

 private:
  bool binary_output_ = false;
};

#define TA_REGISTER_DENSE_BINCOUNT(Tidx, T)                                                                        \
  REGISTER_KERNEL(                                                                                                 \
      Name("DenseBincount").Device(DEVICE_CPU).TypeConstraint<Tidx>("Tidx").TypeConstraint<T>("T"),               \
      DenseBincountOp<Tidx, T>)
#define TA_REGISTER_DENSE_BINCOUNT_ALL(T) \
  TA_REGISTER_DENSE_BINCOUNT(int32_t, T); \
  TA_REGISTER_DENSE_BINCOUNT(int64_t, T)
TA_REGISTER_DENSE_BINCOUNT_ALL(int32_t);
TA_REGISTER_DENSE_BINCOUNT_ALL(int64_t);
TA_REGISTER_DENSE_BINCOUNT_ALL(float);
TA_REGISTER_DENSE_BINCOUNT_ALL(double);
#undef TA_REGISTER_DENSE_BINCOUNT_ALL
#undef TA_REGISTER_DENSE_BINCOUNT

}  // namespace
}  // namespace tensoract
