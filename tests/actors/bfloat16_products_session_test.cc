// A session that asks for products in bfloat16 (GraphOptimizerOptions::bfloat16_products,
// graph/optimizer/mixed_precision.h): its float convolutions and MatMuls, fused or not, are
// marked "_bfloat16_products" after the remapper, other nodes and other dtypes are not, and
// the results stay within bfloat16's precision of the float session's.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "kernels/cpu/bfloat16_products.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

Output Filled(const Scope& s, std::vector<int64_t> dims, float a) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(a * static_cast<float>(i) + 0.3f) * 0.5f + 0.2f;  // sums that do not cancel
  tensorflow::TensorProto proto;
  Tensor::FromVector<float>(v, TensorShape(dims)).AsProtoTensorContent(&proto);
  return ops::Const(s, proto);
}

struct Ran {
  std::vector<std::vector<float>> values;
  std::map<std::string, bool> marked;  // node name -> has _bfloat16_products
};

Ran Run(const tensorflow::GraphDef& graph, bool bfloat16, const std::vector<std::string>& fetches) {
  SessionOptions options;
  options.optimizer.bfloat16_products = bfloat16;
  auto session = testing::NewSessionWith(graph, options);
  std::vector<float> x(4 * 10 * 10 * 32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.6f + 0.4f * std::cos(0.37f * static_cast<float>(i));  // as after a Relu
  RunOptions run;
  run.output_partition_graphs = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  Status s = session->Run(run, {{"x", Tensor::FromVector<float>(x, TensorShape({4, 10, 10, 32}))}}, fetches, {}, &out,
                          &metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  Ran r;
  for (const Tensor& t : out) r.values.push_back(testing::Values(t));
  for (const auto& n : metadata.partition_graphs.at(0).node()) {
    auto it = n.attr().find("_bfloat16_products");
    r.marked[n.name()] = it != n.attr().end() && it->second.b();
  }
  return r;
}

TEST_CASE("a session with bfloat16 products marks its float convolutions and MatMuls, and stays within bfloat16's "
          "precision") {
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({4, 10, 10, 32}));
    auto conv = ops::Conv2D(s.WithOpName("conv"), x, Filled(s, {3, 3, 32, 32}, 0.7f), {1, 1, 1, 1}, "SAME");
    ops::Relu(s.WithOpName("conv_relu"), ops::BiasAdd(s.WithOpName("conv_bias"), conv, Filled(s, {32}, 0.3f)));
    tensorflow::TensorProto flat_shape;
    Tensor::FromVector<int32_t>({40, 10 * 32}).AsProtoTensorContent(&flat_shape);
    auto flat = ops::Reshape(s, x, ops::Const(s, flat_shape));
    ops::MatMul(s.WithOpName("dense"), flat, Filled(s, {10 * 32, 512}, 0.05f));  // 6.5M multiply-adds
    ops::Sum(s.WithOpName("total"), x, {1, 2});
  });
  const std::vector<std::string> fetches = {"conv_relu", "dense", "total"};
  const Ran f32 = Run(graph, false, fetches);
  const Ran bf16 = Run(graph, true, fetches);
  CHECK(bf16.marked.at("conv_relu"));  // the _FusedConv2D, which took the Relu's name
  CHECK(bf16.marked.at("dense"));
  CHECK_FALSE(bf16.marked.at("total"));
  CHECK_FALSE(f32.marked.at("conv_relu"));
  CHECK_FALSE(f32.marked.at("dense"));
  for (size_t i = 0; i < fetches.size(); ++i) {
    INFO(fetches[i]);
    const auto& want = f32.values[i];
    const auto& got = bf16.values[i];
    REQUIRE(got.size() == want.size());
    float scale = 0, worst = 0;
    for (size_t j = 0; j < want.size(); ++j) {
      scale = std::max(scale, std::fabs(want[j]));
      worst = std::max(worst, std::fabs(got[j] - want[j]));
    }
    CHECK(worst <= 2e-2f * scale);
    // The Sum is not a product: to the bit. The products differ where the CPU has bfloat16
    // units (their operands lost 16 bits), and are the float ones where it has not.
    if (fetches[i] == "total" || !NativeBfloat16Products()) {
      CHECK(got == want);
    } else {
      CHECK(got != want);
    }
  }
}

}  // namespace
}  // namespace tensoract
