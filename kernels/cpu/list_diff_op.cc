// ListDiff on the CPU: the elements of x that are not in y, in x's order, and their
// positions in x. Membership is equality: 0 and -0 are one value, NaN is never in y.
#include <Eigen/Core>
#include <limits>
#include <type_traits>
#include <unordered_set>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

// The value a hash set compares: floating types as double (== semantics, -0 hashes as 0),
// integers as themselves, strings as strings.
template <class T>
auto Key(const T& v) {
  if constexpr (std::is_integral_v<T> || std::is_same_v<T, std::string>) return v;
  else return static_cast<double>(v);
}

template <class T, class Index>
class ListDiffOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, x.dims() == 1, errors::InvalidArgument(NodePrefix(*this), "x should be a 1D vector."));
    OP_REQUIRES(ctx, y.dims() == 1, errors::InvalidArgument(NodePrefix(*this), "y should be a 1D vector."));
    using K = decltype(Key(std::declval<T>()));
    const T* xs = x.base<T>();
    const T* ys = y.base<T>();
    std::unordered_set<K> in_y;
    for (int64_t i = 0; i < y.NumElements(); ++i) in_y.insert(Key(ys[i]));
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (in_y.count(Key(xs[i])) == 0) kept.push_back(i);
    }
    OP_REQUIRES(ctx, x.NumElements() == 0 || static_cast<uint64_t>(x.NumElements() - 1) <=
                                                 static_cast<uint64_t>(std::numeric_limits<Index>::max()),
                errors::InvalidArgument(NodePrefix(*this), "x has ", x.NumElements(),
                                        " elements, more than out_idx can number"));
    const int64_t n = static_cast<int64_t>(kept.size());
    Tensor *out = nullptr, *idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx));
    for (int64_t p = 0; p < n; ++p) {
      out->base<T>()[p] = xs[kept[p]];
      idx->base<Index>()[p] = static_cast<Index>(kept[p]);
    }
  }
};

#define TA_REGISTER_INDEX(T, I)                                                                                \
  REGISTER_KERNEL(Name("ListDiff").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<I>("out_idx"), \
                  ListDiffOp<T, I>)
#define TA_REGISTER(T)            \
  TA_REGISTER_INDEX(T, int32_t); \
  TA_REGISTER_INDEX(T, int64_t)
TA_REGISTER(float);
TA_REGISTER(double);
TA_REGISTER(Eigen::half);
TA_REGISTER(Eigen::bfloat16);
TA_REGISTER(int8_t);
TA_REGISTER(int16_t);
TA_REGISTER(int32_t);
TA_REGISTER(int64_t);
TA_REGISTER(uint8_t);
TA_REGISTER(uint16_t);
TA_REGISTER(uint32_t);
TA_REGISTER(uint64_t);
TA_REGISTER(std::string);
#undef TA_REGISTER
#undef TA_REGISTER_INDEX

}  // namespace
}  // namespace tensoract
