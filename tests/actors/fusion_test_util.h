// What the remapper's fusion tests share (product_fusion_test.cc, sequence_fusion_test.cc):
// constant tensors and inputs of known values, a graph run with the remapper on or off (its
// fetched values as floats and the partition graph's ops), and a comparison within float
// rounding.
#ifndef TENSORACT_TESTS_ACTORS_FUSION_TEST_UTIL_H_
#define TENSORACT_TESTS_ACTORS_FUSION_TEST_UTIL_H_

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/actors/test_util.h"

namespace tensoract {
namespace testing {

// A float Const of shape `dims` holding sin(a i + 0.3) / 2 + b.
inline Output Filled(const Scope& s, std::vector<int64_t> dims, float a, float b = 0.f) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(a * static_cast<float>(i) + 0.3f) * 0.5f + b;
  tensorflow::TensorProto proto;
  Tensor::FromVector<float>(v, TensorShape(dims)).AsProtoTensorContent(&proto);
  return ops::Const(s, proto);
}

// What RunGraph saw.
struct Ran {
  std::vector<std::vector<float>> values;
  std::vector<std::string> ops;  // "op:name" of the partition graph
  std::map<std::string, std::vector<std::string>> inputs;  // by node name
};

// Runs `graph` with the remapper on or off: the fetched values and the partition graph.
inline Ran RunGraph(const tensorflow::GraphDef& graph, bool remap,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches) {
  SessionOptions options;
  options.optimizer.do_remapping = remap;
  auto session = testing::NewSessionWith(graph, options);
  RunOptions run;
  run.output_partition_graphs = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  Status s = session->Run(run, feeds, fetches, {}, &out, &metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  Ran r;
  for (const Tensor& t : out) r.values.push_back(Values(t));
  for (const auto& n : metadata.partition_graphs.at(0).node()) {
    r.ops.push_back(n.op() + ":" + n.name());
    r.inputs[n.name()].assign(n.input().begin(), n.input().end());
  }
  return r;
}

// Equal within 1e-4 relative, 1e-5 absolute: float rounding of a fused kernel.
inline void CheckClose(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).epsilon(1e-4).margin(1e-5));
  }
}

// A float input of shape `dims` holding 2 cos(0.37 i).
inline Tensor InputTensor(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::cos(0.37f * static_cast<float>(i)) * 2.f;
  return Tensor::FromVector<float>(v, TensorShape(dims));
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_ACTORS_FUSION_TEST_UTIL_H_
