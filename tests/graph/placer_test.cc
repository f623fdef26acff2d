// The placer: constraints, colocation, kernels and the greedy simulated placement.
//
// What must hold is what a TensorFlow user relies on: a node asked onto a device lands
// there, a variable and the ops that use it share a device, impossible requests are errors
// that say which nodes asked for what, and where the user said nothing the placer spreads
// independent heavy work and keeps dependent work together.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "graph/cost_model.h"
#include "graph/graph.h"
#include "graph/placer.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kCpu0;
using testing::kCpu1;
using testing::Import;

namespace tf = ::tensorflow;
using Catch::Matchers::Contains;
using testing::FromText;

const std::string kTask = "/job:localhost/replica:0/task:0";
const std::string kPlacerGpu0 = kTask + "/device:GPU:0";

tf::DeviceAttributes Dev(const std::string& name, const std::string& type) {
  tf::DeviceAttributes d;
  d.set_name(name);
  d.set_device_type(type);
  return d;
}
std::vector<tf::DeviceAttributes> Cpus(int n) {
  std::vector<tf::DeviceAttributes> out;
  for (int i = 0; i < n; ++i) out.push_back(Dev(kTask + "/device:CPU:" + std::to_string(i), "CPU"));
  return out;
}

const KernelSupportFn kAllKernels = [](const Node&, const std::string&) { return true; };


std::string DeviceOf(const Graph& g, const std::string& node) {
  Node* n = g.FindNode(node);
  REQUIRE(n != nullptr);
  return n->def().device();
}

std::string Placeholder(const std::string& name, int rows, int cols, const std::string& device = "") {
  return "node { name: '" + name + "' op: 'Placeholder' device: '" + device +
         "' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: " +
         std::to_string(rows) + " } dim { size: " + std::to_string(cols) + " } } } } }\n";
}
std::string MatMul(const std::string& name, const std::string& a, const std::string& b,
                   const std::string& device = "") {
  return "node { name: '" + name + "' op: 'MatMul' input: '" + a + "' input: '" + b + "' device: '" + device +
         "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
}
std::string Unary(const std::string& op, const std::string& name, const std::string& in,
                  const std::string& device = "", const std::string& extra = "") {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + in + "' device: '" + device +
         "' attr { key: 'T' value { type: DT_FLOAT } } " + extra + " }\n";
}
// A chain x -> m1 = x*w1 -> m2 = m1*w2 ... of heavy [n,n] MatMuls, named <p>1, <p>2, ...
std::string Chain(const std::string& p, int length, int n = 512) {
  std::string s = Placeholder(p + "x", n, n);
  std::string prev = p + "x";
  for (int i = 1; i <= length; ++i) {
    s += Placeholder(p + "w" + std::to_string(i), n, n);
    s += MatMul(p + std::to_string(i), prev, p + "w" + std::to_string(i));
    prev = p + std::to_string(i);
  }
  return s;
}

Status Place(Graph* g, const std::vector<tf::DeviceAttributes>& devices, PlacerOptions options = {},
             const KernelSupportFn& has_kernel = kAllKernels) {
  return PlaceGraph(g, devices, has_kernel, options);
}

TEST_CASE("on one device every op node goes there, and the log says so", "[placer]") {
  Graph g;
  Import(Chain("a", 2), &g);
  std::vector<std::string> log;
  PlacerOptions options;
  options.log_device_placement = true;
  options.placement_log = &log;
  REQUIRE(Place(&g, Cpus(1), options).ok());
  for (Node* n : g.op_nodes()) CHECK(n->def().device() == kCpu0);
  CHECK(g.source_node()->def().device().empty());
  CHECK(g.sink_node()->def().device().empty());
  REQUIRE(log.size() == static_cast<size_t>(g.num_op_nodes()));
  CHECK(std::find(log.begin(), log.end(), "a1: " + kCpu0) != log.end());
}

TEST_CASE("placing a placed graph again changes nothing; _Arg and _Retval are placed too", "[placer]") {
  Graph g;
  Import(Chain("a", 2) + Chain("b", 2) +
             "node { name: 'arg' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } "
             "attr { key: 'index' value { i: 0 } } }\n"
             "node { name: 'ret' op: '_Retval' input: 'arg' attr { key: 'T' value { type: DT_FLOAT } } "
             "attr { key: 'index' value { i: 0 } } }\n",
         &g);
  REQUIRE(Place(&g, Cpus(2)).ok());
  std::vector<std::string> first;
  for (Node* n : g.op_nodes()) {
    CHECK_FALSE(n->def().device().empty());
    first.push_back(n->def().device());
  }
  REQUIRE(Place(&g, Cpus(2)).ok());
  std::vector<std::string> second;
  for (Node* n : g.op_nodes()) second.push_back(n->def().device());
  CHECK(first == second);
}

TEST_CASE("an idle or light graph stays on device 0 when there are several", "[placer]") {
  Graph g;
  Import(Placeholder("x", 2, 2) + Unary("Relu", "r", "x") + Unary("Identity", "i", "r"), &g);
  REQUIRE(Place(&g, Cpus(3)).ok());
  for (Node* n : g.op_nodes()) CHECK(n->def().device() == kCpu0);
}

TEST_CASE("a node pinned to a full device name stays there", "[placer]") {
  Graph g;
  Import(Placeholder("x", 512, 512) + Placeholder("w", 512, 512) + MatMul("m", "x", "w", kCpu1) +
             Unary("Relu", "r", "m", "/job:localhost/replica:0/task:0/cpu:1"),
         &g);
  REQUIRE(Place(&g, Cpus(2)).ok());
  CHECK(DeviceOf(g, "m") == kCpu1);
  CHECK(DeviceOf(g, "r") == kCpu1);
  // Its inputs, free to go anywhere, follow it rather than cross a device.
  CHECK(DeviceOf(g, "x") == kCpu1);
  CHECK(DeviceOf(g, "w") == kCpu1);
}

TEST_CASE("a partial spec /device:CPU:* picks among the CPUs", "[placer]") {
  Graph g;
  Import(Placeholder("x", 512, 512) + Placeholder("w", 512, 512) + MatMul("m1", "x", "w", "/device:CPU:*") +
             MatMul("m2", "x", "w", "/device:CPU:*"),
         &g);
  std::vector<tf::DeviceAttributes> devices = {Dev(kPlacerGpu0, "GPU"), Dev(kCpu0, "CPU"), Dev(kCpu1, "CPU")};
  REQUIRE(Place(&g, devices).ok());
  std::set<std::string> used = {DeviceOf(g, "m1"), DeviceOf(g, "m2")};
  // Two independent heavy MatMuls: one on each CPU, none on the GPU.
  CHECK(used == std::set<std::string>{kCpu0, kCpu1});
}

TEST_CASE("the partial job spec of a node is honoured across tasks", "[placer]") {
  Graph g;
  Import(Placeholder("x", 4, 4) + Unary("Relu", "r", "x", "/job:ps"), &g);
  std::vector<tf::DeviceAttributes> devices = {Dev("/job:worker/replica:0/task:0/device:CPU:0", "CPU"),
                                               Dev("/job:ps/replica:0/task:0/device:CPU:0", "CPU")};
  REQUIRE(Place(&g, devices).ok());
  CHECK(DeviceOf(g, "r") == "/job:ps/replica:0/task:0/device:CPU:0");
}

// A reference variable as TensorFlow 1.x writes it: v/read and v/Assign carry _class loc:@v.
const std::string kRefVariable = R"pb(
  node { name: "v" op: "VariableV2" device: "DEVICE"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
  node { name: "v/Assign" op: "Assign" input: "v" input: "zeros" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "_class" value { list { s: "loc:@v" } } } }
  node { name: "v/read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "_class" value { list { s: "loc:@v" } } } }
  node { name: "inc" op: "AssignAdd" input: "v" input: "zeros" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Relu" input: "v/read" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

std::string WithDevice(std::string text, const std::string& device) {
  const size_t at = text.find("DEVICE");
  return text.replace(at, 6, device);
}

TEST_CASE("_class loc:@v and reference edges put a variable's ops on its device", "[placer]") {
  Graph g;
  Import(WithDevice(kRefVariable, kCpu1), &g);
  REQUIRE(Place(&g, Cpus(2)).ok());
  CHECK(DeviceOf(g, "v") == kCpu1);
  CHECK(DeviceOf(g, "v/read") == kCpu1);    // by _class
  CHECK(DeviceOf(g, "v/Assign") == kCpu1);  // by _class and its reference input
  CHECK(DeviceOf(g, "inc") == kCpu1);       // by its reference input alone
}

TEST_CASE("a constraint on one member of a colocation group moves the whole group", "[placer]") {
  Graph g;
  std::string text = WithDevice(kRefVariable, "");
  // Ask for CPU:1 on v/read only: v and everything colocated with it follow.
  text.replace(text.find("op: \"Identity\""), 14, "op: \"Identity\" device: \"/device:CPU:1\"");
  Import(text, &g);
  REQUIRE(Place(&g, Cpus(2)).ok());
  CHECK(DeviceOf(g, "v") == kCpu1);
  CHECK(DeviceOf(g, "v/Assign") == kCpu1);
  CHECK(DeviceOf(g, "inc") == kCpu1);
}

// A resource variable: the handle, its readers and its writers must share its device.
std::string ResourceVariable(const std::string& handle_device, const std::string& read_device) {
  return R"pb(
    node { name: "r" op: "VarHandleOp" device: ")pb" + handle_device + R"pb("
           attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } }
           attr { key: "shared_name" value { s: "r" } } }
    node { name: "ones" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 1 } } } }
    node { name: "r/Assign" op: "AssignVariableOp" input: "r" input: "ones"
           attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "r/Read" op: "ReadVariableOp" input: "r" device: ")pb" + read_device + R"pb("
           attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "out" op: "Relu" input: "r/Read" attr { key: "T" value { type: DT_FLOAT } } }
  )pb";
}

TEST_CASE("resource edges keep VarHandleOp, AssignVariableOp and ReadVariableOp together", "[placer]") {
  SECTION("the handle's device wins") {
    Graph g;
    Import(ResourceVariable(kCpu1, ""), &g);
    REQUIRE(Place(&g, Cpus(2)).ok());
    CHECK(DeviceOf(g, "r/Assign") == kCpu1);
    CHECK(DeviceOf(g, "r/Read") == kCpu1);
  }
  SECTION("a reader's device moves the handle") {
    Graph g;
    Import(ResourceVariable("", "/device:CPU:1"), &g);
    REQUIRE(Place(&g, Cpus(2)).ok());
    CHECK(DeviceOf(g, "r") == kCpu1);
    CHECK(DeviceOf(g, "r/Assign") == kCpu1);
  }
}

TEST_CASE("conflicting constraints in one group are an InvalidArgument naming both nodes", "[placer]") {
  SECTION("by _class") {
    Graph g;
    Import(Placeholder("x", 2, 2) + Unary("Relu", "a", "x", "/device:CPU:0") +
               Unary("Relu", "b", "x", "/device:CPU:1",
                     "attr { key: '_class' value { list { s: 'loc:@a' } } }"),
           &g);
    Status s = Place(&g, Cpus(2));
    REQUIRE(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("'a'"));
    CHECK_THAT(s.message(), Contains("'b'"));
    CHECK_THAT(s.message(), Contains("/device:CPU:0"));
    CHECK_THAT(s.message(), Contains("/device:CPU:1"));
    // Nothing was written.
    CHECK(DeviceOf(g, "x").empty());

    // Soft placement drops the conflicting id: both still land together.
    PlacerOptions soft;
    soft.allow_soft_placement = true;
    REQUIRE(Place(&g, Cpus(2), soft).ok());
    CHECK(DeviceOf(g, "a") == DeviceOf(g, "b"));
  }
  SECTION("by a resource edge") {
    Graph g;
    Import(ResourceVariable("/device:CPU:0", "/device:CPU:1"), &g);
    Status s = Place(&g, Cpus(2));
    REQUIRE(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("'r'"));
    CHECK_THAT(s.message(), Contains("'r/Read'"));
  }
}

TEST_CASE("a constraint no device matches is an error, and soft placement places it", "[placer]") {
  Graph g;
  Import(Placeholder("x", 2, 2) + Unary("Relu", "r", "x", "/device:GPU:0"), &g);
  Status s = Place(&g, Cpus(2));
  REQUIRE(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'r'"));
  CHECK_THAT(s.message(), Contains("/device:GPU:0"));
  CHECK_THAT(s.message(), Contains(kCpu1));  // the devices there are

  PlacerOptions soft;
  soft.allow_soft_placement = true;
  REQUIRE(Place(&g, Cpus(2), soft).ok());
  CHECK(DeviceOf(g, "r") == kCpu0);
}

TEST_CASE("soft placement keeps the job of a constraint whose device is missing", "[placer]") {
  Graph g;
  Import(Placeholder("x", 2, 2) + Unary("Relu", "r", "x", "/job:ps/device:GPU:0"), &g);
  std::vector<tf::DeviceAttributes> devices = {Dev("/job:worker/replica:0/task:0/device:CPU:0", "CPU"),
                                               Dev("/job:ps/replica:0/task:0/device:CPU:0", "CPU")};
  PlacerOptions soft;
  soft.allow_soft_placement = true;
  REQUIRE(Place(&g, devices, soft).ok());
  CHECK(DeviceOf(g, "r") == "/job:ps/replica:0/task:0/device:CPU:0");
}

// GPUs in the device list, with no GPU kernel for Relu.
const KernelSupportFn kNoGpuRelu = [](const Node& n, const std::string& type) {
  return !(type == "GPU" && n.type_string() == "Relu");
};

TEST_CASE("a device type without the kernel is not feasible", "[placer]") {
  std::vector<tf::DeviceAttributes> devices = {Dev(kCpu0, "CPU"), Dev(kPlacerGpu0, "GPU")};
  SECTION("unconstrained: the heavy MatMul goes to the GPU, the Relu to the CPU") {
    Graph g;
    Import(Chain("a", 1, 1024) + Unary("Relu", "r", "a1"), &g);
    REQUIRE(Place(&g, devices, {}, kNoGpuRelu).ok());
    CHECK(DeviceOf(g, "a1") == kPlacerGpu0);
    CHECK(DeviceOf(g, "r") == kCpu0);
  }
  SECTION("asked onto the GPU: an error naming node, op and device; soft placement uses the CPU") {
    Graph g;
    Import(Placeholder("x", 2, 2) + Unary("Relu", "r", "x", "/device:GPU:0"), &g);
    Status s = Place(&g, devices, {}, kNoGpuRelu);
    REQUIRE(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("'r'"));
    CHECK_THAT(s.message(), Contains("Relu"));
    CHECK_THAT(s.message(), Contains("GPU"));
    PlacerOptions soft;
    soft.allow_soft_placement = true;
    REQUIRE(Place(&g, devices, soft, kNoGpuRelu).ok());
    CHECK(DeviceOf(g, "r") == kCpu0);
  }
  SECTION("a group goes where every member has a kernel") {
    Graph g;
    Import(Chain("a", 1, 1024) +
               Unary("Relu", "r", "a1", "", "attr { key: '_class' value { list { s: 'loc:@a1' } } }"),
           &g);
    REQUIRE(Place(&g, devices, {}, kNoGpuRelu).ok());
    CHECK(DeviceOf(g, "a1") == kCpu0);
    CHECK(DeviceOf(g, "r") == kCpu0);
  }
  SECTION("no kernel anywhere is an error naming the op") {
    Graph g;
    Import(Placeholder("x", 2, 2) + Unary("Relu", "r", "x"), &g);
    Status s = Place(&g, devices, {}, [](const Node& n, const std::string&) { return n.type_string() != "Relu"; });
    REQUIRE(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("'r'"));
    CHECK_THAT(s.message(), Contains("Relu"));
  }
}

TEST_CASE("greedy placement spreads independent heavy chains and keeps a chain together", "[placer]") {
  SECTION("two independent chains use both devices, each chain on one") {
    Graph g;
    Import(Chain("a", 3) + Chain("b", 3), &g);
    REQUIRE(Place(&g, Cpus(2)).ok());
    const std::string da = DeviceOf(g, "a1");
    const std::string db = DeviceOf(g, "b1");
    CHECK(da != db);
    for (const char* n : {"a2", "a3", "ax", "aw1", "aw3"}) CHECK(DeviceOf(g, n) == da);
    for (const char* n : {"b2", "b3", "bx", "bw2"}) CHECK(DeviceOf(g, n) == db);
  }
  SECTION("a single chain stays on one device: moving would only add transfers") {
    Graph g;
    Import(Chain("a", 4), &g);
    REQUIRE(Place(&g, Cpus(2)).ok());
    for (Node* n : g.op_nodes()) CHECK(n->def().device() == kCpu0);
  }
  SECTION("a fan-out of two heavy MatMuls from one input splits them, and the join pays one transfer") {
    Graph g;
    Import(Placeholder("x", 512, 512) + Placeholder("w", 512, 512) + MatMul("l", "x", "w") +
               MatMul("r", "x", "w") + "node { name: 'sum' op: 'AddV2' input: 'l' input: 'r' "
                                       "attr { key: 'T' value { type: DT_FLOAT } } }\n",
           &g);
    REQUIRE(Place(&g, Cpus(2)).ok());
    CHECK(DeviceOf(g, "l") != DeviceOf(g, "r"));
  }
}

tf::StepStats OneNodeStats(const std::string& device, const std::string& node, int64_t micros) {
  tf::StepStats stats;
  tf::DeviceStepStats* dev = stats.add_dev_stats();
  dev->set_device(device);
  tf::NodeExecStats* ns = dev->add_node_stats();
  ns->set_node_name(node);
  ns->set_op_start_rel_micros(0);
  ns->set_op_end_rel_micros(micros);
  ns->set_all_end_rel_micros(micros);
  return stats;
}

TEST_CASE("measured step times from RecordStepStats change the decision", "[placer]") {
  SECTION("two light branches stay together until they are measured to be slow") {
    const std::string text = Placeholder("x", 2, 2) + Unary("Relu", "l", "x") + Unary("Relu", "r", "x") +
                             "node { name: 'join' op: 'AddV2' input: 'l' input: 'r' "
                             "attr { key: 'T' value { type: DT_FLOAT } } }\n";
    CostModel cost;
    PlacerOptions options;
    options.cost_model = &cost;
    Graph g;
    Import(text, &g);
    REQUIRE(Place(&g, Cpus(2), options).ok());
    CHECK(DeviceOf(g, "l") == kCpu0);
    CHECK(DeviceOf(g, "r") == kCpu0);  // a transfer costs more than waiting for l

    cost.RecordStepStats(OneNodeStats(kCpu0, "l", 5000));
    cost.RecordStepStats(OneNodeStats(kCpu0, "r", 5000));
    Graph g2;
    Import(text, &g2);
    REQUIRE(Place(&g2, Cpus(2), options).ok());
    CHECK(DeviceOf(g2, "l") != DeviceOf(g2, "r"));  // now they run side by side
  }
  SECTION("a MatMul measured to be slow on the GPU moves to the CPU") {
    std::vector<tf::DeviceAttributes> devices = {Dev(kCpu0, "CPU"), Dev(kPlacerGpu0, "GPU")};
    CostModel cost;
    PlacerOptions options;
    options.cost_model = &cost;
    Graph g;
    Import(Chain("a", 1, 1024), &g);
    REQUIRE(Place(&g, devices, options).ok());
    CHECK(DeviceOf(g, "a1") == kPlacerGpu0);  // statically, the GPU is far faster at a MatMul

    // Earlier steps ran a1 on both, and found the GPU's kernel very slow.
    cost.RecordStepStats(OneNodeStats(kPlacerGpu0, "a1", 10000000));
    cost.RecordStepStats(OneNodeStats(kCpu0, "a1", 20000));
    Graph g2;
    Import(Chain("a", 1, 1024), &g2);
    REQUIRE(Place(&g2, devices, options).ok());
    CHECK(DeviceOf(g2, "a1") == kCpu0);
  }
}

TEST_CASE("the default device takes the unconstrained nodes", "[placer]") {
  Graph g;
  Import(Chain("a", 2) + Unary("Relu", "pinned", "a2", "/device:CPU:0"), &g);
  PlacerOptions options;
  options.default_device = kCpu1;
  REQUIRE(Place(&g, Cpus(2), options).ok());
  CHECK(DeviceOf(g, "a1") == kCpu1);
  CHECK(DeviceOf(g, "a2") == kCpu1);
  CHECK(DeviceOf(g, "ax") == kCpu1);
  CHECK(DeviceOf(g, "pinned") == kCpu0);
}

TEST_CASE("bad input is an InvalidArgument that names what is wrong", "[placer]") {
  SECTION("a malformed requested device") {
    Graph g;
    Import(Placeholder("x", 2, 2) + Unary("Relu", "r", "x", "/dvice:CPU:0"), &g);
    Status s = Place(&g, Cpus(1));
    REQUIRE(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("'r'"));
    CHECK_THAT(s.message(), Contains("/dvice:CPU:0"));
  }
  SECTION("colocation with a node pruned away is ignored") {
    Graph g;
    Import(Placeholder("x", 2, 2) +
               Unary("Relu", "r", "x", "", "attr { key: '_class' value { list { s: 'loc:@ghost' } } }"),
           &g);
    REQUIRE(Place(&g, Cpus(1)).ok());
  }
  SECTION("a malformed default device") {
    Graph g;
    Import(Placeholder("x", 2, 2), &g);
    PlacerOptions options;
    options.default_device = "/device:CPU:zero";
    Status s = Place(&g, Cpus(1), options);
    REQUIRE(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("default device"));
    CHECK_THAT(s.message(), Contains("/device:CPU:zero"));
  }
  SECTION("no devices, or a device without a complete name") {
    Graph g;
    Import(Placeholder("x", 2, 2), &g);
    CHECK(Place(&g, {}).code() == error::INVALID_ARGUMENT);
    Status s = Place(&g, {Dev("/device:CPU:0", "CPU")});
    REQUIRE(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("/device:CPU:0"));
  }
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

TEST_CASE("nodes go to a GPU that has their kernels unless their device says otherwise", "[placer]") {
  Graph g;
  // Light ops that the cost model alone would leave beside their CPU inputs.
  Import(Placeholder("x", 4, 4) + Unary("Relu", "on_gpu", "x") + Unary("Relu", "pinned", "x", "/device:CPU:0") +
             Unary("Sigmoid", "no_gpu_kernel", "x"),
         &g);
  std::vector<tf::DeviceAttributes> devices = {Dev(kCpu0, "CPU"), Dev(kPlacerGpu0, "GPU")};
  // Placeholders and Sigmoid have no GPU kernel here; everything has a CPU kernel.
  KernelSupportFn kernels = [](const Node& n, const std::string& type) {
    return type == "CPU" || (n.type_string() != "Placeholder" && n.type_string() != "Sigmoid");
  };
  REQUIRE(Place(&g, devices, {}, kernels).ok());
  CHECK(DeviceOf(g, "on_gpu") == kPlacerGpu0);
  CHECK(DeviceOf(g, "pinned") == kCpu0);
  CHECK(DeviceOf(g, "no_gpu_kernel") == kCpu0);
  CHECK(DeviceOf(g, "x") == kCpu0);
}

}  // namespace
}  // namespace tensoract
