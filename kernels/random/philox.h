// Philox4x32-10, the counter-based generator TensorFlow's random ops use (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC 2011), with TensorFlow's seeding and
// its distribution transforms, so that a graph with the same seed and seed2 attributes
// gives TensorFlow's numbers.
//
// A generator is a 64-bit key and a 128-bit counter; each call encrypts the counter with
// the key in ten rounds (four 32-bit outputs) and increments the counter. Skip(n) jumps n
// calls ahead in O(1), which is how a kernel's threads fill disjoint parts of one output
// and how successive runs of a kernel get fresh numbers.
#ifndef TENSORACT_KERNELS_RANDOM_PHILOX_H_
#define TENSORACT_KERNELS_RANDOM_PHILOX_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <Eigen/Core>

namespace tensoract {
namespace random {

class Philox {
 public:
  using Result = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;
  static constexpr int kResultElementCount = 4;

  Philox() = default;
  // A generator at a given counter and key (the stateless ops' form).
  Philox(const Result& counter, const Key& key) : counter_(counter), key_(key) {}
  // TensorFlow's seeding: seed is the key, seed2 the counter's high half.
  Philox(uint64_t seed, uint64_t seed2) {
    key_[0] = static_cast<uint32_t>(seed);
    key_[1] = static_cast<uint32_t>(seed >> 32);
    counter_[2] = static_cast<uint32_t>(seed2);
    counter_[3] = static_cast<uint32_t>(seed2 >> 32);
  }

  Result operator()() {
    Result c = counter_;
    uint32_t k0 = key_[0], k1 = key_[1];
    for (int round = 0; round < 10; ++round) {
      const uint64_t p0 = static_cast<uint64_t>(kMultiplierA) * c[0];
      const uint64_t p1 = static_cast<uint64_t>(kMultiplierB) * c[2];
      c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
      k0 += kWeylA;
      k1 += kWeylB;
    }
    SkipOne();
    return c;
  }

  // Moves `count` calls ahead.
  void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

  const Result& counter() const { return counter_; }
  const Key& key() const { return key_; }

 private:
  void SkipOne() {
    if (++counter_[0] == 0 && ++counter_[1] == 0 && ++counter_[2] == 0) ++counter_[3];
  }

  static constexpr uint32_t kMultiplierA = 0xD2511F53, kMultiplierB = 0xCD9E8D57;
  static constexpr uint32_t kWeylA = 0x9E3779B9, kWeylB = 0xBB67AE85;
  Result counter_{};
  Key key_{};
};

// The generator's outputs one 32-bit word at a time (for distributions that reject some
// draws, which need a varying number of words).
class SingleSample {
 public:
  explicit SingleSample(Philox* gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == Philox::kResultElementCount) {
      words_ = (*gen_)();
      used_ = 0;
    }
    return words_[used_++];
  }

 private:
  Philox* gen_;
  Philox::Result words_{};
  int used_ = Philox::kResultElementCount;
};

// [0, 1) from 23 (float) or 52 (double) random mantissa bits, as TensorFlow makes them.
inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}
// The first word gives the mantissa's high 20 bits, the second its low 32.
inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t bits = (uint64_t{1023} << 52) | (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// [0, 1) from the word's low 10 (half) or 7 (bfloat16) bits: a number in [1, 2) minus 1,
// which is exact.
inline Eigen::half Uint16ToHalf(uint16_t x) {
  const Eigen::half one_to_two = Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>((15u << 10) | (x & 0x3ffu)));
  return one_to_two - Eigen::half(1.0f);
}
inline Eigen::bfloat16 Uint16ToBfloat16(uint16_t x) {
  const Eigen::bfloat16 one_to_two =
      Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<uint16_t>((127u << 7) | (x & 0x7fu)));
  return one_to_two - Eigen::bfloat16(1.0f);
}

// Two standard normals from two words (Box-Muller; sine first, then cosine).
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  constexpr float kEpsilon = 1.0e-7f;
  float u1 = Uint32ToFloat(x0);
  if (u1 < kEpsilon) u1 = kEpsilon;
  // 2.0f * M_PI is a double, so the product is one (then rounded), as TensorFlow writes it.
  const float v1 = static_cast<float>(2.0f * M_PI * Uint32ToFloat(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * u2;
  *f1 = std::cos(v1) * u2;
}
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0, double* d1) {
  constexpr double kEpsilon = 1.0e-7;
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const double v1 = 2 * M_PI * Uint64ToDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  *d0 = std::sin(v1) * u2;
  *d1 = std::cos(v1) * u2;
}

// Each distribution turns one generator call (or, rejecting, several words) into a group
// of kGroupSize values, TensorFlow's grouping: outputs are filled group by group.
template <class T>
struct Uniform;
template <>
struct Uniform<float> {
  static constexpr int kGroupSize = 4;
  static void Group(Philox* gen, float* out) {
    const Philox::Result r = (*gen)();
    for (int i = 0; i < 4; ++i) out[i] = Uint32ToFloat(r[i]);
  }
};
template <>
struct Uniform<double> {
  static constexpr int kGroupSize = 2;
  static void Group(Philox* gen, double* out) {
    const Philox::Result r = (*gen)();
    for (int i = 0; i < 2; ++i) out[i] = Uint64ToDouble(r[2 * i], r[2 * i + 1]);
  }
};

template <>
struct Uniform<Eigen::half> {
  static constexpr int kGroupSize = 4;
  static void Group(Philox* gen, Eigen::half* out) {
    const Philox::Result r = (*gen)();
    for (int i = 0; i < 4; ++i) out[i] = Uint16ToHalf(static_cast<uint16_t>(r[i]));
  }
};
template <>
struct Uniform<Eigen::bfloat16> {
  static constexpr int kGroupSize = 4;
  static void Group(Philox* gen, Eigen::bfloat16* out) {
    const Philox::Result r = (*gen)();
    for (int i = 0; i < 4; ++i) out[i] = Uint16ToBfloat16(static_cast<uint16_t>(r[i]));
  }
};

// half and bfloat16 normals are float ones rounded (to nearest even), as TensorFlow makes
// them.
template <class T>
struct Normal {
  static_assert(std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>);
  static constexpr int kGroupSize = 4;
  static void Group(Philox* gen, T* out) {
    const Philox::Result r = (*gen)();
    float f[4];
    BoxMullerFloat(r[0], r[1], &f[0], &f[1]);
    BoxMullerFloat(r[2], r[3], &f[2], &f[3]);
    for (int i = 0; i < 4; ++i) out[i] = T(f[i]);
  }
};
template <>
struct Normal<float> {
  static constexpr int kGroupSize = 4;
  static void Group(Philox* gen, float* out) {
    const Philox::Result r = (*gen)();
    BoxMullerFloat(r[0], r[1], &out[0], &out[1]);
    BoxMullerFloat(r[2], r[3], &out[2], &out[3]);
  }
};
template <>
struct Normal<double> {
  static constexpr int kGroupSize = 2;
  static void Group(Philox* gen, double* out) {
    const Philox::Result r = (*gen)();
    BoxMullerDouble(r[0], r[1], r[2], r[3], &out[0], &out[1]);
  }
};

// Normals redrawn until within two standard deviations; words one at a time. half and
// bfloat16 draw and truncate float normals, then round them.
template <class T>
struct TruncatedNormal {
  using Work = std::conditional_t<std::is_same_v<T, double>, double, float>;
  static constexpr int kGroupSize = std::is_same_v<T, double> ? 2 : 4;
  static void Group(SingleSample* words, T* out) {
    int n = 0;
    for (;;) {
      Work v[2];
      if constexpr (std::is_same_v<Work, float>) {
        const uint32_t x0 = (*words)(), x1 = (*words)();
        BoxMullerFloat(x0, x1, &v[0], &v[1]);
      } else {
        const uint32_t x0 = (*words)(), x1 = (*words)(), x2 = (*words)(), x3 = (*words)();
        BoxMullerDouble(x0, x1, x2, x3, &v[0], &v[1]);
      }
      for (Work x : v) {
        if (std::abs(x) < Work(2)) {
          out[n++] = T(x);
          if (n == kGroupSize) return;
        }
      }
    }
  }
};

// Integers in [lo, lo + range): each word (int32) or pair of words (int64) modulo range.
template <class T>
struct UniformInt {
  static constexpr int kGroupSize = sizeof(T) == 4 ? 4 : 2;
  static void Group(Philox* gen, T lo, uint64_t range, T* out) {
    const Philox::Result r = (*gen)();
    for (int i = 0; i < kGroupSize; ++i) {
      const uint64_t bits = sizeof(T) == 4 ? r[i] : (r[2 * i] | static_cast<uint64_t>(r[2 * i + 1]) << 32);
      out[i] = static_cast<T>(static_cast<uint64_t>(lo) + bits % range);
    }
  }
};

// Every value of the type: one word each (32-bit types) or two (64-bit, low word first).
template <class T>
struct UniformFullInt {
  static constexpr int kGroupSize = sizeof(T) == 4 ? 4 : 2;
  static void Group(Philox* gen, T* out) {
    const Philox::Result r = (*gen)();
    for (int i = 0; i < kGroupSize; ++i) {
      const uint64_t bits = sizeof(T) == 4 ? r[i] : (r[2 * i] | static_cast<uint64_t>(r[2 * i + 1]) << 32);
      out[i] = static_cast<T>(bits);
    }
  }
};

// A stateful random kernel reserves this many generator calls per output element for each
// run (TensorFlow's conservative 256, enough for any rejection), so successive runs never
// overlap.
inline constexpr uint64_t kReservedCallsPerElement = 256;
// A rejecting distribution's group starts this many calls after the previous group's.
template <class T>
inline constexpr uint64_t kCallsPerRejectingGroup = TruncatedNormal<T>::kGroupSize * kReservedCallsPerElement / 4;

}  // namespace random
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_RANDOM_PHILOX_H_
