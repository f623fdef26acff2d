// Unique and UniqueV2 on the CPU, for the types TensorFlow's CPU kernels take (the real
// number types, bool and string). Slices along the axis (single elements for Unique) are
// numbered in order of first appearance; equality is TensorFlow's, element by element:
// float and double by value (0 and -0 are one value, and so is a denormal under the
// runtime's flush-to-zero, as TensorFlow's zero-hashing map sees it), half and bfloat16
// by their bits (TensorFlow hashes those; so 0 and -0 differ there), integers, bool and
// strings by value; NaN is never equal to anything, so each NaN slice is its own.
#include <Eigen/Core>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

// Appends element v's equality key to `key`; false for a NaN (never equal).
template <class T>
bool AppendUniqueKey(const T& v, std::string* key) {
  if constexpr (std::is_same_v<T, std::string>) {
    const uint64_t n = v.size();
    key->append(reinterpret_cast<const char*>(&n), sizeof(n));
    key->append(v);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (std::isnan(v)) return false;
    const double d = v == T(0) ? 0.0 : static_cast<double>(v);
    key->append(reinterpret_cast<const char*>(&d), sizeof(d));
  } else if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
    if (Eigen::numext::isnan(v)) return false;
    key->append(reinterpret_cast<const char*>(&v), sizeof(v));
  } else {
    key->append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  return true;
}

template <class T, class Index>
class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.NumElements() <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(NodePrefix(*this), "unique does not support input tensors larger than ",
                                        std::numeric_limits<int32_t>::max(), " elements"));
    int64_t axis = 0;
    int64_t outer = 1, n = input.NumElements(), inner = 1;
    bool vector_only = ctx->num_inputs() == 1;
    if (!vector_only) {
      const Tensor& axis_t = ctx->input(1);
      OP_REQUIRES(ctx, axis_t.dims() == 1, errors::InvalidArgument(NodePrefix(*this), "axis expects a 1D vector."));
      OP_REQUIRES(ctx, axis_t.NumElements() <= 1,
                  errors::InvalidArgument(NodePrefix(*this),
                                          "axis does not support input tensors larger than 1 elements"));
      vector_only = axis_t.NumElements() == 0;
      if (!vector_only) {
        axis = IndexValues(axis_t)[0];
        if (axis < 0) axis += input.dims();
        OP_REQUIRES(ctx, axis >= 0 && axis < input.dims(),
                    errors::InvalidArgument(NodePrefix(*this), "axis has to be between [0, ", input.dims(), ")"));
        outer = 1;
        inner = 1;
        for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
        n = input.dim_size(static_cast<int>(axis));
        for (int d = static_cast<int>(axis) + 1; d < input.dims(); ++d) inner *= input.dim_size(d);
      }
    }
    if (vector_only) {
      OP_REQUIRES(ctx, input.dims() == 1, errors::InvalidArgument(NodePrefix(*this), "unique expects a 1D vector."));
    }
    Tensor* idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx));
    const T* in = input.base<T>();
    std::unordered_map<std::string, int64_t> seen;
    std::vector<int64_t> first;  // for each unique slice, the index of its first appearance
    std::string key;
    for (int64_t i = 0; i < n; ++i) {
      key.clear();
      bool comparable = true;
      for (int64_t o = 0; o < outer && comparable; ++o) {
        for (int64_t j = 0; j < inner && comparable; ++j) {
          comparable = AppendUniqueKey(in[(o * n + i) * inner + j], &key);
        }
      }
      int64_t id = static_cast<int64_t>(first.size());
      if (comparable) {
        auto [it, inserted] = seen.emplace(key, id);
        id = it->second;
        if (inserted) first.push_back(i);
      } else {
        first.push_back(i);
      }
      idx->base<Index>()[i] = static_cast<Index>(id);
    }
    const int64_t count = static_cast<int64_t>(first.size());
    std::vector<int64_t> out_dims = input.shape().dim_sizes();
    out_dims[axis] = count;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t u = 0; u < count; ++u) {
        CopyElements(input, (o * n + first[u]) * inner, out, (o * count + u) * inner, inner);
      }
    }
  }
};

#define TA_REGISTER_UNIQUE_INDEX(T, I)                                                                        \
  REGISTER_KERNEL(Name("Unique").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<I>("out_idx"),   \
                  UniqueOp<T, I>);                                                                           \
  REGISTER_KERNEL(Name("UniqueV2").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<I>("out_idx"), \
                  UniqueOp<T, I>)
#define TA_REGISTER_UNIQUE(T)            \
  TA_REGISTER_UNIQUE_INDEX(T, int32_t); \
  TA_REGISTER_UNIQUE_INDEX(T, int64_t)
TA_REGISTER_UNIQUE(float);
TA_REGISTER_UNIQUE(double);
TA_REGISTER_UNIQUE(Eigen::half);
TA_REGISTER_UNIQUE(Eigen::bfloat16);
TA_REGISTER_UNIQUE(int8_t);
TA_REGISTER_UNIQUE(int16_t);
TA_REGISTER_UNIQUE(int32_t);
TA_REGISTER_UNIQUE(int64_t);
TA_REGISTER_UNIQUE(uint8_t);
TA_REGISTER_UNIQUE(uint16_t);
TA_REGISTER_UNIQUE(uint32_t);
TA_REGISTER_UNIQUE(uint64_t);
TA_REGISTER_UNIQUE(bool);
TA_REGISTER_UNIQUE(std::string);
#undef TA_REGISTER_UNIQUE
#undef TA_REGISTER_UNIQUE_INDEX

}  // namespace
}  // namespace tensoract
