// DynamicPartition on the CPU, for every type: the slices of data at each index of
// `partitions` (data's shape starts with partitions') go, in order, to the output that
// partitions names there. DynamicStitch (dynamic_stitch_op.cc) puts them back.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

class DynamicPartitionOp : public OpKernel {
 public:
  explicit DynamicPartitionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("num_partitions", &num_partitions_);
    if (s.ok() && num_partitions_ < 1) s = errors::InvalidArgument("num_partitions must be at least 1");
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& partitions = ctx->input(1);
    bool starts_with = data.dims() >= partitions.dims();
    for (int d = 0; starts_with && d < partitions.dims(); ++d) starts_with = data.dim_size(d) == partitions.dim_size(d);
    OP_REQUIRES(ctx, starts_with,
                errors::InvalidArgument(NodePrefix(*this), "data.shape must start with partitions.shape, got ",
                                        "data.shape = ", data.shape().DebugString(),
                                        ", partitions.shape = ", partitions.shape().DebugString()));
    const int32_t* p = partitions.base<int32_t>();
    const int64_t n = partitions.NumElements();
    std::vector<int64_t> count(num_partitions_, 0);
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, p[i] >= 0 && p[i] < num_partitions_,
                  errors::InvalidArgument(NodePrefix(*this), "partitions", FlatIndexString(partitions.shape(), i),
                                          " = ", p[i], " is not in [0, ", num_partitions_, ")"));
      ++count[p[i]];
    }
    std::vector<int64_t> rest = data.shape().dim_sizes();  // dim_sizes() returns a copy
    rest.erase(rest.begin(), rest.begin() + partitions.dims());
    int64_t slice = 1;
    for (int64_t d : rest) slice *= d;
    std::vector<Tensor*> outs(num_partitions_);
    for (int64_t k = 0; k < num_partitions_; ++k) {
      std::vector<int64_t> dims{count[k]};
      dims.insert(dims.end(), rest.begin(), rest.end());
      OP_REQUIRES_OK(ctx, ctx->allocate_output(static_cast<int>(k), TensorShape(dims), &outs[k]));
    }
    if (slice == 0) return;
    std::vector<int64_t> filled(num_partitions_, 0);
    for (int64_t i = 0; i < n; ++i) {
      CopyElements(data, i * slice, outs[p[i]], filled[p[i]] * slice, slice);
      ++filled[p[i]];
    }
  }

 private:
  // "[1,2]": the multi-index of flat index i in `shape` (TensorFlow's SliceDebugString).
  static std::string FlatIndexString(const TensorShape& shape, int64_t i) {
    std::vector<int64_t> index(shape.dims());
    for (int d = shape.dims() - 1; d >= 0; --d) {
      index[d] = shape.dim_size(d) == 0 ? 0 : i % shape.dim_size(d);
      if (shape.dim_size(d) != 0) i /= shape.dim_size(d);
    }
    std::string s = "[";
    for (size_t d = 0; d < index.size(); ++d) s += (d ? "," : "") + std::to_string(index[d]);
    return s + "]";
  }

  int64_t num_partitions_ = 1;
};

REGISTER_KERNEL(Name("DynamicPartition").Device(DEVICE_CPU), DynamicPartitionOp);

}  // namespace
}  // namespace tensoract
