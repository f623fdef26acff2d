// SparseToDense on the CPU: a tensor of output_shape filled with default_value, then each
// index tuple's element set to its value (or the scalar value), in order. sparse_indices is
// a matrix [n, rank] (a vector: n tuples of one index; a scalar: one). With validate_indices
// every tuple must be in range and the tuples strictly increasing (TensorFlow's
// SparseTensor::IndicesValid: "out of bounds", "out of order", "repeated"); without it a
// tuple out of range is still an error and a repeated one's last value wins. One kernel for
// every dtype TensorFlow's CPU registers it for (elements copied by size, strings as strings).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/nd_index.h"
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

std::string SparseTupleString(const std::vector<int64_t>& idx, int64_t i, int64_t rank) {
  std::string s = "[";
  for (int64_t j = 0; j < rank; ++j) s += (j ? "," : "") + std::to_string(idx[i * rank + j]);
  return s + "]";
}

class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_indices", &validate_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    const std::string p = NodePrefix(*this);
    OP_REQUIRES(ctx, indices.dims() <= 2,
                errors::InvalidArgument(p, "sparse_indices should be a scalar, vector, or matrix, got shape ",
                                        indices.shape().DebugString()));
    const int64_t n = indices.dims() > 0 ? indices.dim_size(0) : 1;
    const int64_t rank = indices.dims() > 1 ? indices.dim_size(1) : 1;
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                errors::InvalidArgument(p, "output_shape must be rank 1, got shape ", shape_t.shape().DebugString()));
    OP_REQUIRES(ctx, shape_t.NumElements() == rank,
                errors::InvalidArgument(p, "output_shape has incorrect number of elements: ", shape_t.NumElements(),
                                        " should be: ", rank));
    OP_REQUIRES(ctx, values.dims() == 0 || (values.dims() == 1 && values.NumElements() == n),
                errors::InvalidArgument(p, "sparse_values has incorrect shape ", values.shape().DebugString(),
                                        ", should be [] or [", n, "]"));
    OP_REQUIRES(ctx, default_value.dims() == 0, errors::InvalidArgument(p, "default_value should be a scalar."));
    const std::vector<int64_t> dims = IndexValues(shape_t);
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d >= 0, errors::InvalidArgument(p, "Dimension ", d, " must be >= 0"));
    }
    const TensorShape shape(dims);
    const std::vector<int64_t> idx = IndexValues(indices);
    std::vector<int64_t> offsets(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t offset = SliceOffset(idx, i, rank, shape, 1);
      const bool in_range = offset >= 0;
      if (validate_) {
        OP_REQUIRES(ctx, in_range,
                    errors::InvalidArgument(p, "indices[", i, "] = ", SparseTupleString(idx, i, rank),
                                            " is out of bounds: need 0 <= index < ", DimsList(dims)));
        if (i > 0) {
          int order = 0;  // this tuple against the one before, lexicographically
          for (int64_t j = 0; j < rank && order == 0; ++j) {
            const int64_t a = idx[(i - 1) * rank + j], b = idx[i * rank + j];
            order = b < a ? -1 : b > a ? 1 : 0;
          }
          OP_REQUIRES(ctx, order > 0,
                      errors::InvalidArgument(p, "indices[", i, "] = ", SparseTupleString(idx, i, rank),
                                              order == 0 ? " is repeated"
                                                         : " is out of order. Many sparse ops require sorted indices.\n"
                                                           "    Use `tf.sparse.reorder` to create a correctly ordered "
                                                           "copy.\n\n"));
        }
      }
      OP_REQUIRES(ctx, in_range,
                  errors::InvalidArgument(p, "Indices are not valid (out of bounds).  Shape: ", shape.DebugString()));
      offsets[i] = offset;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    FillElements(ctx, &default_value, out);
    const bool one_value = values.dims() == 0;
    for (int64_t i = 0; i < n; ++i) CopyElements(values, one_value ? 0 : i, out, offsets[i], 1);
  }

 private:
  // "[2,3]": the dimensions as TensorFlow prints a shape.
  static std::string DimsList(const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t d = 0; d < dims.size(); ++d) s += (d ? "," : "") + std::to_string(dims[d]);
    return s + "]";
  }

  bool validate_ = true;
};

// TensorFlow's CPU dtypes for SparseToDense.
DataTypeVector SparseToDenseTypes() {
  namespace tf = ::tensorflow;
  return {tf::DT_FLOAT,  tf::DT_DOUBLE,    tf::DT_HALF,       tf::DT_BFLOAT16, tf::DT_INT8,   tf::DT_INT16,
          tf::DT_INT32,  tf::DT_INT64,     tf::DT_UINT8,      tf::DT_UINT16,   tf::DT_UINT32, tf::DT_UINT64,
          tf::DT_BOOL,   tf::DT_COMPLEX64, tf::DT_COMPLEX128, tf::DT_QINT8,    tf::DT_QUINT8, tf::DT_QINT16,
          tf::DT_QUINT16, tf::DT_STRING};
}
REGISTER_KERNEL(Name("SparseToDense").Device(DEVICE_CPU).TypeConstraint("T", SparseToDenseTypes()).TypeConstraint(
                    "Tindices", DataTypeVector{::tensorflow::DT_INT32, ::tensorflow::DT_INT64}),
                SparseToDenseOp);

}  // namespace
}  // namespace tensoract
