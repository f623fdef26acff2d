// GatherNd and ScatterNd on the CPU. The last dimension of `indices` holds index tuples of
// depth K; each addresses a slice of shape[K:] (params' for GatherNd, the output's for
// ScatterNd). GatherNd copies the slices out, for every dtype; ScatterNd adds the updates'
// slices into zeros in order (strings concatenate, bools or, integers wrap), as TensorFlow's
// kernels do. A tuple out of range is an error naming it, or with bad_indices_policy
// "IGNORE" reads zeros (GatherNd) or is skipped (ScatterNd).
#include <Eigen/Core>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/nd_index.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

// "[1,0]" for tuple 3 of indices shaped [2,2,K]; "" when indices is a single tuple.
std::string TuplePosition(const Tensor& indices, int64_t i) {
  const int outer = indices.dims() - 1;
  if (outer == 0) return "";
  std::vector<int64_t> idx(outer);
  for (int d = outer - 1; d >= 0; --d) {
    idx[d] = i % indices.dim_size(d);
    i /= indices.dim_size(d);
  }
  std::string s = "[";
  for (int d = 0; d < outer; ++d) s += (d ? "," : "") + std::to_string(idx[d]);
  return s + "]";
}

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadBadIndicesPolicy(ctx, &ignore_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    OP_REQUIRES(ctx, params.dims() >= 1,
                errors::InvalidArgument(NodePrefix(*this), "params must be at least a vector"));
    OP_REQUIRES(ctx, indices_t.dims() >= 1,
                errors::InvalidArgument(NodePrefix(*this), "indices must be at least a vector"));
    const int64_t depth = indices_t.dim_size(indices_t.dims() - 1);
    OP_REQUIRES(ctx, depth <= params.dims(),
                errors::InvalidArgument(NodePrefix(*this), "index innermost dimension length must be <= params rank; "
                                                           "saw: ", depth, " vs. ", params.dims()));
    std::vector<int64_t> dims;
    int64_t n = 1, slice = 1;
    for (int d = 0; d + 1 < indices_t.dims(); ++d) {
      dims.push_back(indices_t.dim_size(d));
      n *= indices_t.dim_size(d);
    }
    for (int d = static_cast<int>(depth); d < params.dims(); ++d) {
      dims.push_back(params.dim_size(d));
      slice *= params.dim_size(d);
    }
    OP_REQUIRES(ctx, n == 0 || params.NumElements() > 0,
                errors::InvalidArgument(NodePrefix(*this), "Requested more than 0 entries, but params is empty.  "
                                                           "Params shape: ", params.shape().DebugString()));
    const std::vector<int64_t> idx = IndexValues(indices_t);
    std::vector<int64_t> offsets(n);
    for (int64_t i = 0; i < n; ++i) {
      offsets[i] = SliceOffset(idx, i, depth, params.shape(), slice);
      OP_REQUIRES(ctx, offsets[i] >= 0 || ignore_,
                  errors::InvalidArgument(NodePrefix(*this), "indices", TuplePosition(indices_t, i), " = ",
                                          TupleString(idx, i, depth), " does not index into param shape ",
                                          params.shape().DebugString(), ", node name: ", name()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (out->NumElements() == 0) return;
    if (ignore_) FillElements(ctx, nullptr, out);
    for (int64_t i = 0; i < n; ++i) {
      if (offsets[i] >= 0) CopyElements(params, offsets[i], out, i * slice, slice);  // < 0: ignored, zeros
    }
  }

 private:
  bool ignore_ = false;
};

template <class T>
void Accumulate(T* dst, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    *dst = *dst || v;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    *dst = static_cast<T>(static_cast<U>(*dst) + static_cast<U>(v));
  } else {
    *dst = *dst + v;  // strings concatenate
  }
}

template <class T>
class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadBadIndicesPolicy(ctx, &ignore_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices_t = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    OP_REQUIRES(ctx, indices_t.dims() >= 1,
                errors::InvalidArgument(NodePrefix(*this), "Indices shape must have rank at least one. Found:",
                                        indices_t.shape().DebugString()));
    OP_REQUIRES(ctx, updates.dims() >= 1,
                errors::InvalidArgument(NodePrefix(*this), "Updates shape must have rank at least one. Found:",
                                        updates.shape().DebugString()));
    OP_REQUIRES(ctx, shape_t.dims() == 1, errors::InvalidArgument(NodePrefix(*this), "Shape must be a vector"));
    const std::vector<int64_t> dims = IndexValues(shape_t);
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d >= 0, errors::InvalidArgument(NodePrefix(*this), "Dimension ", d, " must be >= 0"));
    }
    const TensorShape shape(dims);
    OP_REQUIRES(ctx, (indices_t.NumElements() == 0 && updates.NumElements() == 0) ||
                         (shape_t.NumElements() != 0 && indices_t.NumElements() != 0 && updates.NumElements() != 0),
                errors::InvalidArgument(NodePrefix(*this), "Indices and updates specified for empty output shape"));
    const int outer = indices_t.dims() - 1;
    const int64_t depth = indices_t.dim_size(outer);
    bool fits = updates.dims() >= outer;
    for (int d = 0; fits && d < outer; ++d) fits = indices_t.dim_size(d) == updates.dim_size(d);
    // TensorFlow 2.21 crashes (a CHECK) on updates of lower rank than indices' outer part.
    OP_REQUIRES(ctx, fits,
                errors::InvalidArgument(NodePrefix(*this), "Dimensions [0,", outer, ") of indices[shape=",
                                        indices_t.shape().DebugString(), "] must match dimensions [0,", outer,
                                        ") of updates[shape=", updates.shape().DebugString(), "]"));
    fits = depth <= shape.dims() && updates.dims() - outer == shape.dims() - depth;
    for (int d = 0; fits && d + outer < updates.dims(); ++d) {
      fits = updates.dim_size(d + outer) == shape.dim_size(static_cast<int>(depth) + d);
    }
    OP_REQUIRES(ctx, fits,
                errors::InvalidArgument(NodePrefix(*this), "Dimensions [", depth, ",", shape.dims(),
                                        ") of input[shape=", shape.DebugString(), "] must match dimensions [", outer,
                                        ",", updates.dims(), ") of updates[shape=", updates.shape().DebugString(),
                                        "]"));
    OP_REQUIRES(ctx, shape.num_elements() > 0 || (indices_t.NumElements() == 0 && updates.NumElements() == 0),
                errors::InvalidArgument(NodePrefix(*this), "Indices and updates specified for empty output.  "
                                                           "indices shape: ", indices_t.shape().DebugString()));
    int64_t n = 1, slice = 1;
    for (int d = 0; d < outer; ++d) n *= indices_t.dim_size(d);
    for (int d = static_cast<int>(depth); d < shape.dims(); ++d) slice *= shape.dim_size(d);
    const std::vector<int64_t> idx = IndexValues(indices_t);
    std::vector<int64_t> offsets(n);
    for (int64_t i = 0; i < n; ++i) {
      offsets[i] = SliceOffset(idx, i, depth, shape, slice);
      OP_REQUIRES(ctx, offsets[i] >= 0 || ignore_,
                  errors::InvalidArgument(NodePrefix(*this), "indices", TuplePosition(indices_t, i), " = ",
                                          TupleString(idx, i, depth), " does not index into shape ",
                                          shape.DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    FillElements(ctx, nullptr, out);
    T* o = out->base<T>();
    const T* u = updates.base<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (offsets[i] < 0) continue;  // ignored
      for (int64_t k = 0; k < slice; ++k) Accumulate(o + offsets[i] + k, u[i * slice + k]);
    }
  }

 private:
  bool ignore_ = false;
};

// TensorFlow's CPU dtypes for GatherNd, less DT_RESOURCE and DT_VARIANT.
DataTypeVector GatherNdTypes() {
  namespace tf = ::tensorflow;
  return {tf::DT_FLOAT,   tf::DT_DOUBLE,    tf::DT_HALF,       tf::DT_BFLOAT16,      tf::DT_INT8,
          tf::DT_INT16,   tf::DT_INT32,     tf::DT_INT64,      tf::DT_UINT8,         tf::DT_UINT16,
          tf::DT_UINT32,  tf::DT_UINT64,    tf::DT_BOOL,       tf::DT_COMPLEX64,     tf::DT_COMPLEX128,
          tf::DT_QINT8,   tf::DT_QUINT8,    tf::DT_QINT32,     tf::DT_FLOAT8_E5M2,   tf::DT_FLOAT8_E4M3FN,
          tf::DT_STRING};
}
REGISTER_KERNEL(Name("GatherNd").Device(DEVICE_CPU).TypeConstraint("Tparams", GatherNdTypes()), GatherNdOp);

// TensorFlow's CPU kernels take int32 and int64 indices only.
#define TA_REGISTER(T)                                                                                \
  REGISTER_KERNEL(Name("ScatterNd").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint(        \
                      "Tindices", DataTypeVector{::tensorflow::DT_INT32, ::tensorflow::DT_INT64}), \
                  ScatterNdOp<T>)
TA_CALL_NUMBER_TYPES(TA_REGISTER);
TA_REGISTER(bool);
TA_REGISTER(std::string);
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
