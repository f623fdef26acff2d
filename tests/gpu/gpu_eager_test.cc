// Eager execution on the GPU (client/eager_context.h): ops go to the first GPU by default,
// values cross between the devices as ops need them, and a tape's gradients match the
// CPU's. Skipped with the rest of gpu_tests where there is no GPU.
#include <catch2/catch.hpp>

#include <vector>

#include "client/eager_context.h"
#include "client/gradient_tape.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace {

std::vector<float> Floats(const Output& out) {
  auto t = ValueOf(out);
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  return std::vector<float>(t.value().base<float>(), t.value().base<float>() + t.value().NumElements());
}

Output Filled(const Scope& s, std::vector<int64_t> dims) {
  TensorShape shape(dims);
  std::vector<float> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.01f * static_cast<float>(i % 37) - 0.15f;
  return FromTensor(s, Tensor::FromVector<float>(v, shape));
}

TEST_CASE("eager ops run on the GPU by default and match the CPU", "[gpu][eager]") {
  auto ctx = EagerContext::New().value();
  REQUIRE(ctx->default_device()->device_type() == DEVICE_GPU);
  Scope gpu = ctx->scope();
  Scope cpu = gpu.WithDevice("/device:CPU:0");
  auto run = [](const Scope& s) {
    Output x = Filled(s, {64, 128}), w = Filled(s, {128, 32});
    return ops::Sum(s, ops::Relu(s, ops::MatMul(s, x, w)), {1});
  };
  Output on_gpu = run(gpu), on_cpu = run(cpu);
  REQUIRE(gpu.status().ok());
  CHECK(DeviceOf(on_gpu)->device_type() == DEVICE_GPU);
  std::vector<float> a = Floats(on_gpu), b = Floats(on_cpu);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]).margin(1e-3));
  // A GPU value into a CPU op and back.
  Output mixed = ops::Mul(gpu, ops::Add(cpu, on_gpu, 1.f), 2.f);
  REQUIRE(gpu.status().ok());
  std::vector<float> m = Floats(mixed);
  for (size_t i = 0; i < m.size(); ++i) CHECK(m[i] == Approx((b[i] + 1) * 2).margin(2e-3));
}

TEST_CASE("a tape's gradients on the GPU match the CPU's", "[gpu][eager]") {
  auto ctx = EagerContext::New().value();
  auto grads = [&](const Scope& s) {
    Output x = Filled(s, {16, 32}), w = Filled(s, {32, 8});
    GradientTape tape(*ctx);
    tape.Watch(w);
    Output loss = ops::Mean(s, ops::Square(s, ops::Tanh(s, ops::MatMul(s, x, w))), {0, 1});
    auto g = tape.Gradient(loss, {w});
    REQUIRE(g.ok());
    return Floats(g.value()[0]);
  };
  std::vector<float> a = grads(ctx->scope()), b = grads(ctx->scope().WithDevice("/device:CPU:0"));
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]).margin(1e-4));
}

}  // namespace
}  // namespace tensoract
