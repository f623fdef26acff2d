// Poisson samples as TensorFlow's RandomPoissonV2 and StatelessRandomPoisson draw them (its
// PoissonFunctor), so that a seed gives TensorFlow's numbers; the stateful kernel
// (kernels/cpu/random_op.cc) and the stateless one (kernels/cpu/stateless_random_op.cc) share
// it.
//
// Every output is computed in double, whatever the rate and output types. A rate below 10
// counts uniforms multiplied together until the product falls to exp(-rate) (Knuth); any
// other rate, NaN and infinity included, uses Hörmann's transformed rejection ("The
// transformed rejection method for generating Poisson random variables", 1993) with
// TensorFlow's constants. Uniforms are doubles, two per generator call, and TensorFlow takes
// each call's second one first.
//
// Two rates TensorFlow's algorithm does not reach an answer for: +infinity, where
// TensorFlow 2.21 gives U's infinity (0 for the integer types, numeric_limits' value), and
// NaN, where its rejection loop never ends; the kernels refuse a NaN rate instead
// (CheckPoissonRates).
//
// Output o (sample o % num_samples of rate o / num_samples) draws from the generator moved
// 256 * o calls ahead, so outputs are computed in any order and split; it is written at
// out[(o % num_samples) * num_rate + o / num_samples] (the output is shape + rate's shape).
//
// The kernels layer compiles with EIGEN_USE_THREADS defined (kernels/CMakeLists.txt).
#ifndef TENSORACT_KERNELS_RANDOM_POISSON_H_
#define TENSORACT_KERNELS_RANDOM_POISSON_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "base/status.h"
#include "kernels/random/philox.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace random {

// Generator calls each output may use before the next output's start (TensorFlow's
// kReservedSamplesPerOutput); a rejection that runs longer reads into the next output's.
inline constexpr uint64_t kPoissonCallsPerOutput = 256;

// Uniform doubles in TensorFlow's Poisson order: a call's second double, then its first.
class PoissonUniforms {
 public:
  explicit PoissonUniforms(Philox gen) : gen_(gen) {}
  double operator()() {
    if (remaining_ == 0) {
      const Philox::Result r = gen_();
      values_[0] = Uint64ToDouble(r[0], r[1]);
      values_[1] = Uint64ToDouble(r[2], r[3]);
      remaining_ = 2;
    }
    return values_[--remaining_];
  }

 private:
  Philox gen_;
  double values_[2] = {0, 0};
  int remaining_ = 0;
};

// A double count as the output type U. TensorFlow converts it with a plain cast; a NaN
// (from a NaN or infinite rate) becomes the integer types' lowest value there (x86's
// conversion), which is spelled out here rather than left undefined.
template <class U>
U PoissonCast(double k) {
  if constexpr (std::is_integral_v<U>) {
    if (!(k >= static_cast<double>(std::numeric_limits<U>::lowest()) &&
          k < -static_cast<double>(std::numeric_limits<U>::lowest()))) {
      return std::numeric_limits<U>::lowest();
    }
    return static_cast<U>(k);
  } else {
    return static_cast<U>(static_cast<std::conditional_t<std::is_same_v<U, Eigen::half>, float, double>>(k));
  }
}

// One Poisson sample of `rate` from `gen` (already moved to this output's calls).
template <class U>
U PoissonSample(double rate, const Philox& gen) {
  const double highest = static_cast<double>(Eigen::NumTraits<U>::highest());
  PoissonUniforms uniform(gen);
  if (std::isinf(rate) && rate > 0) return std::numeric_limits<U>::infinity();
  if (rate < 10) {
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1, x = 0;
    for (;;) {
      prod = prod * uniform();
      if (prod <= exp_neg_rate && x <= highest) return PoissonCast<U>(x);
      x += 1;
    }
  }
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  for (;;) {
    const double u = uniform() - 0.5;
    const double v = uniform();
    const double u_shifted = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k > highest) continue;  // would overflow U: redrawn
    // Inside a rectangle under the density: accepted at once.
    if (u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return PoissonCast<U>(k);
    if (k < 0 || (u_shifted < 0.013 && v > u_shifted)) continue;
    const double s = std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return PoissonCast<U>(k);
  }
}

// InvalidArgument when a rate is NaN (TensorFlow's sampler would never end).
template <class R>
Status CheckPoissonRates(const R* rate, int64_t n, const char* input, const std::string& node) {
  if constexpr (!std::is_integral_v<R>) {
    for (int64_t i = 0; i < n; ++i) {
      if (Eigen::numext::isnan(rate[i])) {
        return errors::InvalidArgument(input, " holds NaN (at flat index ", i,
                                       "), for which no Poisson sample can be drawn (node '", node, "')");
      }
    }
  }
  return Status::OK();
}

// Fills out[0, num_samples * num_rate) (see the file comment) from `base`.
template <class R, class U>
void FillPoisson(const Eigen::ThreadPoolDevice& device, const Philox& base, const R* rate, int64_t num_rate,
                 int64_t num_samples, U* out) {
  device.parallelFor(num_rate * num_samples, Eigen::TensorOpCost(sizeof(R), sizeof(U), 300),
                     [=](Eigen::Index first, Eigen::Index last) {
                       for (int64_t o = first; o < last; ++o) {
                         const int64_t r = o / num_samples, s = o % num_samples;
                         Philox gen = base;
                         gen.Skip(static_cast<uint64_t>(o) * kPoissonCallsPerOutput);
                         // half rates widen through float, as Eigen's half does.
                         const double rate_r = static_cast<double>(static_cast<std::conditional_t<
                             std::is_same_v<R, Eigen::half>, float, R>>(rate[r]));
                         out[s * num_rate + r] = PoissonSample<U>(rate_r, gen);
                       }
                     });
}

}  // namespace random
}  // namespace tensoract

// Calls M(R, U) for every rate type R with every output type U TensorFlow registers its
// Poisson kernels for (RandomPoissonV2, StatelessRandomPoisson).
#define TA_FOR_EACH_POISSON_TYPES(M) \
  TA_POISSON_OUTPUTS_(M, Eigen::half) \
  TA_POISSON_OUTPUTS_(M, float)       \
  TA_POISSON_OUTPUTS_(M, double)      \
  TA_POISSON_OUTPUTS_(M, int32_t)     \
  TA_POISSON_OUTPUTS_(M, int64_t)
#define TA_POISSON_OUTPUTS_(M, R) M(R, Eigen::half) M(R, float) M(R, double) M(R, int32_t) M(R, int64_t)

#endif  // TENSORACT_KERNELS_RANDOM_POISSON_H_
