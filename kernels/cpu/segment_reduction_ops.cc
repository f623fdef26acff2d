// UnsortedSegmentSum on the CPU: output rows of zeros, each data row added to the row its
// segment id names; negative ids drop their row, as in TensorFlow. Also the dense gradient
// of GatherV2.
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T>
class UnsortedSegmentSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    const Tensor& n_t = ctx->input(2);
    OP_REQUIRES(ctx, n_t.NumElements() == 1,
                errors::InvalidArgument(NodePrefix(*this), "num_segments should be a scalar, not shape ",
                                        n_t.shape().DebugString()));
    const int64_t num_segments = IndexValues(n_t)[0];
    OP_REQUIRES(ctx, num_segments >= 0,
                errors::InvalidArgument(NodePrefix(*this), "num_segments must be non-negative, got ", num_segments));
    bool prefix = ids_t.dims() <= data.dims();
    for (int i = 0; prefix && i < ids_t.dims(); ++i) prefix = ids_t.dim_size(i) == data.dim_size(i);
    OP_REQUIRES(ctx, prefix,
                errors::InvalidArgument(NodePrefix(*this), "data.shape = ", data.shape().DebugString(),
                                        " does not start with segment_ids.shape = ", ids_t.shape().DebugString()));
    std::vector<int64_t> dims{num_segments};
    int64_t inner = 1;
    for (int i = ids_t.dims(); i < data.dims(); ++i) {
      dims.push_back(data.dim_size(i));
      inner *= data.dim_size(i);
    }
    const std::vector<int64_t> ids = IndexValues(ids_t);
    for (size_t i = 0; i < ids.size(); ++i) {
      OP_REQUIRES(ctx, ids[i] < num_segments,
                  errors::InvalidArgument(NodePrefix(*this), "segment_ids[", i, "] = ", ids[i],
                                          " is out of range [0, ", num_segments, ")"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    T* o = out->base<T>();
    for (int64_t i = 0; i < out->NumElements(); ++i) o[i] = T(0);
    const T* d = data.base<T>();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) continue;
      T* row = o + ids[i] * inner;
      const T* src = d + i * inner;
      for (int64_t k = 0; k < inner; ++k) row[k] += src[k];
    }
  }
};

#define TA_REGISTER(T) \
  REGISTER_KERNEL(Name("UnsortedSegmentSum").Device(DEVICE_CPU).TypeConstraint<T>("T"), UnsortedSegmentSumOp<T>)
TA_REGISTER(float);
TA_REGISTER(double);
TA_REGISTER(int32_t);
TA_REGISTER(int64_t);
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
