// A session that asks for products in bfloat16 (GraphOptimizerOptions::bfloat16_products,
// graph/optimizer/mixed_precision.h): its float convolutions and MatMuls, fused or not, are
// marked "_bfloat16_products" after the remapper, other nodes and other dtypes are not, and
// the results stay within bfloat16's precision of the float session's. With
// bfloat16_activations too, a ResNet block's convolutions, pool and the nodes between them
// become bfloat16 nodes joined to the float graph by Casts, the weights' Casts marked to be
// kept, and the results stay within a few bfloat16 steps; a MobileNet block's depthwise
// convolution joins them as a grouped convolution, a DenseNet block's pre-activated 1x1
// convolutions (_FusedChannelStepsConv2D) and plain 3x3 ones as bfloat16 nodes. A session that asks for products
// in 8-bit integers (GraphOptimizerOptions::int8_products) marks its float convolutions
// "_int8_products", not its MatMuls, and stays within the quantization's error.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_depthwise_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "kernels/cpu/bfloat16_products.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

Output FilledInput(const Scope& s, std::vector<int64_t> dims, float a) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(a * static_cast<float>(i) + 0.3f) * 0.5f + 0.2f;  // sums that do not cancel
  tensorflow::TensorProto proto;
  Tensor::FromVector<float>(v, TensorShape(dims)).AsProtoTensorContent(&proto);
  return ops::Const(s, proto);
}

struct Outcome {
  std::vector<std::vector<float>> values;
  std::map<std::string, bool> marked;  // node name -> has _bfloat16_products (_int8_products)
};

struct SeenNode {
  std::string op;
  DataType t = tensorflow::DT_INVALID;  // its T, where it has one
  bool reuse = false;                   // a Cast marked to keep its output
};

Outcome RunWithProducts(const tensorflow::GraphDef& graph, bool bfloat16, const std::vector<std::string>& fetches,
        bool activations = false, std::map<std::string, SeenNode>* nodes = nullptr, bool int8 = false) {
  SessionOptions options;
  options.optimizer.bfloat16_products = bfloat16;
  options.optimizer.int8_products = int8;
  options.optimizer.bfloat16_activations = activations;
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
  Outcome r;
  for (const Tensor& t : out) r.values.push_back(testing::Values(t));
  for (const auto& n : metadata.partition_graphs.at(0).node()) {
    auto it = n.attr().find(int8 ? "_int8_products" : "_bfloat16_products");
    r.marked[n.name()] = it != n.attr().end() && it->second.b();
    if (nodes != nullptr) {
      SeenNode& node = (*nodes)[n.name()];
      node.op = n.op();
      auto t = n.attr().find("T");
      if (t != n.attr().end()) node.t = t->second.type();
      auto reuse = n.attr().find("_reuse_while_input_unchanged");
      node.reuse = reuse != n.attr().end() && reuse->second.b();
    }
  }
  return r;
}

// The largest difference between `got` and `want` over the largest |want|.
float RelativeError(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  float scale = 0, worst = 0;
  for (size_t j = 0; j < want.size(); ++j) {
    scale = std::max(scale, std::fabs(want[j]));
    worst = std::max(worst, std::fabs(got[j] - want[j]));
  }
  return worst / scale;
}

// A convolution with its bias and Relu (fused into one _FusedConv2D named "conv_relu"), a
// MatMul ("dense", 6.5M multiply-adds) and a Sum ("total") of the same input "x".
tensorflow::GraphDef ConvDenseSumGraph() {
  return testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({4, 10, 10, 32}));
    auto conv = ops::Conv2D(s.WithOpName("conv"), x, FilledInput(s, {3, 3, 32, 32}, 0.7f), {1, 1, 1, 1}, "SAME");
    ops::Relu(s.WithOpName("conv_relu"), ops::BiasAdd(s.WithOpName("conv_bias"), conv, FilledInput(s, {32}, 0.3f)));
    tensorflow::TensorProto flat_shape;
    Tensor::FromVector<int32_t>({40, 10 * 32}).AsProtoTensorContent(&flat_shape);
    auto flat = ops::Reshape(s, x, ops::Const(s, flat_shape));
    ops::MatMul(s.WithOpName("dense"), flat, FilledInput(s, {10 * 32, 512}, 0.05f));
    ops::Sum(s.WithOpName("total"), x, {1, 2});
  });
}

TEST_CASE("a session with int8 products marks its float convolutions, not its MatMuls, and stays within the "
          "quantization's error") {
  const tensorflow::GraphDef graph = ConvDenseSumGraph();
  const std::vector<std::string> fetches = {"conv_relu", "dense", "total"};
  const Outcome f32 = RunWithProducts(graph, false, fetches, false, nullptr, /*int8=*/false);
  const Outcome int8 = RunWithProducts(graph, false, fetches, false, nullptr, /*int8=*/true);
  CHECK(int8.marked.at("conv_relu"));  // the _FusedConv2D, which took the Relu's name
  CHECK_FALSE(int8.marked.at("dense"));
  CHECK_FALSE(int8.marked.at("total"));
  CHECK_FALSE(f32.marked.at("conv_relu"));
  CHECK(RelativeError(int8.values[0], f32.values[0]) < 2e-2);
  CHECK(int8.values[1] == f32.values[1]);
  CHECK(int8.values[2] == f32.values[2]);
}

TEST_CASE("a session with bfloat16 products marks its float convolutions and MatMuls, and stays within bfloat16's "
          "precision") {
  const tensorflow::GraphDef graph = ConvDenseSumGraph();
  const std::vector<std::string> fetches = {"conv_relu", "dense", "total"};
  const Outcome f32 = RunWithProducts(graph, false, fetches);
  const Outcome bf16 = RunWithProducts(graph, true, fetches);
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

TEST_CASE("a session with bfloat16 activations keeps a ResNet block's activations in bfloat16 between its "
          "convolutions") {
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({4, 10, 10, 32}));
    // Keras: Conv2D, batch norm as x * a + b, Relu; a 1x1 Conv2D, batch norm, + the
    // block's input, Relu; then a max pool and the global average.
    auto conv1 = ops::Conv2D(s.WithOpName("conv1"), x, FilledInput(s, {3, 3, 32, 32}, 0.7f), {1, 1, 1, 1}, "SAME");
    auto bn1 = ops::AddV2(s.WithOpName("bn1"), ops::Mul(s, conv1, FilledInput(s, {1, 1, 1, 32}, 0.9f)),
                          FilledInput(s, {1, 1, 1, 32}, 1.1f));
    auto relu1 = ops::Relu(s.WithOpName("relu1"), bn1);
    auto conv2 = ops::Conv2D(s.WithOpName("conv2"), relu1, FilledInput(s, {1, 1, 32, 32}, 0.3f), {1, 1, 1, 1}, "SAME");
    auto bn2 = ops::AddV2(s.WithOpName("bn2"), ops::Mul(s, conv2, FilledInput(s, {1, 1, 1, 32}, 0.4f)),
                          FilledInput(s, {1, 1, 1, 32}, 0.2f));
    auto block = ops::Relu(s.WithOpName("block"), ops::AddV2(s.WithOpName("residual"), bn2, relu1));
    auto pool = ops::MaxPool(s.WithOpName("pool"), block, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
    ops::Mean(s.WithOpName("features"), pool, {1, 2});
  });
  const std::vector<std::string> fetches = {"features", "block"};
  const Outcome f32 = RunWithProducts(graph, false, fetches);
  std::map<std::string, SeenNode> nodes;
  const Outcome bf16 = RunWithProducts(graph, true, fetches, /*activations=*/true, &nodes);
  int convolutions = 0, kept_casts = 0, casts = 0;
  for (const auto& [name, n] : nodes) {
    INFO(name << " (" << n.op << ")");
    if (n.op == "_MklNativeFusedConv2D") {
      ++convolutions;
      CHECK(n.t == tensorflow::DT_BFLOAT16);
    }
    if (n.op == "Cast") ++casts;
    if (n.reuse) ++kept_casts;
    // Each became the bfloat16 one where the CPU has bfloat16 units; elsewhere none did.
    if (NativeBfloat16Products()) CHECK(n.op != "_FusedConv2D");
  }
  if (NativeBfloat16Products()) {
    CHECK(convolutions == 2);
    CHECK(nodes.at("pool").t == tensorflow::DT_BFLOAT16);
    CHECK(nodes.at("features").t == tensorflow::DT_BFLOAT16);  // the global average reads bfloat16
    // Into the region: x and the two filters (kept); out of it: the Mean and the block (the
    // residual's Relu, fused into conv2) to their fetches.
    CHECK(kept_casts == 2);
    CHECK(casts == 5);
  } else {
    CHECK(convolutions == 0);  // without bfloat16 units nothing is rewritten
    CHECK(casts == 0);
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    INFO(fetches[i]);
    // Each layer's output rounded to bfloat16 (2^-9 relative), three layers deep.
    CHECK(RelativeError(bf16.values[i], f32.values[i]) <= 2e-2f);
  }
}

TEST_CASE("a session with bfloat16 activations keeps a MobileNet block in bfloat16 through its depthwise "
          "convolutions") {
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({4, 10, 10, 32}));
    // Keras' inverted residual block: expand (1x1, batch norm, Relu6), depthwise 3x3 (batch
    // norm, Relu6), project (1x1, batch norm), + the block's input; then a second block's
    // expansion, a strided depthwise convolution with a channel multiplier of 2 (batch
    // norm, Relu) and its projection.
    auto expand = ops::Conv2D(s.WithOpName("expand"), x, FilledInput(s, {1, 1, 32, 96}, 0.7f), {1, 1, 1, 1}, "SAME");
    auto expand_bn = ops::AddV2(s, ops::Mul(s, expand, FilledInput(s, {1, 1, 1, 96}, 0.9f)),
                                FilledInput(s, {1, 1, 1, 96}, 1.1f));
    auto expand_relu = ops::Relu6(s.WithOpName("expand_relu"), expand_bn);
    auto depthwise = ops::DepthwiseConv2dNative(s.WithOpName("depthwise"), expand_relu,
                                                FilledInput(s, {3, 3, 96, 1}, 0.3f), {1, 1, 1, 1}, "SAME");
    auto depthwise_bn = ops::AddV2(s, ops::Mul(s, depthwise, FilledInput(s, {1, 1, 1, 96}, 0.4f)),
                                   FilledInput(s, {1, 1, 1, 96}, 0.2f));
    auto depthwise_relu = ops::Relu6(s.WithOpName("depthwise_relu"), depthwise_bn);
    auto project = ops::Conv2D(s.WithOpName("project"), depthwise_relu, FilledInput(s, {1, 1, 96, 32}, 0.5f),
                               {1, 1, 1, 1}, "SAME");
    auto project_bn = ops::AddV2(s, ops::Mul(s, project, FilledInput(s, {1, 1, 1, 32}, 0.6f)),
                                 FilledInput(s, {1, 1, 1, 32}, 0.1f));
    auto block = ops::AddV2(s.WithOpName("block"), project_bn, x);
    auto expand2 = ops::Conv2D(s, block, FilledInput(s, {1, 1, 32, 64}, 0.2f), {1, 1, 1, 1}, "SAME");
    auto expand2_relu = ops::Relu6(s, ops::AddV2(s, ops::Mul(s, expand2, FilledInput(s, {1, 1, 1, 64}, 0.5f)),
                                                 FilledInput(s, {1, 1, 1, 64}, 0.3f)));
    auto strided = ops::DepthwiseConv2dNative(s.WithOpName("strided"), expand2_relu,
                                              FilledInput(s, {3, 3, 64, 2}, 0.8f), {1, 2, 2, 1}, "VALID");
    auto strided_bn = ops::AddV2(s, ops::Mul(s, strided, FilledInput(s, {1, 1, 1, 128}, 0.6f)),
                                 FilledInput(s, {1, 1, 1, 128}, 0.4f));
    auto project2 = ops::Conv2D(s, ops::Relu(s, strided_bn), FilledInput(s, {1, 1, 128, 32}, 0.1f), {1, 1, 1, 1},
                                "SAME");
    auto project2_bn = ops::AddV2(s.WithOpName("project2"), ops::Mul(s, project2, FilledInput(s, {1, 1, 1, 32}, 0.3f)),
                                  FilledInput(s, {1, 1, 1, 32}, 0.2f));
    // A depthwise convolution read by a Mean (as EfficientNet's, read by its
    // squeeze-and-excitation) joins, and the Mean with it; one read by anything else (a Sub)
    // stays float. project2 has several readers, so it is not fused with them.
    auto head = ops::DepthwiseConv2dNative(s.WithOpName("head"), project2_bn, FilledInput(s, {3, 3, 32, 1}, 0.9f),
                                           {1, 1, 1, 1}, "SAME");
    auto head_bn = ops::AddV2(s.WithOpName("head_bn"), ops::Mul(s, head, FilledInput(s, {1, 1, 1, 32}, 0.7f)),
                              FilledInput(s, {1, 1, 1, 32}, 0.5f));
    auto side = ops::DepthwiseConv2dNative(s.WithOpName("side"), project2_bn, FilledInput(s, {3, 3, 32, 1}, 0.2f),
                                           {1, 1, 1, 1}, "SAME");
    auto side_bn = ops::AddV2(s.WithOpName("side_bn"), ops::Mul(s, side, FilledInput(s, {1, 1, 1, 32}, 0.3f)),
                              FilledInput(s, {1, 1, 1, 32}, 0.1f));
    auto pooled = ops::AddV2(s, ops::Mean(s.WithOpName("head_mean"), head_bn, {1, 2}), ops::Mean(s, project2_bn, {1, 2}));
    ops::AddV2(s.WithOpName("features"), pooled, ops::Mean(s, ops::Sub(s, side_bn, project2_bn), {1, 2}));
  });
  const std::vector<std::string> fetches = {"features", "block"};
  const Outcome f32 = RunWithProducts(graph, false, fetches);
  std::map<std::string, SeenNode> nodes;
  const Outcome bf16 = RunWithProducts(graph, true, fetches, /*activations=*/true, &nodes);
  int convolutions = 0, grouped_filters = 0;
  for (const auto& [name, n] : nodes) {
    INFO(name << " (" << n.op << ")");
    if (n.op == "_MklNativeFusedConv2D") {
      ++convolutions;
      CHECK(n.t == tensorflow::DT_BFLOAT16);
    }
    if (n.op == "Reshape" && name.find("GroupedFilter") != std::string::npos) ++grouped_filters;
    if (NativeBfloat16Products()) CHECK(n.op != "_FusedConv2DWithDepthwise");  // the blocks are not fused into one
  }
  if (NativeBfloat16Products()) {
    CHECK(convolutions == 7);  // four 1x1 and three depthwise convolutions
    CHECK(nodes.at("head_bn").t == tensorflow::DT_BFLOAT16);
    CHECK(nodes.at("side_bn").op == "_FusedDepthwiseConv2dNative");
    CHECK(nodes.at("side_bn").t == tensorflow::DT_FLOAT);
    CHECK(grouped_filters == 3);
    CHECK(nodes.at("block").t == tensorflow::DT_BFLOAT16);
    CHECK(nodes.at("head_mean").t == tensorflow::DT_BFLOAT16);
    CHECK(nodes.at("features").t == tensorflow::DT_FLOAT);
  } else {
    CHECK(convolutions == 0);
    CHECK(grouped_filters == 0);
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    INFO(fetches[i]);
    CHECK(RelativeError(bf16.values[i], f32.values[i]) <= 2e-2f);
  }
}

TEST_CASE("a session with bfloat16 activations adds a bottleneck's residual in place, with the float values") {
  // ResNet's bottleneck: the block's input is read by its first convolution and, last, by
  // the residual Add fused into the third, which then takes over its buffer (no one else
  // reads it by then) as the output oneDNN's sum post-op adds to. Two blocks in a row, so
  // the second's input is the first's output, itself computed in place.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({4, 10, 10, 32}));
    auto stem = ops::Relu(s, ops::Conv2D(s, x, FilledInput(s, {1, 1, 32, 64}, 0.4f), {1, 1, 1, 1}, "SAME"));
    auto bottleneck = [&](Output in, float a, const std::string& name) {
      auto reduce = ops::Relu(s, ops::Conv2D(s, in, FilledInput(s, {1, 1, 64, 16}, a), {1, 1, 1, 1}, "SAME"));
      auto middle = ops::Relu(s, ops::Conv2D(s, reduce, FilledInput(s, {3, 3, 16, 16}, a + 0.1f), {1, 1, 1, 1}, "SAME"));
      auto expand = ops::Conv2D(s, middle, FilledInput(s, {1, 1, 16, 64}, a + 0.2f), {1, 1, 1, 1}, "SAME");
      auto bn = ops::AddV2(s, ops::Mul(s, expand, FilledInput(s, {1, 1, 1, 64}, a + 0.3f)),
                           FilledInput(s, {1, 1, 1, 64}, a + 0.4f));
      return ops::Relu(s.WithOpName(name), ops::AddV2(s, bn, in));
    };
    auto block2 = bottleneck(bottleneck(stem, 0.3f, "block1"), 0.6f, "block2");
    ops::Mean(s.WithOpName("features"), block2, {1, 2});
  });
  const std::vector<std::string> fetches = {"features"};
  const Outcome f32 = RunWithProducts(graph, false, fetches);
  std::map<std::string, SeenNode> nodes;
  const Outcome bf16 = RunWithProducts(graph, true, fetches, /*activations=*/true, &nodes);
  if (NativeBfloat16Products()) {
    CHECK(nodes.at("block1").op == "_MklNativeFusedConv2D");
    CHECK(nodes.at("block1").t == tensorflow::DT_BFLOAT16);
    CHECK(nodes.at("block2").t == tensorflow::DT_BFLOAT16);
  }
  CHECK(RelativeError(bf16.values[0], f32.values[0]) <= 2e-2f);
}

TEST_CASE("a session with bfloat16 activations keeps a DenseNet block in bfloat16, its pre-activations "
          "in float") {
  // Keras' dense block of two layers on x: each a batch norm and Relu of the block so far,
  // a 1x1 convolution (batch norm, Relu), a plain 3x3 convolution of 16 channels
  // concatenated to the block; then a transition's batch norm, Relu and 1x1 convolution.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({4, 10, 10, 32}));
    auto pre_activated = [&](Output in, int64_t depth, float a) {
      return ops::Relu(s, ops::AddV2(s, ops::Mul(s, in, FilledInput(s, {depth}, a)), FilledInput(s, {depth}, a + 0.1f)));
    };
    auto layer = [&](Output block, int64_t depth, float a, const std::string& name) {
      auto bottleneck = ops::Conv2D(s, pre_activated(block, depth, a), FilledInput(s, {1, 1, depth, 64}, a + 0.2f),
                                    {1, 1, 1, 1}, "SAME");
      auto bottleneck_relu = ops::Relu(s, ops::AddV2(s, ops::Mul(s, bottleneck, FilledInput(s, {64}, a + 0.3f)),
                                                     FilledInput(s, {64}, a + 0.4f)));
      auto grown = ops::Conv2D(s.WithOpName(name), bottleneck_relu, FilledInput(s, {3, 3, 64, 16}, a + 0.5f),
                               {1, 1, 1, 1}, "SAME");
      return ops::Concat(s, {block, grown}, ops::Const(s, 3));
    };
    auto block = layer(layer(x, 32, 0.3f, "grown1"), 48, 0.5f, "grown2");
    auto transition = ops::Conv2D(s.WithOpName("transition"), pre_activated(block, 64, 0.7f),
                                  FilledInput(s, {1, 1, 64, 32}, 0.2f), {1, 1, 1, 1}, "SAME");
    ops::AvgPool(s.WithOpName("features"), transition, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  });
  const std::vector<std::string> fetches = {"features"};
  const Outcome f32 = RunWithProducts(graph, false, fetches);
  std::map<std::string, SeenNode> nodes;
  const Outcome bf16 = RunWithProducts(graph, true, fetches, /*activations=*/true, &nodes);
  int steps_convolutions = 0, bfloat16_steps_convolutions = 0;
  for (const auto& [name, n] : nodes) {
    if (n.op != "_FusedChannelStepsConv2D") continue;
    ++steps_convolutions;
    if (n.t == tensorflow::DT_BFLOAT16) ++bfloat16_steps_convolutions;
  }
  CHECK(steps_convolutions == 3);  // the two layers' bottlenecks and the transition
  if (NativeBfloat16Products()) {
    CHECK(bfloat16_steps_convolutions == 3);
    CHECK(nodes.at("grown1").t == tensorflow::DT_BFLOAT16);
    CHECK(nodes.at("grown2").t == tensorflow::DT_BFLOAT16);
    CHECK(nodes.at("features").t == tensorflow::DT_BFLOAT16);
  } else {
    CHECK(bfloat16_steps_convolutions == 0);
  }
  CHECK(RelativeError(bf16.values[0], f32.values[0]) <= 2e-2f);
}

TEST_CASE("a session with bfloat16 products computes a Dense layer's exact GELU in float, within bfloat16's "
          "precision") {
  // Keras' Dense(512, activation="gelu") on 40 rows of 320 (6.5M multiply-adds: oneDNN's
  // bfloat16 kernels), then tf.nn.gelu's 0.5 x erfc(-x / sqrt 2): one _FusedMatMul, whose
  // GELU after rounded products is GeluExactFast's.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({4, 10, 10, 32}));
    tensorflow::TensorProto flat_shape;
    Tensor::FromVector<int32_t>({40, 10 * 32}).AsProtoTensorContent(&flat_shape);
    auto product = ops::MatMul(s, ops::Reshape(s, x, ops::Const(s, flat_shape)), FilledInput(s, {320, 512}, 0.05f));
    auto y = ops::BiasAdd(s, product, FilledInput(s, {512}, 0.3f));
    auto erfc = ops::Erfc(s, ops::Mul(s, ops::Neg(s, y), ops::Const(s, 0.7071067811865476f)));
    ops::Mul(s.WithOpName("gelu"), ops::Mul(s, ops::Const(s, 0.5f), y), erfc);
  });
  std::map<std::string, SeenNode> nodes;
  const Outcome f32 = RunWithProducts(graph, false, {"gelu"});
  const Outcome bf16 = RunWithProducts(graph, true, {"gelu"}, /*activations=*/false, &nodes);
  CHECK(nodes.at("gelu").op == "_FusedMatMul");
  CHECK(bf16.marked.at("gelu"));
  CHECK(RelativeError(bf16.values[0], f32.values[0]) <= 1e-2f);
  if (!NativeBfloat16Products()) CHECK(bf16.values[0] == f32.values[0]);  // nothing rounded
}

}  // namespace
}  // namespace tensoract
