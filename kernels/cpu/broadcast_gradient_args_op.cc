// BroadcastGradientArgs: for shapes s0 and s1 of a broadcasting op's inputs, the axes of
// the broadcast result that each input's gradient must be summed over. TensorFlow's BCast
// rule: equal shapes need none; otherwise, with both shapes padded on the left with 1s to
// the larger rank, input i is reduced over every axis where its padded size is 1.
// BroadcastArgs: the broadcast shape itself, by the same rule (sizes are taken as given,
// negative ones too, as TensorFlow's BCast takes them).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

template <class T>
class BroadcastGradientArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& s = ctx->input(i);
      OP_REQUIRES(ctx, s.dims() == 1,
                  errors::InvalidArgument("node '", name(), "' (BroadcastGradientArgs): In[", i,
                                          "] must be a vector.", s.shape().DebugString()));
      shapes[i].assign(s.base<T>(), s.base<T>() + s.NumElements());
    }
    std::vector<T> reduce[2];
    if (shapes[0] != shapes[1]) {
      const size_t rank = std::max(shapes[0].size(), shapes[1].size());
      std::vector<int64_t> padded[2];
      for (int i = 0; i < 2; ++i) {
        padded[i].assign(rank - shapes[i].size(), 1);
        padded[i].insert(padded[i].end(), shapes[i].begin(), shapes[i].end());
      }
      for (size_t j = 0; j < rank; ++j) {
        const int64_t a = padded[0][j], b = padded[1][j];
        OP_REQUIRES(ctx, a == b || a == 1 || b == 1,
                    errors::InvalidArgument("node '", name(), "' (BroadcastGradientArgs): Incompatible shapes: ",
                                            TensorShape(shapes[0]).DebugString(), " vs. ",
                                            TensorShape(shapes[1]).DebugString()));
        for (int i = 0; i < 2; ++i) {
          if (padded[i][j] == 1) reduce[i].push_back(static_cast<T>(j));
        }
      }
    }
    for (int i = 0; i < 2; ++i) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({static_cast<int64_t>(reduce[i].size())}), &out));
      std::copy(reduce[i].begin(), reduce[i].end(), out->base<T>());
    }
  }
};

// "[2,1,3]", for sizes a TensorShape would refuse (negative ones) too.
std::string BroadcastShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

template <class T>
class BroadcastArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& s = ctx->input(i);
      OP_REQUIRES(ctx, s.dims() == 1,
                  errors::InvalidArgument("node '", name(), "' (BroadcastArgs): In[", i, "] must be a vector.",
                                          s.shape().DebugString()));
      shapes[i].assign(s.base<T>(), s.base<T>() + s.NumElements());
    }
    const size_t rank = std::max(shapes[0].size(), shapes[1].size());
    std::vector<T> result(rank);
    for (size_t j = 0; j < rank; ++j) {
      // Dimension j from the right of each shape (1 where the shape is shorter).
      const size_t k = rank - 1 - j;
      const int64_t a = k < shapes[0].size() ? shapes[0][shapes[0].size() - 1 - k] : 1;
      const int64_t b = k < shapes[1].size() ? shapes[1][shapes[1].size() - 1 - k] : 1;
      OP_REQUIRES(ctx, a == b || a == 1 || b == 1,
                  errors::InvalidArgument("node '", name(), "' (BroadcastArgs): Incompatible shapes: ",
                                          BroadcastShapeString(shapes[0]), " vs. ", BroadcastShapeString(shapes[1])));
      result[j] = static_cast<T>(a == 1 ? b : a);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({static_cast<int64_t>(rank)}), &out));
    std::copy(result.begin(), result.end(), out->base<T>());
  }
};

REGISTER_KERNEL(Name("BroadcastArgs").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"), BroadcastArgsOp<int32_t>);
REGISTER_KERNEL(Name("BroadcastArgs").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"), BroadcastArgsOp<int64_t>);

REGISTER_KERNEL(Name("BroadcastGradientArgs").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
                BroadcastGradientArgsOp<int32_t>);
REGISTER_KERNEL(Name("BroadcastGradientArgs").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
                BroadcastGradientArgsOp<int64_t>);

}  // namespace
}  // namespace tensoract
