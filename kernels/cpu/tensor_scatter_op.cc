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

#include "kernels/cpu/nd_index.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

enum class ScatterKind { kAdd, kSub, kMax, kMin };

template <ScatterKind K, class T>
void ApplyUpdate(T* dst, const T& u) {
  if constexpr (K == ScatterKind::kAdd || K == ScatterKind::kSub) {
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

// TensorFlow's CPU dtypes of TensorScatterUpdate: the number types, bool and string.
DataTypeVector TensorScatterUpdateTypes() {
  namespace tf = ::tensorflow;
  return {tf::DT_FLOAT,  tf::DT_DOUBLE, tf::DT_HALF,   tf::DT_BFLOAT16,  tf::DT_INT8,      tf::DT_INT16,
          tf::DT_INT32,  tf::DT_INT64,  tf::DT_UINT8,  tf::DT_UINT16,    tf::DT_UINT32,    tf::DT_UINT64,
          tf::DT_COMPLEX64, tf::DT_COMPLEX128, tf::DT_BOOL, tf::DT_STRING};
}

// Where each update slice goes: its first element's offset in the output (-1: an index
// out of range skipped under "IGNORE"), and the slice's length in elements.
struct ScatterPlan {
  std::vector<int64_t> offsets;
  int64_t slice = 0;
};

// Everything but the arithmetic, the same for every dtype and kind (so that it is compiled
// once, not for each of the ~60 kernels): the checks, the output (a copy of `tensor`, or
// its buffer forwarded) and the plan. False when the kernel must stop: an error is set, or
// there is nothing to scatter.
class TensorScatterBase : public OpKernel {
 public:
  explicit TensorScatterBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadBadIndicesPolicy(ctx, &ignore_);
    if (!s.ok()) ctx->SetStatus(Status(s.code(), NodePrefix(*this) + s.message()));
  }

 protected:
  bool Prepare(OpKernelContext* ctx, Tensor** out, ScatterPlan* plan) const {
    const Tensor& tensor = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    const std::string p = NodePrefix(*this);
    if (indices.dims() < 1) {
      ctx->SetStatus(errors::InvalidArgument(p, "Indices shape must have rank at least one. Found:",
                                             indices.shape().DebugString()));
      return false;
    }
    if (updates.dims() < 1) {
      ctx->SetStatus(errors::InvalidArgument(p, "Updates shape must have rank at least one. Found:",
                                             updates.shape().DebugString()));
      return false;
    }
    const TensorShape& shape = tensor.shape();
    const bool empty_ok = (indices.NumElements() == 0 && updates.NumElements() == 0) ||
                          (shape.num_elements() != 0 && indices.NumElements() != 0 && updates.NumElements() != 0);
    if (!empty_ok) {
      ctx->SetStatus(errors::InvalidArgument(p, "Indices and updates specified for empty output shape"));
      return false;
    }
    const int outer = indices.dims() - 1;
    bool outer_match = updates.dims() >= outer;
    for (int d = 0; outer_match && d < outer; ++d) outer_match = indices.dim_size(d) == updates.dim_size(d);
    if (!outer_match) {
      ctx->SetStatus(errors::InvalidArgument(p, "Outer dimensions of indices and update must match. Indices shape: ",
                                             indices.shape().DebugString(), ", updates shape:",
                                             updates.shape().DebugString()));
      return false;
    }
    const int64_t depth = indices.dim_size(outer);
    if (updates.dims() - outer != shape.dims() - depth) {
      ctx->SetStatus(errors::InvalidArgument(p, "Inner dimensions of output shape must match inner dimensions of "
                                                "updates shape. Output: ", shape.DebugString(),
                                             " updates: ", updates.shape().DebugString()));
      return false;
    }
    for (int d = 0; d + outer < updates.dims(); ++d) {
      if (updates.dim_size(d + outer) != shape.dim_size(static_cast<int>(depth) + d)) {
        ctx->SetStatus(errors::InvalidArgument(p, "The inner ", shape.dims() - depth, " dimensions of output.shape=",
                                               shape.DebugString(), " must match the inner ", updates.dims() - outer,
                                               " dimensions of updates.shape=", updates.shape().DebugString()));
        return false;
      }
    }
    Status s = ctx->forward_input_or_allocate_output(0, 0, shape, out);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return false;
    }
    if ((*out)->data() != tensor.data() && tensor.NumElements() > 0) CopyElements(tensor, 0, *out, 0, tensor.NumElements());
    if (shape.num_elements() == 0) return false;  // nothing to scatter into, whatever the depth
    // DoScatterNd's own checks: a scalar tensor, rank-1 indices (one index per update, which
    // the checks above leave only for no updates) and the depths it supports.
    if (shape.dims() < 1) {
      ctx->SetStatus(errors::InvalidArgument(p, "Output must be at least 1-D, got shape: ", shape.DebugString()));
      return false;
    }
    if (updates.dim_size(0) != indices.dim_size(0)) {
      ctx->SetStatus(errors::InvalidArgument(p, "Dimensions [0,1) of indices[shape=", indices.shape().DebugString(),
                                             "] = ", indices.dim_size(0),
                                             " must match dimensions [0,1) of updates[shape=",
                                             updates.shape().DebugString(), "] = ", updates.dim_size(0)));
      return false;
    }
    if (outer == 0) {
      bool fits = updates.dims() == shape.dims();
      for (int d = 1; fits && d < updates.dims(); ++d) fits = updates.dim_size(d) == shape.dim_size(d);
      if (!fits) {
        ctx->SetStatus(errors::InvalidArgument(p, "Dimensions [1,", shape.dims(), ") of input[shape=",
                                               shape.DebugString(), "] must match dimensions [1,", updates.dims(),
                                               ") of updates[shape=", updates.shape().DebugString(), "]"));
      }
      return false;  // no updates: the checks above leave rank-1 indices only when they are empty
    }
    if (depth < 1 || depth > 5) {
      ctx->SetStatus(errors::InvalidArgument(p, "Only indices.shape[-1] values between 1 and 5 are currently "
                                                "supported.  Requested rank: ", depth));
      return false;
    }
    int64_t n = 1;
    plan->slice = 1;
    for (int d = 0; d < outer; ++d) n *= indices.dim_size(d);
    for (int d = static_cast<int>(depth); d < shape.dims(); ++d) plan->slice *= shape.dim_size(d);
    const std::vector<int64_t> idx = IndexValues(indices);
    plan->offsets.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      plan->offsets[i] = SliceOffset(idx, i, depth, shape, plan->slice);
      if (plan->offsets[i] < 0 && !ignore_) {
        ctx->SetStatus(errors::InvalidArgument(p, "indices[", i, "] = ", TupleString(idx, i, depth),
                                               " does not index into shape ", shape.DebugString()));
        return false;
      }
    }
    return true;
  }

 private:
  bool ignore_ = false;
};

// TensorScatterUpdate: each slice's elements moved as they are (by size; strings by value),
// one kernel for every dtype. The last write wins.
class TensorScatterUpdateOp : public TensorScatterBase {
 public:
  using TensorScatterBase::TensorScatterBase;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    ScatterPlan plan;
    if (!Prepare(ctx, &out, &plan)) return;
    const Tensor& updates = ctx->input(2);
    for (size_t i = 0; i < plan.offsets.size(); ++i) {
      if (plan.offsets[i] >= 0) CopyElements(updates, static_cast<int64_t>(i) * plan.slice, out, plan.offsets[i], plan.slice);
    }
  }
};

template <ScatterKind K, class T>
class TensorScatterOp : public TensorScatterBase {
 public:
  using TensorScatterBase::TensorScatterBase;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    ScatterPlan plan;
    if (!Prepare(ctx, &out, &plan)) return;
    T* o = out->base<T>();
    const T* u = ctx->input(2).base<T>();
    const int64_t slice = plan.slice;
    for (size_t i = 0; i < plan.offsets.size(); ++i) {
      if (plan.offsets[i] < 0) continue;
      T* dst = o + plan.offsets[i];
      const T* src = u + static_cast<int64_t>(i) * slice;
      for (int64_t k = 0; k < slice; ++k) ApplyUpdate<K>(dst + k, src[k]);
    }
  }
};

REGISTER_KERNEL(Name("TensorScatterUpdate")
                    .Device(DEVICE_CPU)
                    .TypeConstraint("T", TensorScatterUpdateTypes())
                    .TypeConstraint("Tindices", DataTypeVector{::tensorflow::DT_INT32, ::tensorflow::DT_INT64}),
                TensorScatterUpdateOp);
#define TA_REGISTER_SCATTER(NAME, KIND, T)                                                             \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint(                 \
                      "Tindices", DataTypeVector{::tensorflow::DT_INT32, ::tensorflow::DT_INT64}), \
                  TensorScatterOp<ScatterKind::KIND, T>)
#define TA_REGISTER_ARITHMETIC(T)                    \
  TA_REGISTER_SCATTER("TensorScatterAdd", kAdd, T); \
  TA_REGISTER_SCATTER("TensorScatterSub", kSub, T)
#define TA_REGISTER_ORDERED(T)                         \
  TA_REGISTER_SCATTER("TensorScatterMax", kMax, T);   \
  TA_REGISTER_SCATTER("TensorScatterMin", kMin, T)
TA_CALL_NUMBER_TYPES(TA_REGISTER_ARITHMETIC);
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
