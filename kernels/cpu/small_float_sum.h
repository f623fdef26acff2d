// A row's sum of half or bfloat16 terms in the order, and with the roundings, of TensorFlow
// 2.21's CPU kernels: Eigen's InnerMostDimReducer on its x86 build (8-lane packets; above
// 8 x LeafSize terms, 200 for half and 128 for bfloat16, the row halved at a packet boundary
// and each half summed alike). Every addition is rounded to T, as Eigen's half and bfloat16
// additions are (to float, add, round back); a packet's lanes are added in float and rounded
// once. Softmax, LogSoftmax and the cross-entropy kernels sum their T terms this way, which
// gives TensorFlow's results bit for bit where a float sum rounded once differs in the last
// place (and, like it, a half sum past 65504 is inf).
#ifndef TENSORACT_KERNELS_CPU_SMALL_FLOAT_SUM_H_
#define TENSORACT_KERNELS_CPU_SMALL_FLOAT_SUM_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

namespace tensoract {

// x rounded to T and widened back: one step of an Eigen expression in half or bfloat16.
template <class T>
inline float RoundedTo(float x) {
  return static_cast<float>(static_cast<T>(x));
}

namespace small_float_sum {

constexpr int64_t kLanes = 8;

template <class T>
inline float Add(float a, float b) {
  return RoundedTo<T>(a + b);
}

// Eigen's vectorised InnerMostDimReducer: four packet accumulators over blocks of 4 packets,
// folded into the first; then whole packets; the tail in a scalar; packet lanes summed last.
template <class T>
float PacketSum(const float* x, int64_t n) {
  float lanes[kLanes] = {};
  int64_t start = 0;
  if (n >= 4 * kLanes) {
    float acc[4][kLanes] = {};
    const int64_t blocks = n / (4 * kLanes) * (4 * kLanes);
    for (int64_t j = 0; j < blocks; j += 4 * kLanes) {
      for (int q = 0; q < 4; ++q) {
        for (int64_t l = 0; l < kLanes; ++l) acc[q][l] = Add<T>(acc[q][l], x[j + q * kLanes + l]);
      }
    }
    for (int q = 1; q < 4; ++q) {
      for (int64_t l = 0; l < kLanes; ++l) acc[0][l] = Add<T>(acc[0][l], acc[q][l]);
    }
    std::copy(acc[0], acc[0] + kLanes, lanes);
    start = blocks;
  }
  if (start <= n - kLanes) {
    const int64_t whole = n / kLanes * kLanes;
    for (int64_t j = start; j < whole; j += kLanes) {
      for (int64_t l = 0; l < kLanes; ++l) lanes[l] = Add<T>(lanes[l], x[j + l]);
    }
    start = whole;
  }
  float scalar = 0.f;
  for (int64_t j = start; j < n; ++j) scalar = Add<T>(scalar, x[j]);
  // predux of 8 float lanes (AVX then SSE): upper half onto lower, then (0+2) + (1+3).
  float four[4];
  for (int l = 0; l < 4; ++l) four[l] = lanes[l] + lanes[l + 4];
  const float packet = (four[0] + four[2]) + (four[1] + four[3]);
  return Add<T>(scalar, RoundedTo<T>(packet));
}

// row[begin, begin + n), whose first element is element `first` of the tensor: Eigen aligns
// its split points to packets of the whole tensor, not of the row.
template <class T>
float TreeSum(const float* row, int64_t first, int64_t begin, int64_t n) {
  constexpr int64_t kLeaf = std::is_same_v<T, Eigen::half> ? 200 : 128;
  if (n > kLanes * kLeaf) {
    const int64_t global = first + begin;
    const int64_t split = kLanes * ((global + (n + 1) / 2 + kLanes - 1) / kLanes);
    const int64_t left = std::min(split - global, n);
    float acc = Add<T>(0.f, TreeSum<T>(row, first, begin, left));
    if (left < n) acc = Add<T>(acc, TreeSum<T>(row, first, begin + left, n - left));
    return acc;
  }
  return PacketSum<T>(row + begin, n);
}

}  // namespace small_float_sum

// The sum of terms[0, n) (each a T value), terms[0] being element `first` of its tensor
// (row r of a [rows, n] matrix: first = r * n), as TensorFlow's Eigen sums it, as a float
// that is a T value.
template <class T>
float EigenRowSum(const float* terms, int64_t first, int64_t n) {
  return small_float_sum::TreeSum<T>(terms, first, 0, n);
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_SMALL_FLOAT_SUM_H_
