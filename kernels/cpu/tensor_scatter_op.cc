// TensorScatterUpdate, TensorScatterAdd, TensorScatterSub, TensorScatterMax and
// TensorScatterMin on the CPU: a copy of `tensor` with each update slice applied at its index
// tuple (indices' last dimension), in order: Update's last write wins, Add and Sub wrap for
// integers, Max and Min keep the element unless the update compares larger (smaller), so a
// NaN element stays and a NaN update is dropped (Eigen's cwiseMax/cwiseMin, TensorFlow's).
//
// The checks and their order are TensorFlow 2.21's TensorScatterOp and DoScatterNd: ranks,
// empty shapes, indices' outer dimensions against updates', updates' inner dimensions against
// tensor's, then every tuple in range (or skipped with bad_indices_policy "IGNORE"). Indices
// of rank 1 are TensorFlow's "one index per update" there, which its checks before always
// refuse. Dtypes and index types (int32, int64) are TensorFlow's CPU kernels'.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

enum class ScatterKind { kUpdate, kAdd, kSub, kMax, kMin };

template <ScatterKind K, class T>
void ApplyUpdate(T* dst, const T& u) {
  if constexpr (K == ScatterKind::kUpdate) {
    *dst = u;
  } else if constexpr (K == ScatterKind::kAdd || K == ScatterKind::kSub) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      *dst = static_cast<T>(K == ScatterKind::kAdd ? static_cast<U>(*dst) + static_cast<U>(u)
                                                   : static_cast<U>(*dst) - static_cast<U>(u));
    } else {
      *dst = K == ScatterKind::kAdd ? T(*dst + u) : T(*dst - u);
    }
  } else if constexpr (K == ScatterKind::kMax) {
    if (*dst < u) *dst = u;
  } else {
    if (u < *dst) *dst = u;
  }
}

template <ScatterKind K, class T>
class TensorScatterOp : public OpKernel {
 public:
  explicit TensorScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string policy;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_indices_policy", &policy));
    OP_REQUIRES(ctx, policy.empty() || policy == "DEFAULT" || policy == "ERROR" || policy == "IGNORE",
                errors::InvalidArgument(NodePrefix(*this), "Unknown bad indices handling attribute: ", policy));
    ignore_ = policy == "IGNORE";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tensor = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    const std::string p = NodePrefix(*this);
    OP_REQUIRES(ctx, indices.dims() >= 1,
                errors::InvalidArgument(p, "Indices shape must have rank at least one. Found:",
                                        indices.shape().DebugString()));
    OP_REQUIRES(ctx, updates.dims() >= 1,
                errors::InvalidArgument(p, "Updates shape must have rank at least one. Found:",
                                        updates.shape().DebugString()));
    const TensorShape& shape = tensor.shape();
    const bool empty_ok = (indices.NumElements() == 0 && updates.NumElements() == 0) ||
                          (shape.num_elements() != 0 && indices.NumElements() != 0 && updates.NumElements() != 0);
    OP_REQUIRES(ctx, empty_ok, errors::InvalidArgument(p, "Indices and updates specified for empty output shape"));
    const int outer = indices.dims() - 1;
    bool outer_match = updates.dims() >= outer;
    for (int d = 0; outer_match && d < outer; ++d) outer_match = indices.dim_size(d) == updates.dim_size(d);
    OP_REQUIRES(ctx, outer_match,
                errors::InvalidArgument(p, "Outer dimensions of indices and update must match. Indices shape: ",
                                        indices.shape().DebugString(), ", updates shape:",
                                        updates.shape().DebugString()));
    const int64_t depth = indices.dim_size(outer);
    OP_REQUIRES(ctx, updates.dims() - outer == shape.dims() - depth,
                errors::InvalidArgument(p, "Inner dimensions of output shape must match inner dimensions of "
                                           "updates shape. Output: ", shape.DebugString(),
                                        " updates: ", updates.shape().DebugString()));
    for (int d = 0; d + outer < updates.dims(); ++d) {
      OP_REQUIRES(ctx, updates.dim_size(d + outer) == shape.dim_size(static_cast<int>(depth) + d),
                  errors::InvalidArgument(p, "The inner ", shape.dims() - depth, " dimensions of output.shape=",
                                          shape.DebugString(), " must match the inner ", updates.dims() - outer,
                                          " dimensions of updates.shape=", updates.shape().DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, shape, &out));
    if (out->data() != tensor.data() && tensor.NumElements() > 0) CopyElements(tensor, 0, out, 0, tensor.NumElements());
    if (shape.num_elements() == 0) return;  // nothing to scatter into, whatever the depth
    // DoScatterNd's own checks: a scalar tensor, rank-1 indices (one index per update, which
    // the checks above leave only for no updates) and the depths it supports.
    OP_REQUIRES(ctx, shape.dims() >= 1,
                errors::InvalidArgument(p, "Output must be at least 1-D, got shape: ", shape.DebugString()));
    OP_REQUIRES(ctx, updates.dim_size(0) == indices.dim_size(0),
                errors::InvalidArgument(p, "Dimensions [0,1) of indices[shape=", indices.shape().DebugString(),
                                        "] = ", indices.dim_size(0), " must match dimensions [0,1) of updates[shape=",
                                        updates.shape().DebugString(), "] = ", updates.dim_size(0)));
    if (outer == 0) {
      bool fits = updates.dims() == shape.dims();
      for (int d = 1; fits && d < updates.dims(); ++d) fits = updates.dim_size(d) == shape.dim_size(d);
      OP_REQUIRES(ctx, fits,
                  errors::InvalidArgument(p, "Dimensions [1,", shape.dims(), ") of input[shape=", shape.DebugString(),
                                          "] must match dimensions [1,", updates.dims(), ") of updates[shape=",
                                          updates.shape().DebugString(), "]"));
      return;  // no updates: the checks above leave rank-1 indices only when they are empty
    }
    OP_REQUIRES(ctx, depth >= 1 && depth <= 5,
                errors::InvalidArgument(p, "Only indices.shape[-1] values between 1 and 5 are currently supported.  "
                                           "Requested rank: ", depth));
    int64_t n = 1, slice = 1;
    for (int d = 0; d < outer; ++d) n *= indices.dim_size(d);
    for (int d = static_cast<int>(depth); d < shape.dims(); ++d) slice *= shape.dim_size(d);
    const std::vector<int64_t> idx = IndexValues(indices);
    T* o = out->base<T>();
    const T* u = updates.base<T>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      bool in_range = true;
      for (int64_t j = 0; j < depth; ++j) {
        const int64_t v = idx[i * depth + j], size = shape.dim_size(static_cast<int>(j));
        in_range = in_range && v >= 0 && v < size;
        offset = offset * size + v;
      }
      if (!in_range) {
        if (ignore_) continue;
        std::string tuple;
        for (int64_t j = 0; j < depth; ++j) tuple += (j ? ", " : "") + std::to_string(idx[i * depth + j]);
        ctx->SetStatus(errors::InvalidArgument(p, "indices[", i, "] = [", tuple, "] does not index into shape ",
                                               shape.DebugString()));
        return;
      }
      T* dst = o + offset * slice;
      for (int64_t k = 0; k < slice; ++k) ApplyUpdate<K>(dst + k, u[i * slice + k]);
    }
  }

 private:
  bool ignore_ = false;
};

#define TA_REGISTER_SCATTER(NAME, KIND, T)                                                             \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint(                 \
                      "Tindices", DataTypeVector{::tensorflow::DT_INT32, ::tensorflow::DT_INT64}), \
                  TensorScatterOp<ScatterKind::KIND, T>)
#define TA_REGISTER_ARITHMETIC(T)                          \
  TA_REGISTER_SCATTER("TensorScatterUpdate", kUpdate, T); \
  TA_REGISTER_SCATTER("TensorScatterAdd", kAdd, T);       \
  TA_REGISTER_SCATTER("TensorScatterSub", kSub, T)
#define TA_REGISTER_ORDERED(T)                         \
  TA_REGISTER_SCATTER("TensorScatterMax", kMax, T);   \
  TA_REGISTER_SCATTER("TensorScatterMin", kMin, T)
TA_CALL_NUMBER_TYPES(TA_REGISTER_ARITHMETIC);
TA_REGISTER_SCATTER("TensorScatterUpdate", kUpdate, bool);
TA_REGISTER_SCATTER("TensorScatterUpdate", kUpdate, std::string);
TA_REGISTER_ORDERED(float);
TA_REGISTER_ORDERED(double);
TA_REGISTER_ORDERED(Eigen::half);
TA_REGISTER_ORDERED(Eigen::bfloat16);
TA_REGISTER_ORDERED(int8_t);
TA_REGISTER_ORDERED(int16_t);
TA_REGISTER_ORDERED(int32_t);
TA_REGISTER_ORDERED(int64_t);
TA_REGISTER_ORDERED(uint8_t);
TA_REGISTER_ORDERED(uint16_t);
TA_REGISTER_ORDERED(uint32_t);
TA_REGISTER_ORDERED(uint64_t);
#undef TA_REGISTER_ORDERED
#undef TA_REGISTER_ARITHMETIC
#undef TA_REGISTER_SCATTER

}  // namespace
}  // namespace tensoract
