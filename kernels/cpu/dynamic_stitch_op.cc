// DynamicStitch and ParallelDynamicStitch on the CPU: merged[indices[m][i]] = data[m][i],
// each index naming a row of the output, which has max index + 1 rows. Inputs are applied
// in order, so a later index wins over an earlier one (what DynamicStitch promises;
// ParallelDynamicStitch promises no order, and this is one). Rows no index names are zeros
// (TensorFlow leaves them unset).
#include <cstring>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

class DynamicStitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / 2;
    std::vector<std::vector<int64_t>> indices(n);
    int64_t max_index = -1;
    for (int m = 0; m < n; ++m) {
      indices[m] = IndexValues(ctx->input(m));
      for (int64_t i : indices[m]) max_index = std::max(max_index, i);
    }
    const int64_t rows = max_index + 1;
    for (int m = 0; m < n; ++m) {
      for (size_t i = 0; i < indices[m].size(); ++i) {
        OP_REQUIRES(ctx, indices[m][i] >= 0,
                    errors::InvalidArgument(NodePrefix(*this), "indices[", i, "] is out of range"));
      }
    }
    const Tensor& indices0 = ctx->input(0);
    const Tensor& data0 = ctx->input(n);
    for (int m = 0; m < n; ++m) {
      const Tensor& idx = ctx->input(m);
      const Tensor& data = ctx->input(n + m);
      bool starts_with = data.dims() >= idx.dims();
      for (int d = 0; starts_with && d < idx.dims(); ++d) starts_with = data.dim_size(d) == idx.dim_size(d);
      OP_REQUIRES(ctx, starts_with,
                  errors::InvalidArgument(NodePrefix(*this), "data[", m, "].shape = ", data.shape().DebugString(),
                                          " does not start with indices[", m, "].shape = ", idx.shape().DebugString()));
      bool same_extra = data.dims() - idx.dims() == data0.dims() - indices0.dims();
      for (int d = 0; same_extra && d < data.dims() - idx.dims(); ++d) {
        same_extra = data.dim_size(idx.dims() + d) == data0.dim_size(indices0.dims() + d);
      }
      OP_REQUIRES(ctx, same_extra,
                  errors::InvalidArgument(NodePrefix(*this), "Need data[0].shape[", indices0.dims(), ":] = data[", m,
                                          "].shape[", idx.dims(), ":], got data[0].shape = ",
                                          data0.shape().DebugString(), ", data[", m,
                                          "].shape = ", data.shape().DebugString(), ", indices[0].shape = ",
                                          indices0.shape().DebugString(), ", indices[", m,
                                          "].shape = ", idx.shape().DebugString()));
    }
    std::vector<int64_t> dims{rows};
    int64_t row_size = 1;
    for (int d = indices0.dims(); d < data0.dims(); ++d) {
      dims.push_back(data0.dim_size(d));
      row_size *= data0.dim_size(d);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    FillElements(ctx, nullptr, out);
    if (out->NumElements() == 0) return;
    for (int m = 0; m < n; ++m) {
      const Tensor& data = ctx->input(n + m);
      for (size_t i = 0; i < indices[m].size(); ++i) {
        CopyElements(data, i * row_size, out, indices[m][i] * row_size, row_size);
      }
    }
  }
};

// TensorFlow's CPU dtypes, less DT_VARIANT (which tensors here do not hold).
DataTypeVector StitchTypes() {
  namespace tf = ::tensorflow;
  return {tf::DT_FLOAT,  tf::DT_DOUBLE,    tf::DT_HALF,       tf::DT_BFLOAT16, tf::DT_INT8,   tf::DT_INT16,
          tf::DT_INT32,  tf::DT_INT64,     tf::DT_UINT8,      tf::DT_UINT16,   tf::DT_UINT32, tf::DT_UINT64,
          tf::DT_BOOL,   tf::DT_COMPLEX64, tf::DT_COMPLEX128, tf::DT_QINT8,    tf::DT_QUINT8, tf::DT_QINT32,
          tf::DT_STRING};
}
REGISTER_KERNEL(Name("DynamicStitch").Device(DEVICE_CPU).TypeConstraint("T", StitchTypes()), DynamicStitchOp);
REGISTER_KERNEL(Name("ParallelDynamicStitch").Device(DEVICE_CPU).TypeConstraint("T", StitchTypes()), DynamicStitchOp);

}  // namespace
}  // namespace tensoract
