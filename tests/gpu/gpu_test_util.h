// The GPU tests' harness: random inputs, and one graph holding an op twice, pinned to
// /device:GPU:0 and to /device:CPU:0, fed the same placeholders, whose results must agree
// within a tolerance that covers the different order of float sums.
#ifndef TENSORACT_TESTS_GPU_GPU_TEST_UTIL_H_
#define TENSORACT_TESTS_GPU_GPU_TEST_UTIL_H_

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "client/session.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace testing {

inline Tensor RandomTensor(DataType dtype, const TensorShape& shape, std::mt19937* rng, double lo = -2, double hi = 2) {
  Tensor t(dtype, shape);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dtype == tensorflow::DT_FLOAT) t.base<float>()[i] = static_cast<float>(u(*rng));
    if (dtype == tensorflow::DT_DOUBLE) t.base<double>()[i] = u(*rng);
  }
  return t;
}

inline double At(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case tensorflow::DT_FLOAT: return t.base<float>()[i];
    case tensorflow::DT_DOUBLE: return t.base<double>()[i];
    case tensorflow::DT_BOOL: return t.base<bool>()[i];
    case tensorflow::DT_INT64: return static_cast<double>(t.base<int64_t>()[i]);
    case tensorflow::DT_INT32: return t.base<int32_t>()[i];
    default: FAIL("unexpected dtype"); return 0;
  }
}

// |gpu - cpu| <= tolerance * (1 + |cpu|) per element, or with `scale_by_max`,
// <= tolerance * (1 + max |cpu|): for sums whose terms cancel (a TF32 convolution's
// error follows the terms' size, not the result's).
inline void ExpectClose(const Tensor& gpu, const Tensor& cpu, double tolerance, const std::string& what,
                        bool scale_by_max = false) {
  INFO(what << ": GPU " << gpu.DebugString() << " vs CPU " << cpu.DebugString());
  REQUIRE(gpu.dtype() == cpu.dtype());
  REQUIRE(gpu.shape() == cpu.shape());
  double largest = 0;
  for (int64_t i = 0; scale_by_max && i < cpu.NumElements(); ++i) {
    if (std::isfinite(At(cpu, i))) largest = std::max(largest, std::abs(At(cpu, i)));
  }
  for (int64_t i = 0; i < gpu.NumElements(); ++i) {
    const double a = At(gpu, i), b = At(cpu, i);
    if (std::isnan(b)) {
      CHECK(std::isnan(a));
      continue;
    }
    INFO("element " << i);
    if (std::isinf(b)) {  // the same infinity (the max of nothing is -inf on both)
      REQUIRE(a == b);
      continue;
    }
    // The largest finite value scales the tolerance (an infinity would excuse anything).
    REQUIRE(std::abs(a - b) <= tolerance * (1 + (scale_by_max ? largest : std::abs(b))));
  }
}

using Build = std::function<std::vector<Output>(const Scope& scope, const std::vector<Output>& inputs)>;

// Builds `build` twice over placeholders fed `inputs`, on the GPU and on the CPU, runs both
// in one step, and compares every output.
inline void CompareWithCpu(const std::string& what, const std::vector<Tensor>& inputs, const Build& build,
                    double tolerance = 1e-5, bool scale_by_max = false) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> placeholders;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Output p = ops::Placeholder(root.WithOpName("in" + std::to_string(i)), inputs[i].dtype());
    placeholders.push_back(p);
    feeds.push_back({p.name(), inputs[i]});
  }
  std::vector<Output> on_gpu = build(root.WithDevice("/device:GPU:0"), placeholders);
  std::vector<Output> on_cpu = build(root.WithDevice("/device:CPU:0"), placeholders);
  tensorflow::GraphDef def;
  Status built = root.ToGraphDef(&def);
  INFO(what << ": " << built.ToString());
  REQUIRE(built.ok());
  auto session = Session::New({});
  REQUIRE(session.ok());
  REQUIRE((*session)->Create(def).ok());
  std::vector<std::string> fetches;
  for (const Output& o : on_gpu) fetches.push_back(o.name());
  for (const Output& o : on_cpu) fetches.push_back(o.name());
  std::vector<Tensor> out;
  Status run = (*session)->Run(feeds, fetches, {}, &out);
  INFO(what << ": " << run.ToString());
  REQUIRE(run.ok());
  for (size_t i = 0; i < on_gpu.size(); ++i) ExpectClose(out[i], out[i + on_gpu.size()], tolerance, what, scale_by_max);
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_GPU_GPU_TEST_UTIL_H_
