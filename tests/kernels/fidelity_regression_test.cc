// Regressions of the numerical-fidelity issue's first findings: a kernel must refuse, not
// crash, and not return memory it never wrote; NaN propagates through Max and Min as it
// does in TensorFlow.
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>

#include "graph/builder/array_ops.h"
#include "graph/builder/ops.h"
#include "kernels/denormal.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::RunOp;
using testing::Run;
using testing::TypeA;
using testing::Values;

TEST_CASE("Range refuses a size that overflows instead of ending the process", "[fidelity]") {
  const float inf = std::numeric_limits<float>::infinity();
  Run r = RunOp("Range", {Tensor::Scalar<float>(0), Tensor::Scalar<float>(inf), Tensor::Scalar<float>(1)},
                {{"Tidx", TypeA(tensorflow::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("Requires ((limit - start) / delta) <=") != std::string::npos);
  r = RunOp("Range", {Tensor::Scalar<double>(0), Tensor::Scalar<double>(1e300), Tensor::Scalar<double>(1e-300)},
            {{"Tidx", TypeA(tensorflow::DT_DOUBLE)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  r = RunOp("Range", {Tensor::Scalar<int64_t>(lo), Tensor::Scalar<int64_t>(hi), Tensor::Scalar<int64_t>(1)},
            {{"Tidx", TypeA(tensorflow::DT_INT64)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  // Still counts as before.
  r = RunOp("Range", {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1), Tensor::Scalar<float>(0.25f)},
            {{"Tidx", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 0.25f, 0.5f, 0.75f});
}

TEST_CASE("StridedSlice refuses an index with a negative stride, as TensorFlow does", "[fidelity]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto slice = [&](std::vector<int32_t> strides) {
    tensorflow::AttrValue shrink;
    shrink.set_i(1);
    return RunOp("StridedSlice",
                 {x, Tensor::FromVector<int32_t>({1, 0}), Tensor::FromVector<int32_t>({2, 3}),
                  Tensor::FromVector<int32_t>(strides)},
                 {{"T", TypeA(tensorflow::DT_FLOAT)}, {"Index", TypeA(tensorflow::DT_INT32)},
                  {"shrink_axis_mask", shrink}});
  };
  Run r = slice({-1, 1});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("only stride 1 allowed on non-range indexing") != std::string::npos);
  r = slice({2, 1});  // a positive stride still takes the one element, as in TensorFlow
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{4, 5, 6});
}

TEST_CASE("a graph with such a slice is refused when it is built", "[fidelity]") {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, tensorflow::DT_FLOAT, PartialTensorShape({2, 3}));
  ops::StridedSliceAttrs attrs;
  attrs.shrink_axis_mask = 1;
  ops::StridedSlice(root, x, {1, 0}, {2, 3}, {-1, 1}, attrs);
  CHECK(root.status().code() == error::INVALID_ARGUMENT);
  CHECK(root.status().message().find("only stride 1 allowed on non-range indexing") != std::string::npos);
}

TEST_CASE("Max and Min propagate NaN on every axis and through the threaded paths", "[fidelity]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {7, 64, 100003}) {  // scalar tails, vector packets, several threads
    std::vector<float> v(static_cast<size_t>(n) * 2);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 97) - 40;
    v[static_cast<size_t>(n) / 2] = nan;  // row 0 only
    Tensor x = Tensor::FromVector<float>(v, TensorShape({2, n}));
    for (const char* op : {"Max", "Min"}) {
      INFO(op << " over " << n);
      Run all = RunOp(op, {x, Tensor::FromVector<int32_t>({0, 1})}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
      REQUIRE(all.status.ok());
      CHECK(std::isnan(all.outputs[0].base<float>()[0]));
      Run rows = RunOp(op, {x, Tensor::Scalar<int32_t>(1)}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
      REQUIRE(rows.status.ok());
      CHECK(std::isnan(rows.outputs[0].base<float>()[0]));
      CHECK(!std::isnan(rows.outputs[0].base<float>()[1]));
      Run cols = RunOp(op, {x, Tensor::Scalar<int32_t>(0)}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
      REQUIRE(cols.status.ok());
      CHECK(std::isnan(cols.outputs[0].base<float>()[n / 2]));
      CHECK(!std::isnan(cols.outputs[0].base<float>()[0]));
    }
  }
}

TEST_CASE("Sqrt of +inf is +inf on the vectorised paths too", "[fidelity]") {
  const float inf = std::numeric_limits<float>::infinity();
  for (int n : {1, 8, 16, 33, 1000}) {
    INFO(n << " elements");
    std::vector<float> v(n, inf);
    v[0] = 4;
    Run r = RunOp("Sqrt", {Tensor::FromVector<float>(v)}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
    REQUIRE(r.status.ok());
    std::vector<float> y = Values<float>(r.outputs[0]);
    CHECK(y[0] == 2);
    for (int i = 1; i < n; ++i) CHECK(y[i] == inf);
  }
}

TEST_CASE("Pow keeps the sign of an infinite result of a negative base and an odd exponent", "[fidelity]") {
  for (int n : {1, 16, 33}) {
    INFO(n << " elements");
    std::vector<float> x(n, -1e20f), y(n, 3.f);
    x[0] = -std::numeric_limits<float>::infinity();  // (-inf)^3
    x[n - 1] = -2.f;  // (-2)^129 overflows
    y[n - 1] = 129.f;
    Run r = RunOp("Pow", {Tensor::FromVector<float>(x), Tensor::FromVector<float>(y)}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
    REQUIRE(r.status.ok());
    for (float v : Values<float>(r.outputs[0])) CHECK(v == -std::numeric_limits<float>::infinity());
  }
}

TEST_CASE("an int32 Mean does not wrap in its sum, as TensorFlow's does not", "[fidelity]") {
  const int32_t big = 1 << 30;
  Run r = RunOp("Mean", {Tensor::FromVector<int32_t>({big, big, big}), Tensor::Scalar<int32_t>(0)},
                {{"T", TypeA(tensorflow::DT_INT32)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{big});
  r = RunOp("Mean", {Tensor::FromVector<int32_t>({big, big, big, -7, 2, 0}, TensorShape({2, 3})), Tensor::Scalar<int32_t>(1)},
            {{"T", TypeA(tensorflow::DT_INT32)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{big, -1});  // -5 / 3 truncates toward zero
}

TEST_CASE("float Exp stays finite up to its true overflow on the vectorised path", "[fidelity]") {
  // 1,000 values across (88.0, 89.0): enough for every vector width; the vectorised path
  // once gave inf from 88.3763 on.
  std::vector<float> xs;
  for (int i = 0; i < 1000; ++i) xs.push_back(88.0f + 0.001f * static_cast<float>(i));
  xs.push_back(-104.f);  // underflow still 0
  xs.push_back(INFINITY);
  Run r = RunOp("Exp", {Tensor::FromVector<float>(xs, TensorShape({static_cast<int64_t>(xs.size())}))},
                {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  const std::vector<float> y = Values<float>(r.outputs[0]);
  int differ = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = std::exp(xs[i]);
    const bool same = std::isinf(want) ? std::isinf(y[i]) : std::abs(y[i] - want) <= 4e-7f * std::abs(want);
    if (!same && differ++ < 3) WARN("Exp(" << xs[i] << ") = " << y[i] << ", std::exp " << want);
  }
  CHECK(differ == 0);
  CHECK(std::isfinite(y[720]));  // exp(88.72) = 3.36e38 < FLT_MAX
  CHECK(std::isinf(y[999]));     // exp(88.999) overflows
}

TEST_CASE("float Sigmoid is within 4e-7 relative of the true logistic on the vectorised path", "[fidelity]") {
  std::vector<float> xs;
  for (int i = 0; i <= 4000; ++i) xs.push_back(-20.f + 0.01f * static_cast<float>(i));  // [-20, 20]
  Run r = RunOp("Sigmoid", {Tensor::FromVector<float>(xs, TensorShape({static_cast<int64_t>(xs.size())}))},
                {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  const std::vector<float> y = Values<float>(r.outputs[0]);
  double worst = 0, at = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = 1.0 / (1.0 + std::exp(-static_cast<double>(xs[i])));
    const double rel = std::abs(y[i] - want) / want;
    if (rel > worst) {
      worst = rel;
      at = xs[i];
    }
  }
  INFO("worst relative error " << worst << " at " << at);
  CHECK(worst <= 4e-7);
  Run nan = RunOp("Sigmoid", {Tensor::FromVector<float>({NAN, INFINITY, -INFINITY, 0.f}, TensorShape({4}))},
                  {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(nan.status.ok());
  const std::vector<float> v = Values<float>(nan.outputs[0]);
  CHECK(std::isnan(v[0]));
  CHECK((v[1] == 1.f && v[2] == 0.f && v[3] == 0.5f));
}

TEST_CASE("Reshape of an empty tensor infers -1 as TensorFlow does", "[fidelity]") {
  struct Case {
    std::vector<int64_t> input, sizes, want;
  };
  // TensorFlow 2.21's shapes for the same calls.
  const std::vector<Case> cases = {{{0, 3}, {-1, 3}, {0, 3}},
                                   {{0, 3}, {-1, 0}, {3, 0}},
                                   {{0, 3}, {2, -1}, {2, 0}},
                                   {{0, 3}, {0, -1}, {0, 3}},
                                   {{2, 0, 3}, {-1, 0, 2}, {3, 0, 2}}};
  for (const Case& c : cases) {
    Tensor x(tensorflow::DT_FLOAT, TensorShape(c.input));
    Run r = RunOp("Reshape", {x, Tensor::FromVector<int64_t>(c.sizes, TensorShape({static_cast<int64_t>(c.sizes.size())}))},
                  {{"T", TypeA(tensorflow::DT_FLOAT)}, {"Tshape", TypeA(tensorflow::DT_INT64)}});
    INFO(r.status.ToString());
    REQUIRE(r.status.ok());
    CHECK(r.outputs[0].shape().dim_sizes() == c.want);
  }
  // A size that cannot hold the elements is still refused.
  Tensor six = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Run bad = RunOp("Reshape", {six, Tensor::FromVector<int64_t>({-1, 4}, TensorShape({2}))},
                  {{"T", TypeA(tensorflow::DT_FLOAT)}, {"Tshape", TypeA(tensorflow::DT_INT64)}});
  CHECK(bad.status.code() == error::INVALID_ARGUMENT);
}

TEST_CASE("a reduction refuses an axis named twice, as TensorFlow does", "[fidelity]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  for (const char* op : {"Sum", "Max", "Mean", "Prod"}) {
    for (const std::vector<int32_t>& axes : {std::vector<int32_t>{0, 0}, std::vector<int32_t>{1, -1}}) {
      Run r = RunOp(op, {x, Tensor::FromVector<int32_t>(axes, TensorShape({2}))},
                    {{"T", TypeA(tensorflow::DT_FLOAT)}, {"Tidx", TypeA(tensorflow::DT_INT32)}});
      INFO(op << " " << r.status.ToString());
      CHECK(r.status.code() == error::INVALID_ARGUMENT);
      CHECK(r.status.message().find("Axes contains duplicate dimension: " + std::to_string(axes[0] < 0 ? axes[0] + 2 : axes[0])) !=
            std::string::npos);
    }
  }
  // Distinct axes still reduce.
  Run ok = RunOp("Sum", {x, Tensor::FromVector<int32_t>({0, 1}, TensorShape({2}))},
                 {{"T", TypeA(tensorflow::DT_FLOAT)}, {"Tidx", TypeA(tensorflow::DT_INT32)}});
  REQUIRE(ok.status.ok());
  CHECK(Values<float>(ok.outputs[0]) == std::vector<float>{21});
}

TEST_CASE("Sin, Cos, Erf, Erfc, Atan2, Selu and LeakyRelu give each element what it gives alone", "[fidelity]") {
  // 100003 elements take the vectorised packets, the scalar tail and several threads; every
  // 331st element (and the last) is run again as a one-element tensor, bit for bit.
  std::vector<float> v(100003), w(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = -40.0f + 80.0f * static_cast<float>(i) / static_cast<float>(v.size()) + 1e-3f * static_cast<float>(i % 7);
    w[i] = 3.0f - static_cast<float>(i % 13) * 0.47f;
  }
  auto same_bits = [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (const char* op : {"Sin", "Cos", "Erf", "Erfc", "Selu", "LeakyRelu", "Atan2"}) {
    INFO(op);
    const bool binary = std::string(op) == "Atan2";
    auto run = [&](const std::vector<float>& x, const std::vector<float>& y) {
      std::vector<Tensor> in = {Tensor::FromVector<float>(x)};
      if (binary) in.push_back(Tensor::FromVector<float>(y));
      Run r = RunOp(op, in, {{"T", TypeA(tensorflow::DT_FLOAT)}});
      REQUIRE(r.status.ok());
      return Values<float>(r.outputs[0]);
    };
    const std::vector<float> all = run(v, w);
    for (size_t i = 0; i < v.size(); i = i + 331 < v.size() || i == v.size() - 1 ? i + 331 : v.size() - 1) {
      INFO("element " << i << " of " << v[i]);
      CHECK(same_bits(all[i], run({v[i]}, {w[i]})[0]));
    }
  }
}

// ---- Found by the differential harness (tests/compat/tf_fidelity_compat.py) ----------

TEST_CASE("kernels on every device thread evaluating Eigen in parallel finish", "[fidelity]") {
  // Each device thread runs a kernel whose Eigen reduction waits for shards on the pool: with
  // one pool for both, two int64 Sums on two threads waited for each other for ever.
  // Deleted only when every kernel finished (a deadlocked pool cannot be joined).
  auto* owned = new Device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 2);
  Device& device = *owned;
  std::vector<int64_t> v(1 << 20);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i % 1000) - 500;
  const Tensor x = Tensor::FromVector<int64_t>(v, TensorShape({1024, 1024}));
  NodeDef def;
  def.set_name("sum");
  def.set_op("Sum");
  (*def.mutable_attr())["T"] = TypeA(tensorflow::DT_INT64);
  auto op_def = OpRegistry::Global()->LookUp("Sum");
  REQUIRE(op_def.ok());
  AddDefaultsToNodeDef(**op_def, &def);
  std::vector<std::promise<int64_t>> sums(4);
  for (int k = 0; k < 4; ++k) {
    device.Schedule([&, k] {
      std::unique_ptr<OpKernel> kernel;
      if (!CreateOpKernel(&device, def, **op_def, &kernel).ok()) return sums[k].set_value(-1);
      const std::vector<Tensor> inputs = {x, Tensor::Scalar<int32_t>(k % 2)};
      OpKernelContext::Params params;
      params.device = &device;
      params.kernel = kernel.get();
      params.inputs = &inputs;
      OpKernelContext ctx(params);
      kernel->Compute(&ctx);
      sums[k].set_value(ctx.status().ok() ? ctx.outputs()[0].base<int64_t>()[7] : -1);
    });
  }
  int64_t column7 = 0, row7 = 0;  // output 7 of the reduction over axis 0, over axis 1
  for (int i = 0; i < 1024; ++i) {
    column7 += v[static_cast<size_t>(i) * 1024 + 7];
    row7 += v[7 * 1024 + static_cast<size_t>(i)];
  }
  for (int k = 0; k < 4; ++k) {
    std::future<int64_t> sum = sums[k].get_future();
    REQUIRE(sum.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
    CHECK(sum.get() == (k % 2 == 0 ? column7 : row7));
  }
  delete owned;
}

namespace {
uint32_t RegBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
// `x` repeated to n elements, so the scalar path (n = 1), the vectorised one and the tails
// (n = 37) are all taken.
std::vector<float> Repeat(std::vector<float> x, size_t n) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = x[i % x.size()];
  return out;
}
Tensor Floats(const std::vector<float>& v) { return Tensor::FromVector<float>(v); }
}  // namespace

TEST_CASE("Neg flips the sign bit: -(+0) is -0 and denormals keep their magnitude", "[fidelity]") {
  const float denormal = 1e-45f;
  for (size_t n : {1, 2, 37, 4099}) {
    INFO(n << " elements");
    Run r = RunOp("Neg", {Floats(Repeat({0.0f, denormal, -0.0f}, n))}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
    REQUIRE(r.status.ok());
    for (size_t i = 0; i < n; ++i) {
      const float want = i % 3 == 0 ? -0.0f : i % 3 == 1 ? -denormal : 0.0f;
      CHECK(RegBits(r.outputs[0].base<float>()[i]) == RegBits(want));
    }
  }
}

TEST_CASE("Maximum and Minimum give the second operand of two equal zeros and propagate NaN", "[fidelity]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t n : {1, 4, 37, 4099}) {
    INFO(n << " elements");
    const Tensor x = Floats(Repeat({-0.0f, 0.0f, nan, 1.0f, -3.0f}, n));
    const Tensor y = Floats(Repeat({0.0f, -0.0f, 2.0f, nan, 4.0f}, n));
    Run max = RunOp("Maximum", {x, y}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
    Run min = RunOp("Minimum", {x, y}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
    REQUIRE((max.status.ok() && min.status.ok()));
    for (size_t i = 0; i < n; ++i) {
      const float a = max.outputs[0].base<float>()[i], b = min.outputs[0].base<float>()[i];
      switch (i % 5) {
        case 0: CHECK((RegBits(a) == RegBits(0.0f) && RegBits(b) == RegBits(0.0f))); break;
        case 1: CHECK((RegBits(a) == RegBits(-0.0f) && RegBits(b) == RegBits(-0.0f))); break;
        case 2: case 3: CHECK((std::isnan(a) && std::isnan(b))); break;
        case 4: CHECK((a == 4.0f && b == -3.0f)); break;
      }
    }
  }
}

TEST_CASE("Relu and Relu6 of -0 are +0, as TensorFlow's", "[fidelity]") {
  for (const char* op : {"Relu", "Relu6"}) {
    for (size_t n : {1, 37}) {
      INFO(op << " over " << n);
      Run r = RunOp(op, {Floats(Repeat({-0.0f, -2.0f, 3.0f}, n))}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
      REQUIRE(r.status.ok());
      for (size_t i = 0; i < n; ++i) {
        CHECK(RegBits(r.outputs[0].base<float>()[i]) == RegBits(i % 3 == 2 ? 3.0f : 0.0f));
      }
    }
  }
}

TEST_CASE("Rsqrt is 1 / sqrt(x) at the extremes of float and double", "[fidelity]") {
  const float fmin = std::numeric_limits<float>::min();
  Run f = RunOp("Rsqrt", {Floats(Repeat({fmin, 4.027392864f, 1e30f}, 37))}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(f.status.ok());
  for (size_t i = 0; i < 37; ++i) {
    const float x = Repeat({fmin, 4.027392864f, 1e30f}, 37)[i];
    CHECK(f.outputs[0].base<float>()[i] == 1.0f / std::sqrt(x));  // 9.2233720e18 for the smallest normal
  }
  const double dmin = std::numeric_limits<double>::min(), dmax = std::numeric_limits<double>::max();
  Run d = RunOp("Rsqrt", {Tensor::FromVector<double>({dmin, dmax, dmin, dmax, 2.0})}, {{"T", TypeA(tensorflow::DT_DOUBLE)}});
  REQUIRE(d.status.ok());
  CHECK(d.outputs[0].base<double>()[0] == 1.0 / std::sqrt(dmin));  // 6.7e153, not 1.5e154
  CHECK(d.outputs[0].base<double>()[1] == 1.0 / std::sqrt(dmax));  // 7.5e-155, not 4.2e-155
}

TEST_CASE("Log and Pow read a denormal as zero on every path, as the vectorised ones do", "[fidelity]") {
  ScopedFlushDenormal daz;  // what every kernel runs under in a session
  const float denormal = 1e-45f;
  for (size_t n : {1, 37, 4099}) {
    INFO(n << " elements");
    Run log = RunOp("Log", {Floats(Repeat({denormal, -denormal}, n))}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
    REQUIRE(log.status.ok());
    for (size_t i = 0; i < n; ++i) CHECK(log.outputs[0].base<float>()[i] == -std::numeric_limits<float>::infinity());
    Run pow = RunOp("Pow", {Floats(Repeat({0.0f}, n)), Floats(Repeat({denormal, -denormal}, n))},
                    {{"T", TypeA(tensorflow::DT_FLOAT)}});
    REQUIRE(pow.status.ok());
    for (size_t i = 0; i < n; ++i) CHECK(pow.outputs[0].base<float>()[i] == 1.0f);  // 0^0
  }
}

TEST_CASE("Atan2 reads a denormal as zero, not as glibc computes it under DAZ", "[fidelity]") {
  ScopedFlushDenormal daz;
  const double pi = std::acos(-1.0);
  Run r = RunOp("Atan2", {Tensor::FromVector<double>({5e-324, -5e-324, 0.0}), Tensor::FromVector<double>({-2.5, -2.5, 5e-324})},
                {{"T", TypeA(tensorflow::DT_DOUBLE)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].base<double>()[0] == pi);  // glibc under DAZ: -pi
  CHECK(r.outputs[0].base<double>()[1] == -pi);
  CHECK(r.outputs[0].base<double>()[2] == 0.0);
}

TEST_CASE("float Range computes start + i * delta, not a running sum", "[fidelity]") {
  Run r = RunOp("Range", {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1), Tensor::Scalar<float>(0.1f)},
                {{"Tidx", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].NumElements() == 10);
  for (int i = 0; i < 10; ++i) CHECK(r.outputs[0].base<float>()[i] == 0.0f + static_cast<float>(i) * 0.1f);
  CHECK(r.outputs[0].base<float>()[7] == 0.699999988f);  // the sum drifted to 0.70000005
}

TEST_CASE("Transpose reads a negative permutation entry from the end, as TensorFlow 2.21", "[fidelity]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Run r = RunOp("Transpose", {x, Tensor::FromVector<int32_t>({-1, 0})}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 2}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 4, 2, 5, 3, 6});
  Run bad = RunOp("Transpose", {x, Tensor::FromVector<int32_t>({-3, 0})}, {{"T", TypeA(tensorflow::DT_FLOAT)}});
  CHECK(bad.status.code() == error::INVALID_ARGUMENT);
}

TEST_CASE("a tensor too large to address is ResourceExhausted, as TensorFlow's allocator says", "[fidelity]") {
  const int64_t hi = std::numeric_limits<int64_t>::max();
  Run r = RunOp("Range", {Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(hi), Tensor::Scalar<int64_t>(1)},
                {{"Tidx", TypeA(tensorflow::DT_INT64)}});
  CHECK(r.status.code() == error::RESOURCE_EXHAUSTED);
}

}  // namespace
}  // namespace tensoract
