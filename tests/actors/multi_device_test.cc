// One worker with several CPU devices: placement by constraints, partitions joined by
// _Send/_Recv through the rendezvous, one transfer per (tensor, device), failures that
// abort the whole step, lossy float transfers, and results equal to one device's.
#include <cmath>
#include <cstring>

#include <catch2/catch.hpp>

#include "graph/builder/ops.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/training/optimizers.h"
#include "graph/training/variables.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::Cpu;

using testing::Values;


// x on CPU:0; a on CPU:1; three consumers of a on CPU:2; their sum on CPU:3, which also
// waits (control edge) for a node on CPU:1.
tensorflow::GraphDef FourDeviceChain() {
  return testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x").WithDevice(Cpu(0)), tensorflow::DT_FLOAT);
    auto a = ops::Mul(s.WithOpName("a").WithDevice(Cpu(1)), x, 2.f);
    auto marker = ops::Identity(s.WithOpName("marker").WithDevice(Cpu(1)), a);
    Scope on2 = s.WithDevice(Cpu(2));
    auto b = ops::Add(on2.WithOpName("b"), a, 1.f);
    auto c = ops::Mul(on2.WithOpName("c"), a, 3.f);
    auto d = ops::Sub(on2.WithOpName("d"), a, 1.f);
    ops::AddN(s.WithOpName("e").WithDevice(Cpu(3)).WithControlDependencies({marker}), {b, c, d});
  });
}

int CountOps(const tensorflow::GraphDef& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.node()) n += node.op() == op;
  return n;
}

TEST_CASE("a graph pinned over 4 CPU devices gives one device's results, one transfer per tensor and device",
          "[multi_device]") {
  const std::vector<float> x = {1, 2, 3};
  std::vector<Tensor> single, multi;
  {
    SessionOptions one_thread;
    one_thread.num_threads = 1;
    auto session = testing::NewSessionWith(FourDeviceChain(), one_thread);
    // One device: the constraints name devices it lacks, so it needs soft placement.
    Status s = session->Run({{"x", Tensor::FromVector<float>(x)}}, {"e"}, {}, &single);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Contains("CPU:1"));
    SessionOptions soft;
    soft.num_threads = 1;
    soft.allow_soft_placement = true;
    auto soft_session = testing::NewSessionWith(FourDeviceChain(), soft);
    REQUIRE(soft_session->Run({{"x", Tensor::FromVector<float>(x)}}, {"e"}, {}, &single).ok());
  }
  SessionOptions four;
  four.num_threads = 4;
  four.num_cpu_devices = 4;
  auto session = testing::NewSessionWith(FourDeviceChain(), four);
  RunOptions options;
  options.output_partition_graphs = true;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  Status s = session->Run(options, {{"x", Tensor::FromVector<float>(x)}}, {"e"}, {}, &multi, &metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Values(multi[0]) == Values(single[0]));
  CHECK(Values(multi[0]) == std::vector<float>{10, 20, 30});  // (2x + 1) + 6x + (2x - 1)

  REQUIRE(metadata.partition_graphs.size() == 4);
  CHECK(metadata.step_stats.dev_stats_size() == 4);
  for (const auto& part : metadata.partition_graphs) {
    REQUIRE(part.node_size() > 0);
    const std::string device = part.node(0).device();
    for (const auto& node : part.node()) CHECK(node.device() == device);
    if (device == Cpu(2)) {
      // a crosses to CPU:2 once, however many nodes there read it.
      CHECK(CountOps(part, "_Recv") == 1);
    }
    if (device == Cpu(1)) {
      // a goes to CPU:2, and a control edge's token from marker to CPU:3.
      CHECK(CountOps(part, "_Send") == 2);
    }
  }

  SECTION("steps repeat with the same results and leave nothing in the rendezvous") {
    for (int i = 0; i < 200; ++i) {
      std::vector<Tensor> again;
      REQUIRE(session->Run({{"x", Tensor::FromVector<float>(x)}}, {"e"}, {}, &again).ok());
      REQUIRE(Values(again[0]) == Values(single[0]));
    }
    CHECK_THAT(session->Inspect(), Catch::Contains("0 steps with entries"));
  }
}

TEST_CASE("fetches from several devices all arrive whatever order the devices finish in", "[multi_device]") {
  // Each device's executor answers with the fetches it produced; the others' slots in its
  // reply are empty tensors. Gathering them once let a late reply's empty slot overwrite
  // an earlier reply's value (a fetch came back as shape [0], about one step in ten). An
  // empty value that is really fetched (`none`, shape [0]) must still arrive as itself.
  auto graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x").WithDevice(Cpu(0)), tensorflow::DT_FLOAT);
    ops::Neg(s.WithOpName("on0").WithDevice(Cpu(0)), x);
    ops::Mul(s.WithOpName("on1").WithDevice(Cpu(1)), x, 2.f);
    ops::Slice(s.WithOpName("none").WithDevice(Cpu(1)), x, ops::Const(s.WithDevice(Cpu(1)), {0}),
               ops::Const(s.WithDevice(Cpu(1)), {0}));
    ops::Identity(s.WithOpName("again0").WithDevice(Cpu(0)), x);
  });
  SessionOptions options;
  options.num_cpu_devices = 2;
  auto session = testing::NewSessionWith(graph, options);
  for (int step = 0; step < 300; ++step) {
    const float v = static_cast<float>(step);
    std::vector<Tensor> out;
    Status s = session->Run({{"x", Tensor::FromVector<float>({v, 1})}}, {"on1", "on0", "none", "again0"}, {}, &out);
    INFO("step " << step << ": " << s.ToString());
    REQUIRE(s.ok());
    REQUIRE(out.size() == 4);
    REQUIRE(Values(out[0]) == std::vector<float>{2 * v, 2});
    REQUIRE(Values(out[1]) == std::vector<float>{-v, -1});
    REQUIRE(out[2].shape() == TensorShape({0}));
    REQUIRE(Values(out[3]) == std::vector<float>{v, 1});
  }
}

TEST_CASE("a kernel failing on one device aborts the step on all of them, naming the node", "[multi_device]") {
  // `bad` on CPU:1 fails for a feed of the wrong size; CPU:0 waits for its value.
  auto graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x").WithDevice(Cpu(0)), tensorflow::DT_FLOAT);
    auto bad = ops::Reshape(s.WithOpName("bad").WithDevice(Cpu(1)), x, ops::Const(s.WithDevice(Cpu(1)), {2}));
    ops::Mul(s.WithOpName("y").WithDevice(Cpu(0)), bad, 2.f);
  });
  SessionOptions options;
  options.num_cpu_devices = 2;
  auto session = testing::NewSessionWith(graph, options);
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::FromVector<float>({1, 2, 3})}}, {"y"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("bad"));
  // The worker and the rendezvous are clean: the next step runs.
  s = session->Run({{"x", Tensor::FromVector<float>({1, 2})}}, {"y"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Values(out[0]) == std::vector<float>{2, 4});
  CHECK_THAT(session->Inspect(), Catch::Contains("0 steps with entries"));
}

TEST_CASE("a device that does not exist is an error naming the node, or soft-placed when allowed", "[multi_device]") {
  auto graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT);
    ops::Neg(s.WithOpName("far").WithDevice("/device:CPU:7"), x);
  });
  SessionOptions options;
  options.num_cpu_devices = 2;
  auto session = testing::NewSessionWith(graph, options);
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::FromVector<float>({1})}}, {"far"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("far"));
  CHECK_THAT(s.message(), Catch::Contains("CPU:7"));
  options.allow_soft_placement = true;
  auto soft = testing::NewSessionWith(graph, options);
  REQUIRE(soft->Run({{"x", Tensor::FromVector<float>({1})}}, {"far"}, {}, &out).ok());
  CHECK(Values(out[0]) == std::vector<float>{-1});
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST_CASE("lossy transfers keep the high 16 bits of each float crossing devices", "[multi_device]") {
  auto graph = testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x").WithDevice(Cpu(0)), tensorflow::DT_FLOAT);
    ops::Identity(s.WithOpName("y").WithDevice(Cpu(1)), x);
    ops::Identity(s.WithOpName("same").WithDevice(Cpu(0)), x);
  });
  SessionOptions options;
  options.num_cpu_devices = 2;
  options.enable_bfloat16_sendrecv = true;
  auto session = testing::NewSessionWith(graph, options);
  const std::vector<uint32_t> in = {0x3F8FFFFFu, 0xC0490FDBu, 0x00000001u, 0x7F800000u};
  std::vector<float> feed;
  for (uint32_t u : in) feed.push_back(FromBits(u));
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::FromVector<float>(feed)}}, {"y", "same"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(out.size() == 2);
  for (const Tensor& t : out) {
    INFO(t.DebugString());
    REQUIRE(t.dtype() == tensorflow::DT_FLOAT);
    REQUIRE(t.NumElements() == static_cast<int64_t>(in.size()));
  }
  std::vector<float> crossed = Values(out[0]);
  for (size_t i = 0; i < in.size(); ++i) {
    CHECK(Bits(crossed[i]) == (in[i] & 0xFFFF0000u));
    CHECK(Bits(Values(out[1])[i]) == in[i]);  // no device crossed: exact
  }
}

TEST_CASE("training still converges when every float crossing devices is cut to 16 bits", "[multi_device]") {
  // y = 3x + 2 learned by w and b living on CPU:1 while the data and the loss are on CPU:0:
  // the weights' reads and their gradients cross as bfloat16.
  Scope root = Scope::NewRootScope();
  Scope on0 = root.WithDevice(Cpu(0)), on1 = root.WithDevice(Cpu(1));
  auto x = ops::Placeholder(on0.WithOpName("x"), tensorflow::DT_FLOAT);
  auto y = ops::Placeholder(on0.WithOpName("y"), tensorflow::DT_FLOAT);
  Variable w = NewVariable(on1, "w", [](const Scope& s) { return ops::Const(s, 0.5f); });
  Variable b = NewVariable(on1, "b", [](const Scope& s) { return ops::Const(s, 0.0f); });
  auto loss = ops::Mean(on0.WithOpName("loss"),
                        ops::Square(on0, ops::Sub(on0, ops::Add(on0, ops::Mul(on0, x, w.value), b.value), y)), {0});
  GradientDescentOptimizer sgd(0.3);
  Node* train = sgd.Minimize(root, loss, {w, b});
  Node* init = GroupInitializers(root, {w, b});
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());

  SessionOptions options;
  options.num_cpu_devices = 2;
  options.enable_bfloat16_sendrecv = true;
  auto session = testing::NewSessionWith(graph, options);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {init->name()}, &out).ok());
  std::vector<float> xs, ys;
  for (int i = 0; i < 32; ++i) {
    xs.push_back(static_cast<float>(i) / 31.f);
    ys.push_back(3 * xs.back() + 2);
  }
  Tensor xt = Tensor::FromVector<float>(xs), yt = Tensor::FromVector<float>(ys);
  float first = 0, last = 0;
  for (int step = 0; step < 400; ++step) {
    Status s = session->Run({{"x", xt}, {"y", yt}}, {"loss"}, {train->name()}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    (step == 0 ? first : last) = out[0].base<float>()[0];
  }
  REQUIRE(session->Run({}, {w.value.name(), b.value.name()}, {}, &out).ok());
  UNSCOPED_INFO("loss " << first << " -> " << last << ", w " << out[0].base<float>()[0] << ", b "
                        << out[1].base<float>()[0]);
  CHECK(last < first / 100);
  CHECK(std::abs(out[0].base<float>()[0] - 3) < 0.1);
  CHECK(std::abs(out[1].base<float>()[0] - 2) < 0.1);
}

// The peak of `device`'s memory, from the worker's inspection text.
int64_t PeakBytes(Session& session, const std::string& device) {
  std::string text = session.Inspect();
  size_t at = text.find("device " + device + ":");
  REQUIRE(at != std::string::npos);
  size_t peak = text.find("peak ", at);
  REQUIRE(peak != std::string::npos);
  return std::stoll(text.substr(peak + 5));
}

// CPU:0 makes four 4 MB tensors at once; CPU:1 needs them one at a time, each at one stage
// of a chain of matrix products (it scales each by that stage's result). Without scheduling all four Recvs fire at the start and
// their copies sit on CPU:1 together; with it each waits until its stage is near.
tensorflow::GraphDef LateConsumers() {
  return testing::BuildGraph([](const Scope& s) {
    Scope on0 = s.WithDevice(Cpu(0)), on1 = s.WithDevice(Cpu(1));
    auto seed = ops::Placeholder(on0.WithOpName("seed"), tensorflow::DT_FLOAT);
    std::vector<Output> big;
    for (int i = 0; i < 4; ++i) {
      big.push_back(ops::Fill(on0.WithOpName(StrCat("big", i)), {1 << 20}, ops::Add(on0, seed, float(i))));
    }
    // The chain on CPU:1 starts only once all four exist on CPU:0 (`gate`), so without
    // scheduling their copies reach CPU:1 before the first is used: all four at once when
    // the machine is idle; under load (ctest -j on 2 cores) the last copy has landed after
    // the first stage freed its own (3 at once, seen once).
    std::vector<Output> sums;
    for (const Output& b : big) sums.push_back(ops::Sum(on0, b, {0}));
    auto gate = ops::Mul(on0.WithOpName("gate"), ops::AddN(on0, sums), 0.f);
    auto m = ops::Fill(on1.WithOpName("m"), {256, 256}, ops::Add(on1, seed, gate));
    Output t = m;
    for (int i = 0; i < 4; ++i) {
      Output product = ops::MatMul(on1.WithOpName(StrCat("stage", i)), t, m);
      for (int k = 0; k < 3; ++k) product = ops::MatMul(on1, product, m);
      // big[i] is needed only once the stage's product exists.
      auto scaled = ops::Mul(on1.WithOpName(StrCat("use", i)), big[i], ops::Sum(on1, product, {0, 1}));
      t = ops::Add(on1.WithOpName(StrCat("t", i)), product, ops::Sum(on1.WithOpName(StrCat("sum", i)), scaled, {0}));
    }
    ops::Sum(on1.WithOpName("out"), t, {0, 1});
  });
}

TEST_CASE("Recv scheduling holds Recvs back until their values are needed: lower peak memory", "[multi_device]") {
  int64_t peak[2];
  Tensor out_values[2];
  for (int scheduled = 0; scheduled < 2; ++scheduled) {
    SessionOptions options;
    options.num_cpu_devices = 2;
    options.enable_recv_scheduling = scheduled == 1;
    auto session = testing::NewSessionWith(LateConsumers(), options);
    std::vector<Tensor> out;
    Tensor seed(tensorflow::DT_FLOAT, TensorShape({}));
    seed.base<float>()[0] = 1e-3f;
    RunOptions run_options;
    run_options.output_partition_graphs = true;
    RunMetadata metadata;
    Status s = session->Run(run_options, {{"seed", seed}}, {"out"}, {}, &out, &metadata);
    INFO(s.ToString());
    REQUIRE(s.ok());
    out_values[scheduled] = out[0];
    peak[scheduled] = PeakBytes(*session, Cpu(1));
    // Scheduling adds control inputs to the Recvs, nothing else.
    int recv_control_inputs = 0;
    for (const auto& part : metadata.partition_graphs) {
      for (const auto& node : part.node()) {
        if (node.op() != "_Recv") continue;
        for (const auto& in : node.input()) recv_control_inputs += !in.empty() && in[0] == '^';
      }
    }
    if (scheduled) {
      CHECK(recv_control_inputs >= 2);
    } else {
      CHECK(recv_control_inputs == 0);
    }
  }
  UNSCOPED_INFO("peak bytes on CPU:1 without scheduling " << peak[0] << ", with " << peak[1]);
  CHECK(peak[1] < peak[0]);
  CHECK(peak[0] >= 2 * (4 << 20));  // several copies at once (four when idle), one with scheduling
  CHECK(out_values[0].base<float>()[0] == out_values[1].base<float>()[0]);
}

}  // namespace
}  // namespace tensoract
