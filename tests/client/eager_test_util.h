// What the client tests share: a context with two threads and reading eager values.
#ifndef TENSORACT_TESTS_CLIENT_EAGER_TEST_UTIL_H_
#define TENSORACT_TESTS_CLIENT_EAGER_TEST_UTIL_H_

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "client/eager_context.h"

namespace tensoract {
namespace testing {

inline std::unique_ptr<EagerContext> NewContext() {
  SessionOptions options;
  options.num_threads = 2;
  auto ctx = EagerContext::New(options);
  REQUIRE(ctx.ok());
  return std::move(ctx).value();
}

inline std::vector<float> Floats(const Output& out) {
  auto t = ValueOf(out);
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  const Tensor& v = t.value();
  REQUIRE(v.dtype() == tensorflow::DT_FLOAT);
  return std::vector<float>(v.base<float>(), v.base<float>() + v.NumElements());
}

inline float Scalar(const Output& out) {
  std::vector<float> v = Floats(out);
  REQUIRE(v.size() == 1);
  return v[0];
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_CLIENT_EAGER_TEST_UTIL_H_
