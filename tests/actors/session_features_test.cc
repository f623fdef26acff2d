// Session features beyond a plain Run: Extend with version checks, RunMetadata with step
// statistics and partition graphs, asynchronous kernels, concurrent steps, and the graph
// optimizer switched on and off.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <set>
#include <thread>

#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"
#include "kernels/kernel_registry.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

#include <caf/all.hpp>

#include "actors/messages.h"

// A test-only asynchronous kernel: doubles its input on another thread after a delay, and
// fails when the input is negative.
REGISTER_OP("TestAsyncDouble")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(::tensoract::shape_inference::UnchangedShape);

namespace tensoract {
namespace {

using testing::Has;


using testing::Values;

class TestAsyncDoubleOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::thread([ctx, done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const Tensor& x = ctx->input(0);
      if (x.NumElements() > 0 && x.base<float>()[0] < 0) {
        ctx->SetStatus(errors::InvalidArgument("negative input"));
      } else {
        Tensor y(tensorflow::DT_FLOAT, x.shape());
        for (int64_t i = 0; i < x.NumElements(); ++i) y.base<float>()[i] = 2 * x.base<float>()[i];
        ctx->set_output(0, y);
      }
      done();
    }).detach();
  }
};
REGISTER_KERNEL(Name("TestAsyncDouble").Device(DEVICE_CPU), TestAsyncDoubleOp);

tensorflow::GraphDef TimesTwo() {
  return testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT);
    ops::Mul(s.WithOpName("y"), x, 2.f);
  });
}

const char* kExtension = R"(
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 10 } } } }
    node { name: "z" op: "Add" input: "y" input: "c" attr { key: "T" value { type: DT_FLOAT } } })";

TEST_CASE("Extend adds nodes that use the existing ones; a stale version is Aborted") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto session = Session::New(system).value();
  REQUIRE(session->Create(TimesTwo()).ok());
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"x", Tensor::FromVector<float>({1, 2})}}, {"y"}, {}, &out).ok());
  CHECK(session->graph_version() == 0);

  auto more = testing::FromText<tensorflow::GraphDef>(kExtension);
  Status st = session->Extend(more);
  INFO(st.ToString());
  REQUIRE(st.ok());
  CHECK(session->graph_version() == 1);
  REQUIRE(session->Run({{"x", Tensor::FromVector<float>({1, 2})}}, {"z", "y"}, {}, &out).ok());
  CHECK(Values(out[0]) == std::vector<float>{12, 14});
  CHECK(Values(out[1]) == std::vector<float>{2, 4});

  SECTION("extending with a name that exists fails and changes nothing") {
    st = session->Extend(more);
    CHECK(st.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(st.message(), Catch::Contains("c"));
    CHECK(session->graph_version() == 1);
    REQUIRE(session->Run({{"x", Tensor::FromVector<float>({1})}}, {"z"}, {}, &out).ok());
  }
  SECTION("another client extending an old version is Aborted") {
    caf::scoped_actor self{system};
    ExtendSessionResponse reply;
    ExtendSessionRequest stale{session->handle(), std::make_shared<tensorflow::GraphDef>(), 0};
    self->request(session->master(), std::chrono::seconds(10), extend_session_atom::value, stale)
        .receive([&](ExtendSessionResponse& r) { reply = r; }, [&](caf::error&) { FAIL("no reply"); });
    CHECK(reply.status.code() == error::ABORTED);
    CHECK_THAT(reply.status.message(), Catch::Contains("Current version is 1 but caller expected 0"));
  }
}

TEST_CASE("RunMetadata reports per-node step statistics and the partition graph") {
  auto session = testing::NewSessionWith(TimesTwo());
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  options.output_partition_graphs = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  Tensor x = Tensor::FromVector<float>(std::vector<float>(1000, 1.f));
  REQUIRE(session->Run(options, {{"x", x}}, {"y"}, {}, &out, &metadata).ok());
  REQUIRE(metadata.step_stats.dev_stats_size() == 1);
  const auto& dev = metadata.step_stats.dev_stats(0);
  CHECK_THAT(dev.device(), Catch::Contains("/device:CPU:0"));
  std::set<std::string> names;
  for (const auto& ns : dev.node_stats()) {
    names.insert(ns.node_name());
    CHECK(ns.all_start_micros() > 0);
    CHECK(ns.op_end_rel_nanos() >= 0);
    CHECK(ns.all_end_rel_nanos() >= ns.op_end_rel_nanos());
    if (ns.node_name() == "y") {
      REQUIRE(ns.output_size() == 1);
      CHECK(ns.output(0).tensor_description().allocation_description().requested_bytes() == 4000);
      CHECK(ns.output(0).tensor_description().shape().dim(0).size() == 1000);
      CHECK_THAT(ns.timeline_label(), Catch::Contains("y = Mul("));
    }
  }
  CHECK(names.count("y") == 1);
  REQUIRE(metadata.partition_graphs.size() == 1);
  CHECK(metadata.partition_graphs[0].node_size() >= 3);  // _Arg, Mul, the constant, _Retval

  SECTION("without a trace level nothing is collected") {
    RunMetadata none;
    REQUIRE(session->Run(RunOptions(), {{"x", x}}, {"y"}, {}, &out, &none).ok());
    CHECK(none.step_stats.dev_stats_size() == 0);
  }
}

TEST_CASE("an asynchronous kernel finishes through a message; its error ends the step") {
  auto session = testing::NewSessionWith(testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT);
    Node* d = s.AddOp("TestAsyncDouble", "d", {x}, {});
    ops::Add(s.WithOpName("y"), Output(d), 1.f);
  }));
  std::vector<Tensor> out;
  Status st = session->Run({{"x", Tensor::FromVector<float>({1, 2})}}, {"y"}, {}, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  CHECK(Values(out[0]) == std::vector<float>{3, 5});
  st = session->Run({{"x", Tensor::FromVector<float>({-1})}}, {"y"}, {}, &out);
  CHECK(st.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(st.message(), Catch::Contains("negative input") && Catch::Contains("'d'"));
}

TEST_CASE("concurrent Runs on one session are independent") {
  auto session = testing::NewSessionWith(TimesTwo());
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        float v = static_cast<float>(t * 1000 + i);
        std::vector<Tensor> out;
        Status st = session->Run({{"x", Tensor::FromVector<float>({v})}}, {"y"}, {}, &out);
        if (!st.ok()) ++failed;
        else if (out[0].base<float>()[0] != 2 * v) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failed == 0);
  CHECK(wrong == 0);
}

// The nodes the worker ran for fetching "y" of a graph with constant and duplicate parts.
std::vector<std::string> RegisteredOps(const GraphOptimizerOptions& optimizer) {
  SessionOptions options;
  options.optimizer = optimizer;
  auto session = testing::NewSessionWith(testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT);
    auto k = ops::Mul(s.WithOpName("k"), 3.f, 4.f);              // constant: folds to 12
    auto a = ops::Mul(s.WithOpName("a"), x, k);
    auto b = ops::Mul(s.WithOpName("b"), x, k);                  // same as a: merged
    ops::Add(s.WithOpName("y"), a, b);
  }), options);
  RunOptions run;
  run.output_partition_graphs = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  REQUIRE(session->Run(run, {{"x", Tensor::FromVector<float>({1, 2})}}, {"y"}, {}, &out, &metadata).ok());
  CHECK(Values(out[0]) == std::vector<float>{24, 48});  // the same values whatever the passes do
  std::vector<std::string> names;
  for (const auto& n : metadata.partition_graphs.at(0).node()) names.push_back(n.name());
  return names;
}


TEST_CASE("the graph optimizer folds constants and merges duplicates; each pass switches off") {
  auto all = RegisteredOps(GraphOptimizerOptions());
  CHECK_FALSE(Has(all, "k"));  // folded into a constant
  CHECK(Has(all, "a") != Has(all, "b"));  // one of the two equal products is left

  GraphOptimizerOptions no_cse;
  no_cse.do_common_subexpression_elimination = false;
  auto folded_only = RegisteredOps(no_cse);
  CHECK_FALSE(Has(folded_only, "k"));
  CHECK((Has(folded_only, "a") && Has(folded_only, "b")));

  GraphOptimizerOptions no_folding;
  no_folding.do_constant_folding = false;
  auto merged_only = RegisteredOps(no_folding);
  CHECK(Has(merged_only, "k"));
  CHECK(Has(merged_only, "a") != Has(merged_only, "b"));

  auto none = RegisteredOps(GraphOptimizerOptions::AllOff());
  CHECK((Has(none, "k") && Has(none, "a") && Has(none, "b")));
}

// The remapper (graph/optimizer/remapper.h): Conv2D/MatMul -> BiasAdd [-> Relu] and
// MaxPoolGrad -> ReluGrad become one fused kernel each on the CPU, with the very same values;
// a BiasAdd whose value is also used elsewhere keeps its Relu apart, and nothing is fused
// with the remapper off.
tensorflow::TensorProto Proto(const Tensor& t) {
  tensorflow::TensorProto proto;
  t.AsProtoTensorContent(&proto);
  return proto;
}

struct FusionRun {
  std::vector<std::vector<float>> values;
  std::vector<std::string> ops;  // of the partition graph
};
FusionRun RunFusionGraph(const GraphOptimizerOptions& optimizer) {
  SessionOptions options;
  options.optimizer = optimizer;
  auto session = testing::NewSessionWith(testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT);
    std::vector<float> filter(3 * 3 * 2 * 20), bias(20), weights(50 * 7), bias2(7);
    for (size_t i = 0; i < filter.size(); ++i) filter[i] = std::sin(0.7f * i);
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * (i % 5) - 0.2f;
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = std::cos(0.3f * i) * 0.1f;
    for (size_t i = 0; i < bias2.size(); ++i) bias2[i] = -0.05f * i;
    auto f = ops::Const(s, Proto(Tensor::FromVector<float>(filter, TensorShape({3, 3, 2, 20}))));
    auto conv = ops::Conv2D(s.WithOpName("conv"), x, f, {1, 1, 1, 1}, "SAME");
    auto biased = ops::BiasAdd(s.WithOpName("biased"), conv, ops::Const(s, Proto(Tensor::FromVector<float>(bias))));
    ops::Relu(s.WithOpName("relu"), biased);
    auto flat = ops::Reshape(s, x, ops::Const(s, Proto(Tensor::FromVector<int32_t>({2, 50}))));
    auto w = ops::Const(s, Proto(Tensor::FromVector<float>(weights, TensorShape({50, 7}))));
    auto mm = ops::MatMul(s.WithOpName("mm"), flat, w);
    auto b2 = ops::Const(s, Proto(Tensor::FromVector<float>(bias2)));
    auto mm_biased = ops::BiasAdd(s.WithOpName("mm_biased"), mm, b2);
    ops::Relu(s.WithOpName("mm_relu"), mm_biased);
    ops::Neg(s.WithOpName("also_biased"), mm_biased);  // mm_biased has two consumers: no Relu fusion
    // A Relu -> MaxPool layer's gradient: MaxPoolGrad -> ReluGrad on the Relu's output.
    auto relu = ops::Relu(s.WithOpName("x_relu"), x);
    auto pooled = ops::MaxPool(s, relu, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
    std::vector<float> dy(2 * 3 * 3 * 2);
    for (size_t i = 0; i < dy.size(); ++i) dy[i] = 1.f + i;
    auto pool_grad = ops::MaxPoolGrad(s, relu, pooled, ops::Const(s, Proto(Tensor::FromVector<float>(dy, TensorShape({2, 3, 3, 2})))),
                                      {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
    ops::ReluGrad(s.WithOpName("relu_grad"), pool_grad, relu);
    // A conv layer's filter and bias gradients of one output gradient (here gy for both the
    // layer's input and its output gradient: 16 deep, the AVX-512 path).
    auto gy = ops::Placeholder(s.WithOpName("gy"), tensorflow::DT_FLOAT);
    ops::Conv2DBackpropFilter(s.WithOpName("filter_grad"), gy,
                              ops::Const(s, Proto(Tensor::FromVector<int32_t>({3, 3, 16, 16}))), gy, {1, 1, 1, 1},
                              "SAME");
    ops::BiasAddGrad(s.WithOpName("bias_grad"), gy);
  }), options);
  std::vector<float> input(2 * 5 * 5 * 2);
  for (size_t i = 0; i < input.size(); ++i) input[i] = std::sin(1.3f * i) * 2;
  RunOptions run;
  run.output_partition_graphs = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  const Tensor x = Tensor::FromVector<float>(input, TensorShape({2, 5, 5, 2}));
  std::vector<float> gy(2 * 6 * 6 * 16);
  for (size_t i = 0; i < gy.size(); ++i) gy[i] = std::cos(0.37f * i);
  REQUIRE(session
              ->Run(run, {{"x", x}, {"gy", Tensor::FromVector<float>(gy, TensorShape({2, 6, 6, 16}))}},
                    {"relu", "mm_relu", "also_biased", "relu_grad", "filter_grad", "bias_grad"}, {}, &out, &metadata)
              .ok());
  FusionRun r;
  for (const Tensor& t : out) r.values.push_back(Values(t));
  for (const auto& n : metadata.partition_graphs.at(0).node()) r.ops.push_back(n.op() + ":" + n.name());
  return r;
}

TEST_CASE("the remapper fuses Conv2D and MatMul with BiasAdd and Relu, MaxPoolGrad with ReluGrad, conv filter "
          "and bias gradients, with the same values") {
  const FusionRun fused = RunFusionGraph(GraphOptimizerOptions());
  GraphOptimizerOptions off;
  off.do_remapping = false;
  const FusionRun apart = RunFusionGraph(off);
  REQUIRE(fused.values.size() == 6);
  for (int i = 0; i < 5; ++i) CHECK(fused.values[i] == apart.values[i]);  // bit for bit
  // The fused bias gradient sums in another order: equal up to float rounding.
  REQUIRE(fused.values[5].size() == 16);
  for (int i = 0; i < 16; ++i) CHECK(fused.values[5][i] == Approx(apart.values[5][i]).margin(1e-5));
  CHECK(Has(fused.ops, "_Conv2DBackpropFilterWithBias:filter_grad"));
  CHECK_FALSE(Has(fused.ops, "BiasAddGrad:bias_grad"));
  CHECK(Has(apart.ops, "BiasAddGrad:bias_grad"));
  CHECK(std::count(fused.values[3].begin(), fused.values[3].end(), 0.f) < 100);  // some gradient got through
  int relu_nonzero = 0;
  for (float v : fused.values[0]) relu_nonzero += v > 0;
  CHECK(relu_nonzero > 0);
  CHECK(relu_nonzero < static_cast<int>(fused.values[0].size()));  // the Relu did clip
  CHECK(Has(fused.ops, "_FusedConv2D:relu"));
  CHECK(Has(fused.ops, "_FusedMatMul:mm_biased"));  // BiasAdd fused; its two consumers stay
  CHECK(Has(fused.ops, "Relu:mm_relu"));
  CHECK_FALSE(Has(fused.ops, "Conv2D:conv"));
  CHECK(Has(fused.ops, "_MaxPoolGradWithReluGrad:relu_grad"));
  CHECK(Has(apart.ops, "ReluGrad:relu_grad"));
  CHECK(Has(apart.ops, "Conv2D:conv"));
  CHECK(Has(apart.ops, "BiasAdd:biased"));
  CHECK(Has(apart.ops, "Relu:relu"));
}

// Kernels flush denormals to zero, as TensorFlow's do: 1e-20 squared (1e-40) comes out as 0,
// and a denormal input counts as 0 (sqrt gives 0, not 1e-19.5). Both a small tensor (computed
// on the scheduling thread) and a large one (split over the device's threads) are checked.
// The caller's own floating-point mode is left alone.
TEST_CASE("kernels flush denormal floats to zero, as TensorFlow does") {
  auto session = testing::NewSessionWith(testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT);
    ops::Mul(s.WithOpName("square"), x, x);
    auto d = ops::Placeholder(s.WithOpName("d"), tensorflow::DT_FLOAT);
    ops::Sqrt(s.WithOpName("root"), d);
  }));
  for (int64_t n : {int64_t{4}, int64_t{1} << 20}) {
    CAPTURE(n);
    std::vector<float> tiny(n, 1e-20f), denormal(n, 1e-39f);
    std::vector<Tensor> out;
    REQUIRE(session->Run({{"x", Tensor::FromVector<float>(tiny)}, {"d", Tensor::FromVector<float>(denormal)}},
                         {"square", "root"}, {}, &out).ok());
    for (const Tensor& t : out) {
      const std::vector<float> v = Values(t);
      CHECK(std::count(v.begin(), v.end(), 0.f) == n);
    }
  }
  volatile float a = 1e-20f;
  CHECK(a * a > 0.f);  // this thread still has IEEE denormals
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

// TensorFlow's first three draws of tf.raw_ops.RandomUniform(shape=[3], seed=1, seed2=2) in
// one tf.compat.v1.Session, whichever fetches each run names.
const std::vector<std::vector<float>> kUniformDraws = {{0.40639675f, 0.8575996f, 0.05539584f},
                                                       {0.16840732f, 0.88910615f, 0.53549695f},
                                                       {0.49945498f, 0.06284702f, 0.46006584f}};


TEST_CASE("a stateful op keeps its state across a session's call signatures, as TensorFlow's OpSegment",
          "[session][random]") {
  Scope root = Scope::NewRootScope();
  auto u = ops::RandomUniform(root.WithOpName("u"), ops::Const(root, Input({3})), tensorflow::DT_FLOAT, {1, 2});
  ops::Const(root.WithOpName("c"), Input(1.f));
  ops::Identity(root.WithOpName("d"), u);
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto server = LocalServer::New().value();
  auto session = Session::New(*server).value();
  REQUIRE(session->Create(graph).ok());
  std::vector<Tensor> out;
  // Three call signatures, three graphs registered with the worker: one generator.
  REQUIRE(session->Run({}, {"u"}, {}, &out).ok());
  CHECK(Values(out[0]) == kUniformDraws[0]);
  REQUIRE(session->Run({}, {"u", "c"}, {}, &out).ok());
  CHECK(Values(out[0]) == kUniformDraws[1]);
  REQUIRE(session->Run({}, {"d"}, {}, &out).ok());
  CHECK(Values(out[0]) == kUniformDraws[2]);

  // Another session of the same server has kernels of its own: it starts from the start.
  auto other = Session::New(*server).value();
  REQUIRE(other->Create(graph).ok());
  REQUIRE(other->Run({}, {"u", "c"}, {}, &out).ok());
  CHECK(Values(out[0]) == kUniformDraws[0]);
}

}  // namespace
}  // namespace tensoract
