// The assertion the gradient tests share: `y`'s symbolic gradients with respect to `xs`
// (fed `values`) within `tolerance` of central differences (client/gradient_checker.h).
// The default, 1e-4: central differences with delta 1e-3 are off by about delta^2/6 * f''',
// 1e-6 for exp(2); a wrong gradient is off by far more.
#ifndef TENSORACT_TESTS_ACTORS_GRADIENT_CHECK_UTIL_H_
#define TENSORACT_TESTS_ACTORS_GRADIENT_CHECK_UTIL_H_

#include <vector>

#include <catch2/catch.hpp>

#include "client/gradient_checker.h"

namespace tensoract {
namespace testing {

// Gradient checks run in double.
inline constexpr DataType kDouble = tensorflow::DT_DOUBLE;
inline constexpr double kTolerance = 1e-4;

inline void CheckGradient(const Scope& root, const std::vector<Output>& xs, const std::vector<Tensor>& values,
                          const Output& y, double tolerance = kTolerance) {
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  auto err = MaxGradientError(root, xs, values, y);
  INFO(err.status().ToString());
  REQUIRE(err.ok());
  INFO("max error " << err.value());
  CHECK(err.value() < tolerance);
}

// A double tensor of `shape` holding `v`.
inline Tensor Values(std::vector<double> v, TensorShape shape) { return Tensor::FromVector<double>(v, shape); }

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_ACTORS_GRADIENT_CHECK_UTIL_H_
