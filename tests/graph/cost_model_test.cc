// The cost model the placer simulates with: static estimates from ops and shapes, times
// measured in earlier steps, and transfers between devices.
#include <catch2/catch.hpp>
#include <string>

#include "graph/cost_model.h"
#include "graph/graph.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kCpu0;
using testing::kCpu1;

namespace tf = ::tensorflow;
using testing::FromText;

const char* const kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const char* const kRemote = "/job:worker/replica:0/task:1/device:CPU:0";

//   a [64,128] x b [128,256] -> mm [64,256];  relu(mm);  sum(relu) over axis 1;
//   u: a Placeholder of unknown batch [?,128].
const char* const kGraph = R"pb(
  node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 64 } dim { size: 128 } } } } }
  node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 128 } dim { size: 256 } } } } }
  node { name: "mm" op: "MatMul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "bt" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 256 } dim { size: 128 } } } } }
  node { name: "mmt" op: "MatMul" input: "a" input: "bt" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "transpose_b" value { b: true } } }
  node { name: "relu" op: "Relu" input: "mm" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
  node { name: "sum" op: "Sum" input: "relu" input: "axis" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "u" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: -1 } dim { size: 128 } } } } }
  node { name: "img" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 8 } dim { size: 32 } dim { size: 32 } dim { size: 3 } } } } }
  node { name: "filter" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 5 } dim { size: 5 } dim { size: 3 } dim { size: 16 } } } } }
  node { name: "conv" op: "Conv2D" input: "img" input: "filter" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
         attr { key: "padding" value { s: "SAME" } } }
)pb";

struct Fixture {
  Graph graph;
  Fixture() {
    Status s = ImportGraphDef(FromText<tf::GraphDef>(kGraph), &graph);
    INFO(s);
    REQUIRE(s.ok());
  }
  const Node& N(const std::string& name) {
    Node* n = graph.FindNode(name);
    REQUIRE(n != nullptr);
    return *n;
  }
};

TEST_CASE("output bytes come from the inferred shape and dtype", "[cost_model]") {
  Fixture f;
  CostModel cm;
  CHECK(cm.OutputBytes(f.N("mm"), 0) == 64 * 256 * 4);
  CHECK(cm.OutputBytes(f.N("axis"), 0) == 4);
  // An unknown batch dimension counts as a modest guess, not as zero or as huge.
  CHECK(cm.OutputBytes(f.N("u"), 0) == CostModel::kUnknownDimGuess * 128 * 4);
  CHECK(cm.OutputBytes(f.N("mm"), 3) == 0);  // no such output
}

TEST_CASE("MatMul and Conv2D count their multiply-adds", "[cost_model]") {
  Fixture f;
  CostModel cm;
  CHECK(cm.EstimateWork(f.N("mm")).flops == Approx(2.0 * 64 * 128 * 256));
  CHECK(cm.EstimateWork(f.N("mmt")).flops == Approx(2.0 * 64 * 128 * 256));
  CHECK(cm.EstimateWork(f.N("mm")).bytes == Approx(4.0 * (64 * 128 + 128 * 256 + 64 * 256)));
  // SAME padding, stride 1: output [8,32,32,16]; each output sums 5*5*3 products.
  CHECK(cm.EstimateWork(f.N("conv")).flops == Approx(2.0 * 8 * 32 * 32 * 16 * 5 * 5 * 3));
}

TEST_CASE("element-wise ops and reductions count one operation per element", "[cost_model]") {
  Fixture f;
  CostModel cm;
  CHECK(cm.EstimateWork(f.N("relu")).flops == Approx(64.0 * 256));
  CHECK(cm.EstimateWork(f.N("relu")).bytes == Approx(2 * 4.0 * 64 * 256));
  CHECK(cm.EstimateWork(f.N("sum")).flops == Approx(64.0 * 256));
}

TEST_CASE("ops that only pass buffers along cost nothing", "[cost_model]") {
  Fixture f;
  CostModel cm;
  CHECK(cm.StaticComputeMicros(f.N("a"), "CPU") == 0);
  CHECK(cm.StaticComputeMicros(f.N("axis"), "GPU") == 0);
}

TEST_CASE("static times follow the device's speed", "[cost_model]") {
  Fixture f;
  CostModel cm;
  cm.SetDeviceSpeed("CPU", {1e3, 1e9, 0.0});  // 1 GFLOP/s, memory effectively free
  cm.SetDeviceSpeed("FAST", {1e6, 1e9, 2.0});
  const double flops = 2.0 * 64 * 128 * 256;
  CHECK(cm.StaticComputeMicros(f.N("mm"), "CPU") == Approx(flops / 1e3));
  CHECK(cm.StaticComputeMicros(f.N("mm"), "FAST") == Approx(2.0 + flops / 1e6));
  // Unknown device types run at the CPU's speed.
  CHECK(cm.StaticComputeMicros(f.N("mm"), "TPU") == Approx(flops / 1e3));
  // A memory-bound op is limited by bandwidth (the roofline).
  cm.SetDeviceSpeed("SLOWMEM", {1e9, 1.0, 0.0});
  CHECK(cm.StaticComputeMicros(f.N("relu"), "SLOWMEM") == Approx(2 * 4.0 * 64 * 256));
  // The default model: a GPU beats a CPU on a MatMul.
  CostModel defaults;
  CHECK(defaults.ComputeMicros(f.N("mm"), "GPU") < defaults.ComputeMicros(f.N("mm"), "CPU"));
}

TEST_CASE("transfers are free on one device, cost more across tasks than within one", "[cost_model]") {
  CostModel cm;
  CHECK(cm.TransferMicros(1 << 20, kCpu0, kCpu0) == 0);
  CHECK(cm.TransferMicros(1 << 20, kCpu0, "/job:localhost/replica:0/task:0/cpu:0") == 0);
  const double local = cm.TransferMicros(1 << 20, kCpu0, kGpu0);
  const double remote = cm.TransferMicros(1 << 20, kCpu0, kRemote);
  CHECK(local > 0);
  CHECK(remote > local);
  // Latency plus bytes over bandwidth: more bytes take longer, zero bytes still cost the latency.
  CHECK(cm.TransferMicros(2 << 20, kCpu0, kCpu1) > cm.TransferMicros(1 << 20, kCpu0, kCpu1));
  CHECK(cm.TransferMicros(0, kCpu0, kCpu1) > 0);
  cm.SetLinkSpeeds({1.0, 100.0}, {10.0, 10.0});
  CHECK(cm.TransferMicros(1000, kCpu0, kCpu1) == Approx(11.0));
  CHECK(cm.TransferMicros(1000, kCpu0, kRemote) == Approx(110.0));
}

tf::StepStats Stats(const std::string& device, const std::string& node, int64_t op_start, int64_t op_end) {
  tf::StepStats stats;
  tf::DeviceStepStats* dev = stats.add_dev_stats();
  dev->set_device(device);
  tf::NodeExecStats* ns = dev->add_node_stats();
  ns->set_node_name(node);
  ns->set_all_start_micros(1000000);
  ns->set_op_start_rel_micros(op_start);
  ns->set_op_end_rel_micros(op_end);
  ns->set_all_end_rel_micros(op_end + 1);
  return stats;
}

TEST_CASE("measured times replace the static estimate, averaged over steps", "[cost_model]") {
  Fixture f;
  CostModel cm;
  const double static_cpu = cm.ComputeMicros(f.N("mm"), "CPU");
  CHECK_FALSE(cm.HasMeasurement("mm"));
  cm.RecordStepStats(Stats(kCpu0, "mm", 5, 105));   // 100 us
  CHECK(cm.HasMeasurement("mm"));
  CHECK(cm.ComputeMicros(f.N("mm"), "CPU") == Approx(100.0));
  cm.RecordStepStats(Stats(kCpu1, "mm", 0, 300));   // 300 us, another CPU
  CHECK(cm.ComputeMicros(f.N("mm"), "CPU") == Approx(200.0));
  // Other nodes keep their static estimate.
  CHECK(cm.ComputeMicros(f.N("relu"), "CPU") == Approx(cm.StaticComputeMicros(f.N("relu"), "CPU")));
  CHECK(static_cpu == Approx(cm.StaticComputeMicros(f.N("mm"), "CPU")));
}

TEST_CASE("a time measured on one device type is scaled to another by the static model", "[cost_model]") {
  Fixture f;
  CostModel cm;
  cm.RecordStepStats(Stats(kCpu0, "mm", 0, 1000));
  const double ratio = cm.StaticComputeMicros(f.N("mm"), "GPU") / cm.StaticComputeMicros(f.N("mm"), "CPU");
  CHECK(cm.ComputeMicros(f.N("mm"), "GPU") == Approx(1000.0 * ratio));
  // Once measured on the GPU itself, that wins.
  cm.RecordStepStats(Stats(kGpu0, "mm", 0, 7));
  CHECK(cm.ComputeMicros(f.N("mm"), "GPU") == Approx(7.0));
}

TEST_CASE("nanosecond op times are used when present, all_end when op times are missing", "[cost_model]") {
  Fixture f;
  CostModel cm;
  tf::StepStats stats = Stats(kCpu0, "mm", 0, 0);
  stats.mutable_dev_stats(0)->mutable_node_stats(0)->set_op_start_rel_nanos(1000);
  stats.mutable_dev_stats(0)->mutable_node_stats(0)->set_op_end_rel_nanos(3500);
  cm.RecordStepStats(stats);
  CHECK(cm.ComputeMicros(f.N("mm"), "CPU") == Approx(2.5));

  CostModel cm2;
  cm2.RecordStepStats(Stats(kCpu0, "relu", 0, 0));  // all_end_rel = 1
  CHECK(cm2.ComputeMicros(f.N("relu"), "CPU") == Approx(1.0));
}

}  // namespace
}  // namespace tensoract
