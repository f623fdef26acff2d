// The stateful random ops on the CPU: RandomUniform, RandomUniformInt,
// RandomStandardNormal, TruncatedNormal, RandomShuffle and RandomPoissonV2, with TensorFlow's generator and
// transforms (kernels/random/philox.h): the same seed and seed2 attributes give
// TensorFlow's numbers.
//
// Each kernel (one per node) owns a Philox generator seeded from the node's seed and seed2
// (both 0: from std::random_device, as TensorFlow does). A run reserves 256 generator calls
// per output element and moves the generator past them, so every run draws fresh numbers;
// within a run, group g of the output (4 floats, halves or bfloat16s, or 2 doubles, per
// call) comes from call g of the reservation (call 256 * g / 4 onwards for the truncated
// normal, which rejects), so the device's threads fill the groups in any order with the
// same result (the filling is kernels/random/fill.h's, which the stateless ops share).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include "kernels/kernel_registry.h"
#include "kernels/random/fill.h"
#include "kernels/random/philox.h"
#include "kernels/random/poisson.h"
#include "kernels/resource_handle.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace {

using Index = Eigen::DenseIndex;
using random::Philox;

// The node's generator: seeded in the constructor, advanced by every run's reservation.
class RandomOpBase : public OpKernel {
 public:
  explicit RandomOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t seed = 0, seed2 = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seed", &seed));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seed2", &seed2));
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      seed = static_cast<int64_t>((static_cast<uint64_t>(rd()) << 32) ^ rd());
      seed2 = static_cast<int64_t>((static_cast<uint64_t>(rd()) << 32) ^ rd());
    }
    generator_ = Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }
  bool IsExpensive() const override { return false; }

 protected:
  // This run's generator: `calls` generator calls are reserved for it.
  Philox Reserve(uint64_t calls) const {
    std::lock_guard<std::mutex> lock(mu_);
    Philox local = generator_;
    generator_.Skip(calls);
    return local;
  }

  // Fills out[0, n) with Dist's values from a fresh reservation (kernels/random/fill.h).
  template <class Dist, class T, class... Args>
  void FillGroups(OpKernelContext* ctx, T* out, Index n, double cycles_per_group, Args... args) const {
    const Philox base = Reserve(static_cast<uint64_t>(n) * random::kReservedCallsPerElement);
    random::FillGroups<Dist>(*ctx->device()->eigen_cpu_device(), base, out, n, cycles_per_group, args...);
  }

  template <class T>
  void FillTruncatedNormal(OpKernelContext* ctx, T* out, Index n) const {
    const Philox base = Reserve(static_cast<uint64_t>(n) * random::kReservedCallsPerElement);
    random::FillTruncatedNormal(*ctx->device()->eigen_cpu_device(), base, out, n);
  }

  // The `shape` input (0) as a TensorShape; InvalidArgument as TensorFlow words it.
  Status ShapeFromInput(OpKernelContext* ctx, TensorShape* shape) const {
    return random::ShapeFromShapeTensor(ctx->input(0), name(), shape);
  }

 private:
  mutable std::mutex mu_;
  mutable Philox generator_;
};

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

template <class T, Distribution kDist>
class RandomOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;
  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(ctx, &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    switch (kDist) {
      case Distribution::kUniform:
        FillGroups<random::Uniform<T>>(ctx, out->base<T>(), out->NumElements(), 20);
        break;
      case Distribution::kNormal:
        FillGroups<random::Normal<T>>(ctx, out->base<T>(), out->NumElements(), 150);
        break;
      case Distribution::kTruncatedNormal:
        FillTruncatedNormal(ctx, out->base<T>(), out->NumElements());
        break;
    }
  }
};

template <class T>
class RandomUniformIntOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;
  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(ctx, &shape));
    const Tensor& minval = ctx->input(1);
    const Tensor& maxval = ctx->input(2);
    OP_REQUIRES(ctx, minval.dims() == 0,
                errors::InvalidArgument("minval must be 0-D, got shape ", minval.shape().DebugString(), " (node '",
                                        name(), "')"));
    OP_REQUIRES(ctx, maxval.dims() == 0,
                errors::InvalidArgument("maxval must be 0-D, got shape ", maxval.shape().DebugString(), " (node '",
                                        name(), "')"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;  // TensorFlow allows any bounds then
    const T lo = minval.base<T>()[0], hi = maxval.base<T>()[0];
    OP_REQUIRES(ctx, lo < hi,
                errors::InvalidArgument("Need minval < maxval: ", lo, " >= ", hi, " (node '", name(), "')"));
    const uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(hi)) - static_cast<uint64_t>(static_cast<int64_t>(lo));
    FillGroups<random::UniformInt<T>>(ctx, out->base<T>(), out->NumElements(), 20, lo, range);
  }
};

// Samples of each rate (input 1, type R) as U: the output is the shape followed by the
// rate's shape. A run reserves 256 calls per output, as the other ops do
// (kernels/random/poisson.h says how each output draws from them).
template <class R, class U>
class RandomPoissonOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;
  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(ctx, &shape));
    const Tensor& rate = ctx->input(1);
    const int64_t num_samples = shape.num_elements();
    std::vector<int64_t> dims = shape.dim_sizes();
    for (int i = 0; i < rate.dims(); ++i) dims.push_back(rate.dim_size(i));
    auto out_shape = TensorShape::FromDims(dims);  // shape + rate's shape may overflow
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (num_samples == 0) return;  // before reserving: such a run moves no generator
    const int64_t num_rate = rate.NumElements();
    OP_REQUIRES_OK(ctx, random::CheckPoissonRates(rate.base<R>(), num_rate, "rate", name()));
    const Philox base = Reserve(static_cast<uint64_t>(num_samples * num_rate) * random::kPoissonCallsPerOutput);
    random::FillPoisson(*ctx->device()->eigen_cpu_device(), base, rate.base<R>(), num_rate, num_samples,
                        out->base<U>());
  }
};

// Permutes the first dimension: whole rows of any dtype move as bytes, strings and
// resource handles as objects.
class RandomShuffleOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (in.dims() == 0 || in.dim_size(0) <= 1 || in.NumElements() <= 1) {
      ctx->set_output(0, in);
      return;
    }
    const int64_t n = in.dim_size(0), row = in.NumElements() / n;
    // TensorFlow's order: n - 1 words reserved (four per call); position i swaps with
    // i + word % (n - i), from the front.
    Philox gen = Reserve((static_cast<uint64_t>(n - 1) + 3) / 4);
    random::SingleSample words(&gen);
    std::vector<int64_t> perm(n);
    for (int64_t i = 0; i < n; ++i) perm[i] = i;
    for (int64_t i = 0; i + 1 < n; ++i) std::swap(perm[i], perm[i + words() % static_cast<uint64_t>(n - i)]);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.dtype() == tensorflow::DT_STRING) {
      Permute(in.base<std::string>(), out->base<std::string>(), perm, row);
    } else if (in.dtype() == tensorflow::DT_RESOURCE) {
      Permute(in.base<ResourceHandle>(), out->base<ResourceHandle>(), perm, row);
    } else {
      const size_t row_bytes = in.TotalBytes() / n;
      const char* src = static_cast<const char*>(in.data());
      char* dst = static_cast<char*>(out->data());
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * row_bytes, src + perm[i] * row_bytes, row_bytes);
    }
  }

 private:
  template <class T>
  static void Permute(const T* src, T* dst, const std::vector<int64_t>& perm, int64_t row) {
    for (size_t i = 0; i < perm.size(); ++i) {
      for (int64_t j = 0; j < row; ++j) dst[i * row + j] = src[perm[i] * row + j];
    }
  }
};

#define TA_REGISTER_RANDOM(T)                                                                           \
  REGISTER_KERNEL(Name("RandomUniform").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),                  \
                  RandomOp<T, Distribution::kUniform>);                                                 \
  REGISTER_KERNEL(Name("RandomStandardNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),           \
                  RandomOp<T, Distribution::kNormal>);                                                  \
  REGISTER_KERNEL(Name("TruncatedNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),                \
                  RandomOp<T, Distribution::kTruncatedNormal>);
TA_REGISTER_RANDOM(Eigen::half)
TA_REGISTER_RANDOM(Eigen::bfloat16)
TA_REGISTER_RANDOM(float)
TA_REGISTER_RANDOM(double)
#undef TA_REGISTER_RANDOM

REGISTER_KERNEL(Name("RandomUniformInt").Device(DEVICE_CPU).TypeConstraint<int32_t>("Tout"),
                RandomUniformIntOp<int32_t>);
REGISTER_KERNEL(Name("RandomUniformInt").Device(DEVICE_CPU).TypeConstraint<int64_t>("Tout"),
                RandomUniformIntOp<int64_t>);
REGISTER_KERNEL(Name("RandomShuffle").Device(DEVICE_CPU), RandomShuffleOp);

// Every rate type with every output type, as TensorFlow registers them.
#define TA_REGISTER_POISSON(R, U)                                                                     \
  REGISTER_KERNEL(Name("RandomPoissonV2").Device(DEVICE_CPU).TypeConstraint<R>("R").TypeConstraint<U>("dtype"), \
                  RandomPoissonOp<R, U>);
TA_FOR_EACH_POISSON_TYPES(TA_REGISTER_POISSON)
#undef TA_REGISTER_POISSON

}  // namespace
}  // namespace tensoract
