// The remapper's fusions of what transformer, recurrent and text models write (graph/
// optimizer/remapper.h): Keras' LayerNormalization into _MklLayerNorm, its attention into
// _FusedAttention, its LSTM and GRU cells' gates into _FusedLstmGates and _FusedGruGates
// (recurrent_gates_fusion.h), its embedding bag into _FusedGatherMean, and a Tile before
// SelectV2's condition dropped (a masked layer's). Each graph runs with the remapper on and
// off: the fused op replaces the pattern and the values agree up to float rounding (to the
// bit where only a Tile goes); what must not fuse (a value read elsewhere) is left alone, and
// a fused kernel refuses bad input naming it.
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/list_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/segment_ops.h"
#include "tests/actors/fusion_test_util.h"

namespace tensoract {
namespace {

using testing::CheckClose;
using testing::Filled;
using testing::Has;
using testing::InputTensor;
using testing::Ran;
using testing::RunGraph;
using testing::Values;

// Keras 3's LayerNormalization(axis=-1) as its TensorFlow backend writes it, on [?, ?, 24].
tensorflow::GraphDef KerasLayerNorm(float epsilon) {
  return testing::BuildGraph([epsilon](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, -1, 24}));
    ops::ReductionAttrs keep;
    keep.keep_dims = true;
    auto mean = ops::Mean(s.WithOpName("mean"), x, ops::Const(s, {-1}), keep);
    auto variance = ops::Mean(s.WithOpName("variance"), ops::SquaredDifference(s, x, ops::StopGradient(s, mean)),
                              ops::Const(s, {-1}), keep);
    auto gamma = ops::Reshape(s, Filled(s, {24}, 0.4f, 1.f), ops::Const(s, {1, 1, 24}));
    auto beta = ops::Reshape(s, Filled(s, {24}, 0.9f), ops::Const(s, {1, 1, 24}));
    auto m = ops::Mul(s, ops::Rsqrt(s, ops::AddV2(s, variance, ops::Const(s, epsilon))), gamma);
    auto shift = ops::AddV2(s, ops::Mul(s, ops::Neg(s, mean), m), beta);
    ops::AddV2(s.WithOpName("y"), ops::Mul(s, x, m), shift);
  });
}

TEST_CASE("Keras' LayerNormalization fuses into one _MklLayerNorm, within float rounding") {
  const tensorflow::GraphDef graph = KerasLayerNorm(1e-6f);
  Tensor x = InputTensor({3, 5, 24});
  const Ran fused = RunGraph(graph, true, {{"x", x}}, {"y"});
  const Ran apart = RunGraph(graph, false, {{"x", x}}, {"y"});
  CHECK(Has(fused.ops, "_MklLayerNorm:y"));
  CHECK_FALSE(Has(fused.ops, "Mean:mean"));
  CHECK_FALSE(Has(fused.ops, "Mean:variance"));
  CHECK(Has(apart.ops, "Mean:variance"));
  REQUIRE(fused.values[0].size() == 3 * 5 * 24);
  CheckClose(fused.values[0], apart.values[0]);
}

TEST_CASE("a layer norm whose moments are used elsewhere is left alone") {
  // The mean also fetched: it must still be computed, so nothing fuses.
  const tensorflow::GraphDef graph = KerasLayerNorm(1e-3f);
  const Ran ran = RunGraph(graph, true, {{"x", InputTensor({2, 3, 24})}}, {"y", "mean"});
  CHECK(Has(ran.ops, "Mean:mean"));
  CHECK_FALSE(Has(ran.ops, "_MklLayerNorm:y"));
}

// A Keras LSTM cell, on x [?, 6] and c_prev (of unknown shape, as a loop variable's), after its
// products z [?, 4 * 5]: Split into
// i, f, g, o; c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g); h = sigmoid(o) * tanh(c).
// `swapped` writes every Mul and the Adds with their operands the other way round, and the
// bias as an AddV2 of a vector rather than a BiasAdd.
tensorflow::GraphDef KerasLstmGates(bool swapped) {
  return testing::BuildGraph([swapped](const Scope& s) {
    // The products: x W + b, as in Keras' cell (known to be [?, 20]).
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 6}));
    auto product = ops::MatMul(s, x, Filled(s, {6, 20}, 0.6f));
    auto b = Filled(s, {20}, 0.2f, 0.05f);
    Output z = swapped ? Output(ops::AddV2(s.WithOpName("z"), b, product)) : Output(ops::BiasAdd(s.WithOpName("z"), product, b));
    auto c_prev = ops::Placeholder(s.WithOpName("c_prev"), tensorflow::DT_FLOAT, PartialTensorShape());
    auto gates = ops::Split(s.WithOpName("split"), ops::Const(s, 1), z, 4);
    auto i = ops::Sigmoid(s, gates[0]);
    auto f = ops::Sigmoid(s.WithOpName("f"), gates[1]);
    auto g = ops::Tanh(s, gates[2]);
    auto o = ops::Sigmoid(s, gates[3]);
    auto kept = swapped ? ops::Mul(s, c_prev, f) : ops::Mul(s, f, c_prev);
    auto added = swapped ? ops::Mul(s, g, i) : ops::Mul(s, i, g);
    auto c = swapped ? ops::AddV2(s.WithOpName("c"), added, kept) : ops::AddV2(s.WithOpName("c"), kept, added);
    auto c_tanh = ops::Tanh(s, c);
    if (swapped) ops::Mul(s.WithOpName("h"), c_tanh, o);
    else ops::Mul(s.WithOpName("h"), o, c_tanh);
  });
}

TEST_CASE("a Keras LSTM cell's gates fuse into one _FusedLstmGates, within float rounding") {
  for (bool swapped : {false, true}) {
    INFO("operands swapped: " << swapped);
    // c_prev is the whole state, or one row or one column of it that the unfused Mul
    // broadcasts (the kernel broadcasts it too).
    for (const std::vector<int64_t>& c_shape : std::vector<std::vector<int64_t>>{{3, 5}, {1, 5}, {5}, {3, 1}}) {
      INFO("c_prev of " << c_shape.size() << " dimensions, " << c_shape.front() << " first");
      const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", InputTensor({3, 6})},
                                                                 {"c_prev", InputTensor(c_shape)}};
      const Ran fused = RunGraph(KerasLstmGates(swapped), true, feeds, {"c", "h"});
      const Ran apart = RunGraph(KerasLstmGates(swapped), false, feeds, {"c", "h"});
      CHECK(Has(fused.ops, "_FusedLstmGates:c"));
      CHECK_FALSE(Has(fused.ops, "Split:split"));
      CHECK(Has(apart.ops, "Split:split"));
      // The bias is added in the fused kernel too.
      const std::string bias_node = swapped ? "AddV2:z" : "BiasAdd:z";
      CHECK_FALSE(Has(fused.ops, bias_node));
      CHECK(Has(apart.ops, bias_node));
      REQUIRE(fused.values.size() == 2);
      for (int k = 0; k < 2; ++k) {
        REQUIRE(fused.values[k].size() == 3 * 5);
        CheckClose(fused.values[k], apart.values[k]);
      }
    }
  }
}

// A recurrent layer as Keras writes its loop: the sequence x [steps, batch, 6] unstacked
// into a TensorList, and in each step h = Tanh(x_t W [+ b] + h U), with x_t the step read
// from the list; "h" is the last state.
tensorflow::GraphDef RecurrentLayer(bool bias) {
  return testing::BuildGraph([bias](const Scope& s) {
    namespace tf = ::tensorflow;
    auto x = ops::Placeholder(s.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({-1, -1, 6}));
    auto h0 = ops::Placeholder(s.WithOpName("h0"), tf::DT_FLOAT, PartialTensorShape({-1, 8}));
    auto steps = ops::Placeholder(s.WithOpName("steps"), tf::DT_INT32, PartialTensorShape(std::vector<int64_t>{}));
    auto w = Filled(s, {6, 8}, 0.3f), u = Filled(s, {8, 8}, 0.7f, 0.1f), b = Filled(s, {8}, 0.5f, 0.2f);
    auto xs = ops::TensorListFromTensor(s, x, ops::Const(s, {-1, 6}));
    std::vector<Output> out;
    ops::WhileLoopOptions options;
    options.name = "rnn";
    Status built = ops::WhileLoop(
        s, {ops::Const(s, 0), h0},
        [&](const Scope& sc, const std::vector<Output>& in, Output* pred) {
          *pred = ops::Less(sc, in[0], steps);
          return sc.status();
        },
        [&](const Scope& sc, const std::vector<Output>& in, std::vector<Output>* next) {
          auto x_t = ops::TensorListGetItem(sc, xs, in[0], ops::Const(sc, {-1, 6}), tf::DT_FLOAT);
          Output z = ops::MatMul(sc.WithOpName("input_product"), x_t, w);
          if (bias) z = ops::BiasAdd(sc, z, b);
          auto h = ops::Tanh(sc, ops::AddV2(sc, z, ops::MatMul(sc, in[1], u)));
          *next = {ops::Add(sc, in[0], 1), h};
          return sc.status();
        },
        &out, options);
    INFO(built.ToString());
    REQUIRE(built.ok());
    ops::Identity(s.WithOpName("h"), out[1]);
  });
}

int CountOps(const Ran& ran, const std::string& op) {
  int count = 0;
  for (const std::string& o : ran.ops) count += o.rfind(op + ":", 0) == 0;
  return count;
}

TEST_CASE("a recurrent layer's input product runs once for all steps, before its loop, within float rounding") {
  for (bool bias : {false, true}) {
    INFO("with a bias: " << bias);
    for (int steps : {5, 0}) {
      INFO(steps << " steps");
      // Batch 1 and 2: a step of [1, 6] floats is 24 bytes, so the list copies its rows, and
      // the products' [batch, 8] rows are views or copies by the batch.
      for (int64_t batch : {1, 2}) {
        INFO("batch " << batch);
        const std::vector<std::pair<std::string, Tensor>> feeds = {
            {"x", InputTensor({5, batch, 6})}, {"h0", InputTensor({batch, 8})}, {"steps", Tensor::Scalar<int32_t>(steps)}};
        const Ran hoisted = RunGraph(RecurrentLayer(bias), true, feeds, {"h"});
        const Ran apart = RunGraph(RecurrentLayer(bias), false, feeds, {"h"});
        // Outside the loop (whose body is one _SequentialLoop node now): the product of
        // all steps, and only its list; the sequence's own list went with its one reader.
        CHECK(CountOps(hoisted, "BatchMatMulV2") == 1);
        CHECK(CountOps(hoisted, "TensorListFromTensor") == 1);
        CHECK(CountOps(apart, "BatchMatMulV2") == 0);
        REQUIRE(hoisted.values.size() == 1);
        REQUIRE(hoisted.values[0].size() == static_cast<size_t>(batch * 8));
        CheckClose(hoisted.values[0], apart.values[0]);
      }
    }
  }
}

// A Keras LSTM layer's loop, as Keras 3 writes it: x [steps, batch, 6] unstacked into a
// list; each step z = x_t W + h U + b, the cell of KerasLstmGates, and h written into the
// outputs' list at the step's index. Fetches "outputs" (stacked), "h" and "c". c0 is fed:
// [batch, units] or a row that broadcasts.
tensorflow::GraphDef KerasLstmLayer(int64_t units) {
  return testing::BuildGraph([units](const Scope& s) {
    namespace tf = ::tensorflow;
    auto x = ops::Placeholder(s.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({-1, -1, 6}));
    auto h0 = ops::Placeholder(s.WithOpName("h0"), tf::DT_FLOAT, PartialTensorShape({-1, units}));
    auto c0 = ops::Placeholder(s.WithOpName("c0"), tf::DT_FLOAT, PartialTensorShape());
    auto steps = ops::Placeholder(s.WithOpName("steps"), tf::DT_INT32, PartialTensorShape(std::vector<int64_t>{}));
    auto w = Filled(s, {6, 4 * units}, 0.3f), u = Filled(s, {units, 4 * units}, 0.7f, 0.05f);
    auto b = Filled(s, {4 * units}, 0.5f, 0.2f);
    auto xs = ops::TensorListFromTensor(s, x, ops::Const(s, {-1, 6}));
    auto outputs = ops::TensorListReserve(s, ops::Const(s, {-1, static_cast<int>(units)}), steps, tf::DT_FLOAT);
    std::vector<Output> out;
    ops::WhileLoopOptions options;
    options.name = "lstm";
    Status built = ops::WhileLoop(
        s, {ops::Const(s, 0), outputs, h0, c0},
        [&](const Scope& sc, const std::vector<Output>& in, Output* pred) {
          *pred = ops::Less(sc, in[0], steps);
          return sc.status();
        },
        [&](const Scope& sc, const std::vector<Output>& in, std::vector<Output>* next) {
          auto x_t = ops::TensorListGetItem(sc, xs, in[0], ops::Const(sc, {-1, 6}), tf::DT_FLOAT);
          auto z = ops::BiasAdd(sc, ops::AddV2(sc, ops::MatMul(sc, x_t, w), ops::MatMul(sc, in[2], u)), b);
          auto gates = ops::Split(sc, ops::Const(sc, 1), z, 4);
          auto c = ops::AddV2(sc, ops::Mul(sc, ops::Sigmoid(sc, gates[1]), in[3]),
                              ops::Mul(sc, ops::Sigmoid(sc, gates[0]), ops::Tanh(sc, gates[2])));
          auto h = ops::Mul(sc, ops::Sigmoid(sc, gates[3]), ops::Tanh(sc, c));
          *next = {ops::Add(sc, in[0], 1), ops::TensorListSetItem(sc, in[1], in[0], h), h, c};
          return sc.status();
        },
        &out, options);
    INFO(built.ToString());
    REQUIRE(built.ok());
    ops::TensorListStack(s.WithOpName("outputs"), out[1], ops::Const(s, {-1, static_cast<int>(units)}), tf::DT_FLOAT);
    ops::Identity(s.WithOpName("h"), out[2]);
    ops::Identity(s.WithOpName("c"), out[3]);
  });
}

// The layer of KerasLstmLayer(units) run once with `options`: its outputs, h and c as
// values, and the body of its _SequentialLoop in *loop_body (empty where none ran).
std::vector<std::vector<float>> RunLstmLayer(int64_t units, const SessionOptions& options,
                                             const std::vector<std::pair<std::string, Tensor>>& feeds,
                                             std::string* loop_body) {
  auto session = testing::NewSessionWith(KerasLstmLayer(units), options);
  RunOptions run;
  run.output_partition_graphs = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  Status s = session->Run(run, feeds, {"outputs", "h", "c"}, {}, &out, &metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  loop_body->clear();
  for (const auto& n : metadata.partition_graphs.at(0).node()) {
    if (n.op() == "_SequentialLoop") *loop_body = n.attr().at("body").s();
  }
  std::vector<std::vector<float>> values;
  for (const Tensor& t : out) values.push_back(Values(t));
  return values;
}

TEST_CASE("a Keras LSTM layer's step runs as one in its sequential loop, to the bit of its kernels one by one") {
  // Batch 3 of 5 units: one thread; batch 64 of 64 units: the product and the gates split
  // over the device's threads. A c0 row that broadcasts is left to the kernels (which
  // broadcast it) in the first step; the second runs as one.
  struct Shape {
    int64_t batch, units;
    std::vector<int64_t> c0;
    int steps;
  };
  for (const Shape& shape : {Shape{3, 5, {3, 5}, 7}, Shape{64, 64, {64, 64}, 3}, Shape{3, 5, {1, 5}, 4},
                             Shape{2, 3, {2, 3}, 1}}) {
    INFO("batch " << shape.batch << ", " << shape.units << " units, " << shape.steps << " steps, c0 "
                  << shape.c0.front() << " rows");
    const std::vector<std::pair<std::string, Tensor>> feeds = {
        {"x", InputTensor({shape.steps, shape.batch, 6})},
        {"h0", InputTensor({shape.batch, shape.units})},
        {"c0", InputTensor(shape.c0)},
        {"steps", Tensor::Scalar<int32_t>(shape.steps)}};
    std::vector<std::vector<float>> values[2];
    for (bool sequential : {true, false}) {
      SessionOptions options;
      options.optimizer.sequential_loops = sequential;
      // The loop is one _SequentialLoop node, whose body holds the fused cell, or the
      // executor runs the same kernels node by node.
      std::string loop_body;
      values[sequential] = RunLstmLayer(shape.units, options, feeds, &loop_body);
      REQUIRE(loop_body.empty() != sequential);
      if (sequential) {
        tensorflow::GraphDef body;
        REQUIRE(body.ParseFromString(loop_body));
        std::vector<std::string> ops;
        for (const auto& n : body.node()) ops.push_back(n.op());
        CHECK(std::count(ops.begin(), ops.end(), "_FusedMatMul") == 1);
        CHECK(std::count(ops.begin(), ops.end(), "_FusedLstmGates") == 1);
        CHECK(std::count(ops.begin(), ops.end(), "TensorListGetItem") == 1);
      }
    }
    REQUIRE(values[0].size() == 3);
    for (int k = 0; k < 3; ++k) {
      INFO("fetch " << k);
      CHECK(values[1][k] == values[0][k]);
    }
  }
}

TEST_CASE("an LSTM cell's product stays float in a session with bfloat16 products, its step still run as one") {
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", InputTensor({4, 2, 6})},
                                                             {"h0", InputTensor({2, 5})},
                                                             {"c0", InputTensor({2, 5})},
                                                             {"steps", Tensor::Scalar<int32_t>(4)}};
  std::vector<std::vector<float>> values[2];
  for (bool bfloat16 : {false, true}) {
    SessionOptions options;
    options.optimizer.bfloat16_products = bfloat16;
    std::string loop_body;
    values[bfloat16] = RunLstmLayer(5, options, feeds, &loop_body);
    tensorflow::GraphDef body;
    REQUIRE(body.ParseFromString(loop_body));
    int products = 0;
    for (const auto& n : body.node()) {
      if (n.op() != "_FusedMatMul") continue;
      ++products;
      CHECK(n.attr().count("_bfloat16_products") == 0);
    }
    CHECK(products == 1);
  }
  REQUIRE(values[1].size() == 3);
  for (int k = 0; k < 3; ++k) CHECK(values[1][k] == values[0][k]);
}

TEST_CASE("an LSTM layer's loop run on its own fails as its kernels do, takes turns with the thread and ends at the deadline") {
  // More steps than x has: TensorListGetItem's error, in the iteration that reads past it,
  // with the loop run as one and node by node.
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", InputTensor({3, 2, 6})},
                                                             {"h0", InputTensor({2, 5})},
                                                             {"c0", InputTensor({2, 5})},
                                                             {"steps", Tensor::Scalar<int32_t>(5)}};
  for (bool sequential : {true, false}) {
    SessionOptions options;
    options.optimizer.sequential_loops = sequential;
    auto session = testing::NewSessionWith(KerasLstmLayer(5), options);
    std::vector<Tensor> out;
    Status s = session->Run(feeds, {"h"}, {}, &out);
    INFO("sequential: " << sequential << ": " << s.ToString());
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK(s.message().find("Trying to access element 3 in a list with 3 elements") != std::string::npos);
    if (sequential) CHECK(s.message().find("iteration 3") != std::string::npos);
  }
  // 400,000 steps (batch 1): the loop leaves its thread every 2 ms and takes up again, and
  // a deadline ends it (or what runs before it), on the device's threads and on the caller's.
  const int steps = 400000;
  const std::vector<std::pair<std::string, Tensor>> long_feeds = {{"x", InputTensor({steps, 1, 6})},
                                                                  {"h0", InputTensor({1, 5})},
                                                                  {"c0", InputTensor({1, 5})},
                                                                  {"steps", Tensor::Scalar<int32_t>(steps)}};
  auto session = testing::NewSessionWith(KerasLstmLayer(5));
  std::vector<Tensor> whole;
  REQUIRE(session->Run(long_feeds, {"h"}, {}, &whole).ok());
  CHECK(whole.at(0).NumElements() == 5);
  for (int pool : {0, -1}) {
    RunOptions run;
    run.timeout_ms = 20;
    run.inter_op_thread_pool = pool;
    std::vector<Tensor> out;
    const auto start = std::chrono::steady_clock::now();
    Status s = session->Run(run, long_feeds, {"h"}, {}, &out, nullptr);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO("inter_op_thread_pool " << pool << ": " << s.ToString());
    CHECK(s.code() == error::DEADLINE_EXCEEDED);
    CHECK(seconds < 10);  // a bound against a hang, not a timing
  }
}

TEST_CASE("a list's elements that share a tensor's bytes are never written in place") {
  // TensorListFromTensor's elements are views of its tensor's rows (rows of 64 bytes here).
  // The popped element is the only holder of its view once the list is gone, and Relu
  // forwards a buffer its input alone holds: it must not write through the view into "neg",
  // which is fetched too.
  const tensorflow::GraphDef graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({3, 16}));
    auto neg = ops::Neg(s.WithOpName("neg"), x);
    auto xs = ops::TensorListFromTensor(s, neg, ops::Const(s, {16}));
    auto popped = ops::TensorListPopBack(s, xs, ops::Const(s, {16}), tensorflow::DT_FLOAT);
    ops::Relu(s.WithOpName("relu"), popped[1]);
  });
  const Ran ran = RunGraph(graph, false, {{"x", InputTensor({3, 16})}}, {"relu", "neg"});
  REQUIRE(ran.values.size() == 2);
  const std::vector<float> x = Values(InputTensor({3, 16}));
  for (int i = 0; i < 16; ++i) {
    INFO("element " << i);
    CHECK(ran.values[0][i] == std::max(0.f, -x[32 + i]));
    CHECK(ran.values[1][32 + i] == -x[32 + i]);
  }
}

TEST_CASE("a fused LSTM cell refuses a c_prev that would widen its state, naming both shapes") {
  // Unfused, a [2, 3, 5] c_prev would make c [2, 3, 5]; the fused kernel keeps [batch, units].
  SessionOptions options;
  auto session = testing::NewSessionWith(KerasLstmGates(false), options);
  std::vector<Tensor> out;
  const Status s = session->Run({{"x", InputTensor({3, 6})}, {"c_prev", InputTensor({2, 3, 5})}}, {"h"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.ToString(), Catch::Contains("of shape [2,3,5] does not broadcast into the gates' [3,5]"));
}

// A Keras GRU cell (reset_after), on x [?, 6] and h_prev (of unknown shape), after its
// products: x's gates x W + b [?, 3 * 4] split in three, the recurrent ones q = h_prev U + b'
// sliced in three as Keras slices them (the first from the start, the last to the end);
// z = sigmoid(xz + hz), r = sigmoid(xr + hr), n = tanh(xn + r * hn), h = z * h_prev + (1 - z) * n.
tensorflow::GraphDef KerasGruGates() {
  return testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 6}));
    auto h_prev = ops::Placeholder(s.WithOpName("h_prev"), tensorflow::DT_FLOAT, PartialTensorShape());
    auto x_gates = ops::BiasAdd(s, ops::MatMul(s, x, Filled(s, {6, 12}, 0.6f)), Filled(s, {12}, 0.2f));
    auto q = ops::BiasAdd(s, ops::MatMul(s, ops::Reshape(s, h_prev, ops::Const(s, {-1, 4})), Filled(s, {4, 12}, 0.5f)),
                          Filled(s, {12}, 0.7f));
    auto gates = ops::Split(s.WithOpName("split"), ops::Const(s, 1), x_gates, 3);
    ops::StridedSliceAttrs first, middle, last;
    first.begin_mask = 3;
    first.end_mask = 1;
    middle.begin_mask = 1;
    middle.end_mask = 1;
    last.begin_mask = 1;
    last.end_mask = 3;
    auto hz = ops::StridedSlice(s, q, ops::Const(s, {0, 0}), ops::Const(s, {0, 4}), ops::Const(s, {1, 1}), first);
    auto hr = ops::StridedSlice(s, q, ops::Const(s, {0, 4}), ops::Const(s, {0, 8}), ops::Const(s, {1, 1}), middle);
    auto hn = ops::StridedSlice(s, q, ops::Const(s, {0, 8}), ops::Const(s, {0, 0}), ops::Const(s, {1, 1}), last);
    auto z = ops::Sigmoid(s.WithOpName("z"), ops::AddV2(s, gates[0], hz));
    auto r = ops::Sigmoid(s, ops::AddV2(s, gates[1], hr));
    auto n = ops::Tanh(s, ops::AddV2(s, gates[2], ops::Mul(s, r, hn)));
    ops::AddV2(s.WithOpName("h"), ops::Mul(s, z, h_prev), ops::Mul(s, ops::Sub(s, ops::Const(s, 1.f), z), n));
  });
}

TEST_CASE("a Keras GRU cell's gates fuse into one _FusedGruGates, within float rounding") {
  for (const std::vector<int64_t>& h_shape : std::vector<std::vector<int64_t>>{{3, 4}, {1, 4}}) {
    INFO("h_prev " << h_shape.front() << " x 4");
    const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", InputTensor({3, 6})},
                                                               {"h_prev", InputTensor(h_shape)}};
    const Ran fused = RunGraph(KerasGruGates(), true, feeds, {"h"});
    const Ran apart = RunGraph(KerasGruGates(), false, feeds, {"h"});
    CHECK(Has(fused.ops, "_FusedGruGates:h"));
    CHECK_FALSE(Has(fused.ops, "Split:split"));
    CHECK(Has(apart.ops, "Split:split"));
    REQUIRE(fused.values.size() == 1);
    REQUIRE(fused.values[0].size() == 3 * 4);
    CheckClose(fused.values[0], apart.values[0]);
  }
  // The update gate also fetched: nothing fuses.
  const Ran kept = RunGraph(KerasGruGates(), true, {{"x", InputTensor({3, 6})}, {"h_prev", InputTensor({3, 4})}},
                            {"h", "z"});
  CHECK(Has(kept.ops, "Split:split"));
  CHECK_FALSE(Has(kept.ops, "_FusedGruGates:h"));
}

TEST_CASE("an LSTM cell whose gate is read elsewhere is left alone") {
  // The forget gate also fetched: it must still be computed, so nothing fuses.
  const Ran ran = RunGraph(KerasLstmGates(false), true, {{"x", InputTensor({2, 6})}, {"c_prev", InputTensor({2, 5})}},
                           {"h", "f"});
  CHECK(Has(ran.ops, "Split:split"));
  CHECK_FALSE(Has(ran.ops, "_FusedLstmGates:c"));
}

// Keras' Embedding(10, 8) then GlobalAveragePooling1D on ids [?, 5]: Mean(GatherV2(table,
// ids, 0), 1) ("pooled").
tensorflow::GraphDef KerasEmbeddingBag() {
  return testing::BuildGraph([](const Scope& s) {
    auto ids = ops::Reshape(s, ops::Placeholder(s.WithOpName("ids"), tensorflow::DT_INT32), ops::Const(s, {-1, 5}));
    auto rows = ops::GatherV2(s.WithOpName("rows"), Filled(s, {10, 8}, 0.8f), ids, ops::Const(s, 0));
    ops::Mean(s.WithOpName("pooled"), rows, ops::Const(s, {1}));
  });
}

TEST_CASE("an embedding bag (GatherV2 then Mean over the tokens) fuses into one _FusedGatherMean, within float rounding") {
  const Tensor ids = Tensor::FromVector<int32_t>({3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 0, 0, 0, 7, 9}, TensorShape({3, 5}));
  const Ran fused = RunGraph(KerasEmbeddingBag(), true, {{"ids", ids}}, {"pooled"});
  const Ran apart = RunGraph(KerasEmbeddingBag(), false, {{"ids", ids}}, {"pooled"});
  CHECK(Has(fused.ops, "_FusedGatherMean:pooled"));
  CHECK_FALSE(Has(fused.ops, "GatherV2:rows"));
  CHECK(Has(apart.ops, "GatherV2:rows"));
  REQUIRE(fused.values[0].size() == 3 * 8);
  CheckClose(fused.values[0], apart.values[0]);
  // An id past the table is refused as GatherV2 refuses it, naming where it is.
  SessionOptions options;
  auto session = testing::NewSessionWith(KerasEmbeddingBag(), options);
  std::vector<Tensor> out;
  const Status s = session->Run({{"ids", Tensor::FromVector<int32_t>({1, 2, 3, 4, 10}, TensorShape({1, 5}))}},
                                {"pooled"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.ToString(), Catch::Contains("= 10 is not in [0, 10)"));
}

// A masked recurrent layer's step: the mask [?, 1] tiled to [?, 4] picks the new state or
// keeps the old one, twice (the new output and the carried state).
tensorflow::GraphDef MaskedSelect(int64_t mask_width) {
  return testing::BuildGraph([mask_width](const Scope& s) {
    auto mask = ops::Reshape(s, ops::Placeholder(s.WithOpName("mask"), tensorflow::DT_BOOL),
                             ops::Const(s, {int64_t{-1}, mask_width}));
    auto fresh = ops::Reshape(s, ops::Placeholder(s.WithOpName("fresh"), tensorflow::DT_FLOAT), ops::Const(s, {-1, 4}));
    auto old = ops::Placeholder(s.WithOpName("old"), tensorflow::DT_FLOAT);
    auto tiled = ops::Tile(s.WithOpName("tiled"), mask, ops::Const(s, {int64_t{1}, 4 / mask_width}));
    ops::SelectV2(s.WithOpName("output"), tiled, fresh, old);
    ops::SelectV2(s.WithOpName("state"), tiled, fresh, old);
  });
}

TEST_CASE("a Tile that only broadcasts SelectV2's condition is dropped, to the bit") {
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"mask", Tensor::FromVector<bool>({true, false, true}, TensorShape({3, 1}))},
      {"fresh", InputTensor({3, 4})},
      {"old", Tensor::FromVector<float>(std::vector<float>(12, 7.f), TensorShape({3, 4}))}};
  const Ran dropped = RunGraph(MaskedSelect(1), true, feeds, {"output", "state"});
  const Ran apart = RunGraph(MaskedSelect(1), false, feeds, {"output", "state"});
  CHECK_FALSE(Has(dropped.ops, "Tile:tiled"));
  CHECK(Has(apart.ops, "Tile:tiled"));
  REQUIRE(dropped.values.size() == 2);
  CHECK(dropped.values[0] == apart.values[0]);
  CHECK(dropped.values[1] == apart.values[1]);
  // A mask two wide repeats a pattern, not a column: the Tile stays.
  const Ran kept = RunGraph(MaskedSelect(2), true,
                            {{"mask", Tensor::FromVector<bool>({true, false, false, true}, TensorShape({2, 2}))},
                             {"fresh", InputTensor({2, 4})},
                             {"old", Tensor::FromVector<float>(std::vector<float>(8, 7.f), TensorShape({2, 4}))}},
                            {"output"});
  CHECK(Has(kept.ops, "Tile:tiled"));
}

// Keras' MultiHeadAttention core on query [?, 5, 3, 4] and key, value [?, 7, 3, 4]: scores
// by one Einsum, scaled, Softmax, weighted sum by another; `masked` adds a [1, 1, 5, 7] mask
// before the Softmax.
tensorflow::GraphDef KerasAttention(bool masked) {
  return testing::BuildGraph([masked](const Scope& s) {
    auto q = ops::Placeholder(s.WithOpName("q"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 5, 3, 4}));
    auto k = ops::Placeholder(s.WithOpName("k"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 7, 3, 4}));
    auto v = ops::Placeholder(s.WithOpName("v"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 7, 3, 4}));
    Output scores = ops::Mul(s.WithOpName("scaled"), ops::Einsum(s.WithOpName("scores"), {q, k}, "BTNH,BSNH->BNTS"),
                             ops::Const(s, 0.5f));
    if (masked) scores = ops::AddV2(s, scores, Filled(s, {1, 1, 5, 7}, 0.8f));
    ops::Einsum(s.WithOpName("attention"), {ops::Softmax(s.WithOpName("probs"), scores), v}, "BNTS,BSNH->BTNH");
  });
}

TEST_CASE("Keras' attention (Einsum, scale, mask, Softmax, Einsum) fuses into _FusedAttention, within float rounding") {
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"q", InputTensor({2, 5, 3, 4})}, {"k", InputTensor({2, 7, 3, 4})}, {"v", InputTensor({2, 7, 3, 4})}};
  const Ran fused = RunGraph(KerasAttention(false), true, feeds, {"attention"});
  const Ran apart = RunGraph(KerasAttention(false), false, feeds, {"attention"});
  CHECK(Has(fused.ops, "_FusedAttention:attention"));
  CHECK_FALSE(Has(fused.ops, "Softmax:probs"));
  CHECK(Has(apart.ops, "Softmax:probs"));
  REQUIRE(fused.values[0].size() == 2 * 5 * 3 * 4);
  CheckClose(fused.values[0], apart.values[0]);
  // Keras' mask added before the Softmax, broadcast over batch and heads: fused too.
  const Ran masked = RunGraph(KerasAttention(true), true, feeds, {"attention"});
  const Ran masked_apart = RunGraph(KerasAttention(true), false, feeds, {"attention"});
  CHECK(Has(masked.ops, "_FusedAttention:attention"));
  CHECK_FALSE(Has(masked.ops, "Softmax:probs"));
  CheckClose(masked.values[0], masked_apart.values[0]);
  CHECK(masked.values[0] != fused.values[0]);  // the mask did change the weights
}

}  // namespace
}  // namespace tensoract
