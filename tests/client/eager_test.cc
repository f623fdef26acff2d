// Eager execution through the ops:: builder functions (client/eager_context.h).
#include <catch2/catch.hpp>

#include "client/eager_context.h"
#include "tests/client/eager_test_util.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace {

using testing::Floats;
using testing::NewContext;

TEST_CASE("eager ops run at once and return their values", "[eager]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Output a = FromTensor(s, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  Output b = ops::MatMul(s, a, a);
  Output c = ops::Add(s, b, 1.0f);
  REQUIRE(s.status().ok());
  CHECK(Floats(b) == std::vector<float>{7, 10, 15, 22});
  CHECK(Floats(c) == std::vector<float>{8, 11, 16, 23});
  CHECK(c.shape().IsFullyDefined());
  CHECK(c.shape().dim_size(0) == 2);
  CHECK(c.type() == tensorflow::DT_FLOAT);
}

TEST_CASE("eager kernels are made once per op, attrs and device", "[eager]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Output x = ops::Const(s, {1.f, 2.f});
  size_t before = ctx->num_cached_kernels();
  for (int i = 0; i < 10; ++i) x = ops::Add(s, x, x);
  CHECK(ctx->num_cached_kernels() == before + 1);
  ops::MatMul(s, ops::Const(s, {{1.f}}), ops::Const(s, {{2.f}}), ops::MatMulAttrs{true, false});
  ops::MatMul(s, ops::Const(s, {{1.f}}), ops::Const(s, {{2.f}}));
  CHECK(ctx->num_cached_kernels() == before + 3);
  CHECK(Floats(x) == std::vector<float>{1024, 2048});
}

TEST_CASE("an eager error names the op and the shapes and leaves the context usable", "[eager]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Output a = ops::Const(s, {1.f, 2.f, 3.f});
  Output b = ops::Const(s, {1.f, 2.f});
  Output c = ops::Add(s, a, b);
  CHECK(c.node == nullptr);
  Status st = s.status();
  REQUIRE(!st.ok());
  CHECK(st.code() == error::INVALID_ARGUMENT);
  INFO(st.ToString());
  CHECK(st.message().find("Add") != std::string::npos);
  CHECK(st.message().find("float[3]") != std::string::npos);
  CHECK(st.message().find("float[2]") != std::string::npos);
  s.ClearStatus();
  CHECK(Floats(ops::Add(s, a, a)) == std::vector<float>{2, 4, 6});

  ops::MatMul(s, a, ops::Const(s, {1, 2}));  // int32 into a float MatMul
  CHECK(!s.status().ok());
  s.ClearStatus();
  ops::Placeholder(s, tensorflow::DT_FLOAT);
  CHECK(s.status().message().find("FromTensor") != std::string::npos);
  s.ClearStatus();
  ops::Add(s.WithDevice("/device:CPU:7"), a, a);
  CHECK(s.status().message().find("no device matches") != std::string::npos);
}

TEST_CASE("device scopes choose where an eager op runs", "[eager]") {
  auto ctx = NewContext();
  Scope cpu = ctx->scope().WithDevice("/device:CPU:0");
  Output x = ops::Mul(cpu, ops::Const(cpu, {3.f}), 2.f);
  REQUIRE(cpu.status().ok());
  REQUIRE(DeviceOf(x) != nullptr);
  CHECK(DeviceOf(x)->device_type() == DEVICE_CPU);
  CHECK(Floats(x) == std::vector<float>{6});
}

TEST_CASE("a graph scope and an eager scope use the same builder functions", "[eager]") {
  Scope g = Scope::NewRootScope();
  Output y = ops::Add(g, ops::Const(g, {1.f}), 2.f);
  REQUIRE(g.status().ok());
  CHECK(!y.is_eager());
  CHECK(!ValueOf(y).ok());
}

}  // namespace
}  // namespace tensoract
