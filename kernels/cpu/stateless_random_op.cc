// The stateless random ops on the CPU, TensorFlow's numbers bit for bit: the V1 ops
// (StatelessRandomUniform ... StatelessRandomUniformFullInt, a seed pair in), the V2 ops
// (StatelessRandomUniformV2 ..., a Philox key, counter and algorithm id in) and the ops that
// make a key and counter from a seed.
//
// The generator comes from the seed (kernels/random/stateless.h) or the key and counter, and
// the output is filled as the stateful ops fill theirs (kernels/random/fill.h): group g of
// the output from the generator moved g calls ahead. Nothing is kept between runs.
//
// Refusals, checked in TensorFlow's order: V2's algorithm input (a scalar), its key ([1]) and
// counter (a vector at least `alg` long: TensorFlow passes the id where it means the
// algorithm's counter length), then the shape, V1's seed ([2]); an empty output is then
// returned, whatever the bounds, seed type or algorithm; then the seed's type (int32 or
// int64), the integer bounds (scalars, minval < maxval), and last the algorithm: Philox, or
// auto-select (Philox); ThreeFry has no CPU kernel in TensorFlow either. One refusal is ours
// alone: a Philox counter shorter than 2, past whose end TensorFlow 2.21 reads.
#include <cstdint>

#include "kernels/kernel_registry.h"
#include "kernels/random/fill.h"
#include "kernels/random/philox.h"
#include "kernels/random/poisson.h"
#include "kernels/random/stateless.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace {

using random::Philox;

enum class Inputs { kSeed, kKeyCounterAlg };  // V1 and V2

// Validates the inputs, allocates the output and, when it is not empty, has Fill fill it.
template <Inputs kInputs>
class StatelessRandomOpBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    int alg = random::kRngAlgPhilox;
    if (kInputs == Inputs::kKeyCounterAlg) OP_REQUIRES_OK(ctx, ReadAlgKeyCounter(ctx, &alg));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, random::ShapeFromShapeTensor(ctx->input(0), name(), &shape));
    if (kInputs == Inputs::kSeed) OP_REQUIRES_OK(ctx, CheckSeedShape(ctx->input(1), name()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    Philox gen;
    if (kInputs == Inputs::kSeed) {
      OP_REQUIRES_OK(ctx, GeneratorFromSeed(ctx->input(1), name(), &gen));
    } else {
      const uint64_t* counter = ctx->input(2).base<uint64_t>();
      gen = random::GeneratorFromKeyCounter(ctx->input(1).base<uint64_t>()[0], counter[0], counter[1]);
    }
    Fill(ctx, alg, gen, out);
  }

  static Status CheckSeedShape(const Tensor& seed, const std::string& node) {
    if (seed.dims() == 1 && seed.dim_size(0) == 2) return Status::OK();
    return errors::InvalidArgument("seed must have shape [2], not ", seed.shape().DebugString(), " (node '", node,
                                   "')");
  }

  static Status GeneratorFromSeed(const Tensor& seed, const std::string& node, Philox* gen) {
    // int32 seeds are sign-extended: [-1, -1] is the int64 seed [-1, -1].
    if (seed.dtype() == tensorflow::DT_INT32) {
      const int32_t* s = seed.base<int32_t>();
      *gen = random::GeneratorFromSeed(static_cast<uint64_t>(int64_t{s[0]}), static_cast<uint64_t>(int64_t{s[1]}));
    } else if (seed.dtype() == tensorflow::DT_INT64) {
      const int64_t* s = seed.base<int64_t>();
      *gen = random::GeneratorFromSeed(static_cast<uint64_t>(s[0]), static_cast<uint64_t>(s[1]));
    } else {
      return errors::InvalidArgument("Invalid seed type: ", DataTypeString(seed.dtype()), " (node '", node, "')");
    }
    return Status::OK();
  }

 protected:
  // Fills `out` (not empty); refuses an algorithm other than Philox with CheckAlg.
  virtual void Fill(OpKernelContext* ctx, int alg, const Philox& gen, Tensor* out) = 0;

  Status CheckAlg(int alg) const {
    if (alg == random::kRngAlgPhilox) return Status::OK();
    return errors::InvalidArgument("Unsupported algorithm id: ", alg, " (node '", name(), "')");
  }

  const Eigen::ThreadPoolDevice& device(OpKernelContext* ctx) const { return *ctx->device()->eigen_cpu_device(); }

 private:
  Status ReadAlgKeyCounter(OpKernelContext* ctx, int* alg) const {
    const Tensor& alg_t = ctx->input(3);
    if (alg_t.dims() != 0) {
      return errors::InvalidArgument("input 3 (0-based) must have shape [], not ", alg_t.shape().DebugString(),
                                     " (node '", name(), "')");
    }
    *alg = alg_t.base<int32_t>()[0];
    if (*alg == random::kRngAlgAutoSelect) *alg = random::kRngAlgPhilox;
    const Tensor& key = ctx->input(1);
    if (key.dims() != 1 || key.dim_size(0) != 1) {
      return errors::InvalidArgument("key must have shape [1], not ", key.shape().DebugString(),
                                     ". (Note that batched keys are not supported yet.) (node '", name(), "')");
    }
    // TensorFlow 2.21 asks for a counter at least as long as the algorithm's id (1 for
    // Philox, 2 for ThreeFry, 0 for an unknown id 0), where it means the algorithm's
    // counter length; its refusals are kept.
    const Tensor& counter = ctx->input(2);
    if (counter.dims() != 1 || counter.dim_size(0) < *alg) {
      return errors::InvalidArgument("counter must be a vector with length at least ", *alg, "; got shape: ",
                                     counter.shape().DebugString(),
                                     ". (Note that batched counters are not supported yet.) (node '", name(), "')");
    }
    // Philox's counter is two words; TensorFlow reads a second one past the end of a
    // counter of length 1 (a different number each run). Refused here.
    if (*alg == random::kRngAlgPhilox && counter.dim_size(0) < 2) {
      return errors::InvalidArgument("counter must be a vector with length at least 2 for Philox; got shape: ",
                                     counter.shape().DebugString(), " (node '", name(), "')");
    }
    return Status::OK();
  }
};

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

template <Inputs kInputs, class T, Distribution kDist>
class StatelessRandomOp : public StatelessRandomOpBase<kInputs> {
 public:
  using StatelessRandomOpBase<kInputs>::StatelessRandomOpBase;

 protected:
  void Fill(OpKernelContext* ctx, int alg, const Philox& gen, Tensor* out) override {
    OP_REQUIRES_OK(ctx, this->CheckAlg(alg));
    const auto& device = this->device(ctx);
    switch (kDist) {
      case Distribution::kUniform:
        random::FillGroups<random::Uniform<T>>(device, gen, out->base<T>(), out->NumElements(), 20);
        break;
      case Distribution::kNormal:
        random::FillGroups<random::Normal<T>>(device, gen, out->base<T>(), out->NumElements(), 150);
        break;
      case Distribution::kTruncatedNormal:
        random::FillTruncatedNormal(device, gen, out->base<T>(), out->NumElements());
        break;
    }
  }
};

// Integers in [minval, maxval): inputs 2 and 3 (V1) or 4 and 5 (V2).
template <Inputs kInputs, class T>
class StatelessRandomUniformIntOp : public StatelessRandomOpBase<kInputs> {
 public:
  using StatelessRandomOpBase<kInputs>::StatelessRandomOpBase;

 protected:
  void Fill(OpKernelContext* ctx, int alg, const Philox& gen, Tensor* out) override {
    constexpr int kMin = kInputs == Inputs::kSeed ? 2 : 4;
    const Tensor& minval = ctx->input(kMin);
    const Tensor& maxval = ctx->input(kMin + 1);
    OP_REQUIRES(ctx, minval.dims() == 0,
                errors::InvalidArgument("minval must be 0-D, got shape ", minval.shape().DebugString(), " (node '",
                                        this->name(), "')"));
    OP_REQUIRES(ctx, maxval.dims() == 0,
                errors::InvalidArgument("maxval must be 0-D, got shape ", maxval.shape().DebugString(), " (node '",
                                        this->name(), "')"));
    const T lo = minval.base<T>()[0], hi = maxval.base<T>()[0];
    OP_REQUIRES(ctx, lo < hi,
                errors::InvalidArgument("Need minval < maxval, got ", lo, " >= ", hi, " (node '", this->name(),
                                        "')"));
    OP_REQUIRES_OK(ctx, this->CheckAlg(alg));
    // hi - lo in the unsigned type: it overflows the signed one when lo < 0 < hi.
    const uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(hi)) - static_cast<uint64_t>(static_cast<int64_t>(lo));
    random::FillGroups<random::UniformInt<T>>(this->device(ctx), gen, out->base<T>(), out->NumElements(), 20, lo,
                                              range);
  }
};

template <Inputs kInputs, class T>
class StatelessRandomUniformFullIntOp : public StatelessRandomOpBase<kInputs> {
 public:
  using StatelessRandomOpBase<kInputs>::StatelessRandomOpBase;

 protected:
  void Fill(OpKernelContext* ctx, int alg, const Philox& gen, Tensor* out) override {
    OP_REQUIRES_OK(ctx, this->CheckAlg(alg));
    random::FillGroups<random::UniformFullInt<T>>(this->device(ctx), gen, out->base<T>(), out->NumElements(), 20);
  }
};

// StatelessRandomPoisson: samples of lam (input 2, rate type R) as U; the shape must end
// with lam's, each of lam's positions drawing its own samples (kernels/random/poisson.h).
template <class R, class U>
class StatelessRandomPoissonOp : public StatelessRandomOpBase<Inputs::kSeed> {
 public:
  using StatelessRandomOpBase<Inputs::kSeed>::StatelessRandomOpBase;

 protected:
  void Fill(OpKernelContext* ctx, int /*alg*/, const Philox& gen, Tensor* out) override {
    const Tensor& lam = ctx->input(2);
    const TensorShape& shape = out->shape();
    bool ends_with = shape.dims() >= lam.dims();
    for (int i = 0; ends_with && i < lam.dims(); ++i) {
      ends_with = shape.dim_size(shape.dims() - lam.dims() + i) == lam.dim_size(i);
    }
    OP_REQUIRES(ctx, ends_with,
                errors::InvalidArgument("Shape passed in must end with broadcasted shape. (node '", name(),
                                        "': shape ", shape.DebugString(), ", lam ", lam.shape().DebugString(), ")"));
    const int64_t num_rate = lam.NumElements();  // not 0: the output is not empty
    OP_REQUIRES_OK(ctx, random::CheckPoissonRates(lam.base<R>(), num_rate, "lam", name()));
    random::FillPoisson(device(ctx), gen, lam.base<R>(), num_rate, out->NumElements() / num_rate, out->base<U>());
  }
};

// StatelessRandomGetKeyCounter(Alg): the key and counter (and algorithm) the V2 ops take to
// draw what the V1 ops draw from the same seed.
class GetKeyCounterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(0);
    using Base = StatelessRandomOpBase<Inputs::kSeed>;
    OP_REQUIRES_OK(ctx, Base::CheckSeedShape(seed, name()));
    Tensor *key = nullptr, *counter = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({1}), &key));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({2}), &counter));
    Philox gen;
    OP_REQUIRES_OK(ctx, Base::GeneratorFromSeed(seed, name(), &gen));
    key->base<uint64_t>()[0] = random::Join(gen.key()[0], gen.key()[1]);
    counter->base<uint64_t>()[0] = random::Join(gen.counter()[0], gen.counter()[1]);
    counter->base<uint64_t>()[1] = random::Join(gen.counter()[2], gen.counter()[3]);
    if (num_outputs() == 3) {
      Tensor* alg = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({}), &alg));
      alg->base<int32_t>()[0] = random::kRngAlgPhilox;
    }
  }
};

class GetAlgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    Tensor* alg = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &alg));
    alg->base<int32_t>()[0] = random::kRngAlgPhilox;
  }
};

#define TA_REGISTER_FLOAT(T)                                                                                   \
  REGISTER_KERNEL(Name("StatelessRandomUniform").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),                \
                  StatelessRandomOp<Inputs::kSeed, T, Distribution::kUniform>);                                \
  REGISTER_KERNEL(Name("StatelessRandomNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),                 \
                  StatelessRandomOp<Inputs::kSeed, T, Distribution::kNormal>);                                 \
  REGISTER_KERNEL(Name("StatelessTruncatedNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),              \
                  StatelessRandomOp<Inputs::kSeed, T, Distribution::kTruncatedNormal>);                        \
  REGISTER_KERNEL(Name("StatelessRandomUniformV2").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),              \
                  StatelessRandomOp<Inputs::kKeyCounterAlg, T, Distribution::kUniform>);                       \
  REGISTER_KERNEL(Name("StatelessRandomNormalV2").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),               \
                  StatelessRandomOp<Inputs::kKeyCounterAlg, T, Distribution::kNormal>);                        \
  REGISTER_KERNEL(Name("StatelessTruncatedNormalV2").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),            \
                  StatelessRandomOp<Inputs::kKeyCounterAlg, T, Distribution::kTruncatedNormal>);
TA_REGISTER_FLOAT(Eigen::half)
TA_REGISTER_FLOAT(Eigen::bfloat16)
TA_REGISTER_FLOAT(float)
TA_REGISTER_FLOAT(double)
#undef TA_REGISTER_FLOAT

// TensorFlow's CPU kernels: bounded integers of int32 and int64 (the V2 op also admits
// uint32 and uint64, without a kernel), full-range ones of all four.
#define TA_REGISTER_FULL_INT(T)                                                                            \
  REGISTER_KERNEL(Name("StatelessRandomUniformFullInt").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),     \
                  StatelessRandomUniformFullIntOp<Inputs::kSeed, T>);                                      \
  REGISTER_KERNEL(Name("StatelessRandomUniformFullIntV2").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),   \
                  StatelessRandomUniformFullIntOp<Inputs::kKeyCounterAlg, T>);
#define TA_REGISTER_INT(T)                                                                                 \
  TA_REGISTER_FULL_INT(T)                                                                                  \
  REGISTER_KERNEL(Name("StatelessRandomUniformInt").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),         \
                  StatelessRandomUniformIntOp<Inputs::kSeed, T>);                                          \
  REGISTER_KERNEL(Name("StatelessRandomUniformIntV2").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),       \
                  StatelessRandomUniformIntOp<Inputs::kKeyCounterAlg, T>);
TA_REGISTER_INT(int32_t)
TA_REGISTER_INT(int64_t)
TA_REGISTER_FULL_INT(uint32_t)
TA_REGISTER_FULL_INT(uint64_t)
#undef TA_REGISTER_INT
#undef TA_REGISTER_FULL_INT

// Every rate type with every output type, as TensorFlow registers them.
#define TA_REGISTER_POISSON(R, U)                                                                            \
  REGISTER_KERNEL(                                                                                         \
      Name("StatelessRandomPoisson").Device(DEVICE_CPU).TypeConstraint<R>("Rtype").TypeConstraint<U>("dtype"), \
      StatelessRandomPoissonOp<R, U>);
TA_FOR_EACH_POISSON_TYPES(TA_REGISTER_POISSON)
#undef TA_REGISTER_POISSON

REGISTER_KERNEL(Name("StatelessRandomGetKeyCounter").Device(DEVICE_CPU), GetKeyCounterOp);
REGISTER_KERNEL(Name("StatelessRandomGetKeyCounterAlg").Device(DEVICE_CPU), GetKeyCounterOp);
REGISTER_KERNEL(Name("StatelessRandomGetAlg").Device(DEVICE_CPU), GetAlgOp);

}  // namespace
}  // namespace tensoract
