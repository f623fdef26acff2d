// Partition: a placed graph cut into one GraphDef per device, every cross-device edge a
// _Send/_Recv pair that meets under TensorFlow's rendezvous key.
//
// Getting this wrong sends a tensor twice (two pairs for one tensor and device), loses an
// ordering (a control edge dropped at a device boundary), or deadlocks a step (a Send and a
// Recv whose keys differ, or a scheduling edge that makes a cycle).
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/partition.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kCpu0;
using testing::kCpu1;
using testing::Import;

namespace tf = ::tensorflow;
using Catch::Matchers::Contains;
using Partitions = std::map<std::string, tf::GraphDef>;

const std::string kCpu2 = "/job:localhost/replica:0/task:0/device:CPU:2";

// GraphDef text for a node; `device` 0, 1, 2 is CPU:0, 1, 2.
std::string NodeText(const std::string& name, const std::string& op, const std::vector<std::string>& inputs, int device,
                 const std::string& attrs = "attr { key: 'T' value { type: DT_FLOAT } }") {
  std::string text = "node { name: '" + name + "' op: '" + op + "' device: '" +
                     "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(device) + "' ";
  for (const std::string& in : inputs) text += "input: '" + in + "' ";
  return text + attrs + " }\n";
}

std::string FloatConst(const std::string& name, int device) {
  return NodeText(name, "Const", {}, device,
              "attr { key: 'dtype' value { type: DT_FLOAT } } "
              "attr { key: 'value' value { tensor { dtype: DT_FLOAT float_val: 1 } } }");
}

std::string IntConst(const std::string& name, int device) {
  return NodeText(name, "Const", {}, device,
              "attr { key: 'dtype' value { type: DT_INT32 } } "
              "attr { key: 'value' value { tensor { dtype: DT_INT32 int_val: 1 } } }");
}


Partitions PartitionOf(const Graph& graph, const PartitionOptions& options = {}) {
  Partitions parts;
  Status s = Partition(graph, options, &parts);
  INFO(s);
  REQUIRE(s.ok());
  // Every partition is a graph of its own that imports and has no cycle.
  for (const auto& [device, def] : parts) {
    INFO("partition " << device << ": " << def.ShortDebugString());
    Graph part;
    Status imported = ImportGraphDef(def, &part);
    INFO(imported);
    REQUIRE(imported.ok());
    std::vector<tensoract::Node*> order;
    REQUIRE(TopologicalOrder(part, &order).ok());
    for (const NodeDef& n : def.node()) CHECK(n.device() == device);
  }
  return parts;
}

const NodeDef* Find(const tf::GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::vector<const NodeDef*> OfOp(const tf::GraphDef& def, const std::string& op) {
  std::vector<const NodeDef*> out;
  for (const NodeDef& n : def.node()) {
    if (n.op() == op) out.push_back(&n);
  }
  return out;
}

std::vector<std::string> Inputs(const NodeDef& n) { return {n.input().begin(), n.input().end()}; }
std::string S(const NodeDef& n, const std::string& attr) { return n.attr().at(attr).s(); }
DataType T(const NodeDef& n, const std::string& attr) { return n.attr().at(attr).type(); }

int EdgeId(const Graph& graph, const std::string& src, const std::string& dst) {
  for (const tensoract::Node* n : graph.op_nodes()) {
    if (n->name() != dst) continue;
    for (const Edge* e : n->in_edges()) {
      if (e->src->name() == src) return e->id;
    }
  }
  FAIL("no edge " << src << " -> " << dst);
  return -1;
}

TEST_CASE("a two-device graph is cut into two partitions joined by Send/Recv pairs", "[partition]") {
  //   CPU:0  x --> y = Neg(x)          CPU:1  z = Mul(x, y) --> w = Identity(z)
  Graph graph;
  Import(FloatConst("x", 0) + NodeText("y", "Neg", {"x"}, 0) + NodeText("z", "Mul", {"x", "y"}, 1) +
             NodeText("w", "Identity", {"z"}, 1),
         &graph);
  PartitionOptions options;
  options.device_incarnations[kCpu0] = 42;
  Partitions parts = PartitionOf(graph, options);
  REQUIRE(parts.size() == 2);
  const tf::GraphDef& p0 = parts.at(kCpu0);
  const tf::GraphDef& p1 = parts.at(kCpu1);
  CHECK(p0.node_size() == 4);  // x, y and two _Sends
  CHECK(p1.node_size() == 4);  // z, w and two _Recvs
  REQUIRE(Find(p0, "x") != nullptr);
  REQUIRE(Find(p0, "y") != nullptr);
  CHECK(Inputs(*Find(p0, "y")) == std::vector<std::string>{"x"});
  REQUIRE(Find(p1, "w") != nullptr);
  CHECK(Inputs(*Find(p1, "w")) == std::vector<std::string>{"z"});
  CHECK(OfOp(p0, "_Send").size() == 2);
  CHECK(OfOp(p1, "_Recv").size() == 2);
  CHECK(OfOp(p0, "_Recv").empty());
  CHECK(OfOp(p1, "_Send").empty());

  // z reads x and y through the Recvs named after their producers, in input order.
  const NodeDef* z = Find(p1, "z");
  REQUIRE(z != nullptr);
  REQUIRE(z->input_size() == 2);
  const NodeDef* recv_x = Find(p1, z->input(0));
  const NodeDef* recv_y = Find(p1, z->input(1));
  REQUIRE(recv_x != nullptr);
  REQUIRE(recv_y != nullptr);
  CHECK_THAT(recv_x->name(), Contains("x/_Recv_"));
  CHECK_THAT(recv_y->name(), Contains("y/_Recv_"));

  // The Send of x matches its Recv attr for attr, with TensorFlow's tensor_name.
  const std::string tensor_name = "edge_" + std::to_string(EdgeId(graph, "x", "z")) + "_x";
  const NodeDef* send_x = nullptr;
  for (const NodeDef* s : OfOp(p0, "_Send")) {
    if (S(*s, "tensor_name") == tensor_name) send_x = s;
  }
  REQUIRE(send_x != nullptr);
  CHECK(Inputs(*send_x) == std::vector<std::string>{"x"});
  CHECK(T(*send_x, "T") == tf::DT_FLOAT);
  CHECK(S(*recv_x, "tensor_name") == tensor_name);
  CHECK(T(*recv_x, "tensor_type") == tf::DT_FLOAT);
  for (const NodeDef* n : {send_x, recv_x}) {
    CHECK(S(*n, "send_device") == kCpu0);
    CHECK(S(*n, "recv_device") == kCpu1);
    CHECK(n->attr().at("send_device_incarnation").i() == 42);
    CHECK(n->attr().at("client_terminated").b() == false);
  }
}

TEST_CASE("a tensor crosses to a device once however many consumers it has there", "[partition]") {
  Graph graph;
  Import(FloatConst("x", 0) + NodeText("a", "Neg", {"x"}, 1) + NodeText("b", "Square", {"x"}, 1) +
             NodeText("c", "Identity", {"x"}, 1) + NodeText("d", "Neg", {"x"}, 2) + NodeText("e", "Neg", {"x"}, 2),
         &graph);
  Partitions parts = PartitionOf(graph);
  REQUIRE(parts.size() == 3);
  // Two pairs: one to CPU:1 for a, b, c; one to CPU:2 for d, e.
  auto sends = OfOp(parts.at(kCpu0), "_Send");
  REQUIRE(sends.size() == 2);
  CHECK(S(*sends[0], "recv_device") != S(*sends[1], "recv_device"));
  for (const auto& [device, consumers] :
       std::map<std::string, std::vector<std::string>>{{kCpu1, {"a", "b", "c"}}, {kCpu2, {"d", "e"}}}) {
    auto recvs = OfOp(parts.at(device), "_Recv");
    REQUIRE(recvs.size() == 1);
    CHECK(S(*recvs[0], "recv_device") == device);
    for (const std::string& c : consumers) {
      REQUIRE(Find(parts.at(device), c) != nullptr);
      CHECK(Inputs(*Find(parts.at(device), c)) == std::vector<std::string>{recvs[0]->name()});
    }
  }
}

TEST_CASE("a cross-device control edge is carried by an empty tensor", "[partition]") {
  //   CPU:0 x;   CPU:1 init after ^x and ^y (y on CPU:1 itself), twice over the same edge kind
  Graph graph;
  Import(FloatConst("x", 0) + FloatConst("y", 1) + NodeText("init", "NoOp", {"^x", "^y"}, 1, "") +
             NodeText("init2", "NoOp", {"^x"}, 1, ""),
         &graph);
  Partitions parts = PartitionOf(graph);
  const tf::GraphDef& p0 = parts.at(kCpu0);
  const tf::GraphDef& p1 = parts.at(kCpu1);
  // One pair for both control consumers on CPU:1.
  auto dummies = OfOp(p0, "Const");
  REQUIRE(dummies.size() == 2);  // x and the dummy
  const NodeDef* dummy = dummies[0]->name() == "x" ? dummies[1] : dummies[0];
  CHECK_THAT(dummy->name(), Contains("x/_Control_"));
  CHECK(Inputs(*dummy) == std::vector<std::string>{"^x"});
  auto sends = OfOp(p0, "_Send");
  REQUIRE(sends.size() == 1);
  CHECK(Inputs(*sends[0]) == std::vector<std::string>{dummy->name()});
  auto recvs = OfOp(p1, "_Recv");
  REQUIRE(recvs.size() == 1);
  CHECK(S(*recvs[0], "tensor_name") == S(*sends[0], "tensor_name"));
  // Control inputs within the device are kept, the one across it goes through the Recv.
  CHECK(Inputs(*Find(p1, "init")) == std::vector<std::string>{"^" + recvs[0]->name(), "^y"});
  CHECK(Inputs(*Find(p1, "init2")) == std::vector<std::string>{"^" + recvs[0]->name()});
}

TEST_CASE("_Arg and _Retval stay on their devices unchanged, private attrs are kept", "[partition]") {
  Graph graph;
  Import(NodeText("arg", "_Arg", {}, 0,
              "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 0 } } "
              "attr { key: '_mark' value { s: 'kept' } }") +
             NodeText("n", "Neg", {"arg"}, 1) +
             NodeText("ret", "_Retval", {"n"}, 1, "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 0 } }"),
         &graph);
  Partitions parts = PartitionOf(graph);
  const NodeDef* arg = Find(parts.at(kCpu0), "arg");
  REQUIRE(arg != nullptr);
  CHECK(arg->attr().at("_mark").s() == "kept");
  REQUIRE(Find(parts.at(kCpu1), "ret") != nullptr);
  CHECK(Inputs(*Find(parts.at(kCpu1), "ret")) == std::vector<std::string>{"n"});
}

TEST_CASE("rendezvous keys are written in TensorFlow's format", "[partition]") {
  CHECK(RendezvousKey(kCpu0, 1, kCpu1, "edge_3_x") ==
        "/job:localhost/replica:0/task:0/device:CPU:0;0000000000000001;"
        "/job:localhost/replica:0/task:0/device:CPU:1;edge_3_x;0:0");
  CHECK(RendezvousKey("/job:worker/replica:0/task:1/device:GPU:0", 0x12ab34cd56ef7890LL,
                      "/job:ps/replica:0/task:0/device:CPU:0", "edge_17_w/read", 2, 5) ==
        "/job:worker/replica:0/task:1/device:GPU:0;12ab34cd56ef7890;"
        "/job:ps/replica:0/task:0/device:CPU:0;edge_17_w/read;2:5");
  // An incarnation is an unsigned 64-bit number in the key.
  CHECK_THAT(RendezvousKey("a", -1, "b", "t"), Contains(";ffffffffffffffff;"));

  // The key both ends of a pair compute from their attrs is the same.
  Graph graph;
  Import(FloatConst("x", 0) + NodeText("y", "Neg", {"x"}, 1), &graph);
  Partitions parts = PartitionOf(graph);
  auto key_of = [](const NodeDef& n) {
    return RendezvousKey(S(n, "send_device"), n.attr().at("send_device_incarnation").i(), S(n, "recv_device"),
                         S(n, "tensor_name"));
  };
  CHECK(key_of(*OfOp(parts.at(kCpu0), "_Send")[0]) == key_of(*OfOp(parts.at(kCpu1), "_Recv")[0]));
  CHECK(key_of(*OfOp(parts.at(kCpu0), "_Send")[0]) ==
        kCpu0 + ";0000000000000001;" + kCpu1 + ";edge_" + std::to_string(EdgeId(graph, "x", "y")) + "_x;0:0");
}

TEST_CASE("an op node without a device is an InvalidArgument naming it", "[partition]") {
  Graph graph;
  Import(FloatConst("x", 0) + "node { name: 'lost' op: 'Neg' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }",
         &graph);
  Partitions parts;
  Status s = Partition(graph, {}, &parts);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'lost'"));
}

TEST_CASE("lossy transfers cast float edges to bfloat16 across the boundary, and only them", "[partition]") {
  Graph graph;
  Import(FloatConst("x", 0) + IntConst("i", 0) + NodeText("a", "Neg", {"x"}, 1) + NodeText("b", "Square", {"x"}, 1) +
             NodeText("j", "Neg", {"i"}, 1, "attr { key: 'T' value { type: DT_INT32 } }"),
         &graph);
  PartitionOptions options;
  options.lossy_float_transfers = true;
  Partitions parts = PartitionOf(graph, options);
  const tf::GraphDef& p0 = parts.at(kCpu0);
  const tf::GraphDef& p1 = parts.at(kCpu1);

  auto narrow = OfOp(p0, "Cast");
  REQUIRE(narrow.size() == 1);  // one for x's two consumers, none for the int32 i
  CHECK(Inputs(*narrow[0]) == std::vector<std::string>{"x"});
  CHECK(T(*narrow[0], "SrcT") == tf::DT_FLOAT);
  CHECK(T(*narrow[0], "DstT") == tf::DT_BFLOAT16);
  CHECK(narrow[0]->attr().at("Truncate").b() == true);

  auto sends = OfOp(p0, "_Send");
  REQUIRE(sends.size() == 2);
  for (const NodeDef* send : sends) {
    const bool of_x = Inputs(*send) == std::vector<std::string>{narrow[0]->name()};
    if (!of_x) CHECK(Inputs(*send) == std::vector<std::string>{"i"});
    CHECK(T(*send, "T") == (of_x ? tf::DT_BFLOAT16 : tf::DT_INT32));
  }

  auto widen = OfOp(p1, "Cast");
  REQUIRE(widen.size() == 1);
  CHECK(T(*widen[0], "SrcT") == tf::DT_BFLOAT16);
  CHECK(T(*widen[0], "DstT") == tf::DT_FLOAT);
  const NodeDef* recv = Find(p1, widen[0]->input(0));
  REQUIRE(recv != nullptr);
  CHECK(recv->op() == "_Recv");
  CHECK(T(*recv, "tensor_type") == tf::DT_BFLOAT16);
  CHECK(Inputs(*Find(p1, "a")) == std::vector<std::string>{widen[0]->name()});
  CHECK(Inputs(*Find(p1, "b")) == std::vector<std::string>{widen[0]->name()});
  const NodeDef* j_input = Find(p1, Find(p1, "j")->input(0));
  REQUIRE(j_input != nullptr);
  CHECK(j_input->op() == "_Recv");
  CHECK(T(*j_input, "tensor_type") == tf::DT_INT32);
}

// The control inputs of the one _Recv in `part`.
std::vector<std::string> RecvControlInputs(const tf::GraphDef& part) {
  auto recvs = OfOp(part, "_Recv");
  REQUIRE(recvs.size() == 1);
  return Inputs(*recvs[0]);
}

TEST_CASE("recv scheduling holds a Recv back until its late consumer is near", "[partition][schedule]") {
  //   CPU:0  x (ready at 1)
  //   CPU:1  c1 -> c2 -> c3 -> c4 -> m = Add(c4, x): m starts at 4, so x is needed at 4
  Graph graph;
  Import(FloatConst("x", 0) + FloatConst("c1", 1) + NodeText("c2", "Neg", {"c1"}, 1) + NodeText("c3", "Neg", {"c2"}, 1) +
             NodeText("c4", "Neg", {"c3"}, 1) + NodeText("m", "Add", {"c4", "x"}, 1),
         &graph);
  PartitionOptions options;
  options.schedule_recvs = true;
  // c4 is the last node that finishes by then: the Recv waits for it.
  CHECK(RecvControlInputs(PartitionOf(graph, options).at(kCpu1)) == std::vector<std::string>{"^c4"});

  // With an expensive x (done at 10), m waits for x, not for the chain: nothing to hold back.
  options.node_cost = [](const tensoract::Node& n) { return n.name() == "x" ? 10.0 : 1.0; };
  CHECK(RecvControlInputs(PartitionOf(graph, options).at(kCpu1)).empty());

  // Without the option: no control input.
  CHECK(RecvControlInputs(PartitionOf(graph).at(kCpu1)).empty());
}

TEST_CASE("recv scheduling adds nothing when the value is needed at once", "[partition][schedule]") {
  //   CPU:0  x -> y -> z (critical);   CPU:1  u (independent), m = Neg(z)
  Graph graph;
  Import(FloatConst("x", 0) + NodeText("y", "Neg", {"x"}, 0) + NodeText("z", "Neg", {"y"}, 0) + FloatConst("u", 1) +
             NodeText("m", "Neg", {"z"}, 1),
         &graph);
  PartitionOptions options;
  options.schedule_recvs = true;
  // z is ready at 3 and m is on the critical path: u (done at 1) would only be waited for
  // by a Recv that cannot start before 3 anyway.
  CHECK(RecvControlInputs(PartitionOf(graph, options).at(kCpu1)).empty());
}

TEST_CASE("recv scheduling never waits on a node that depends on the Recv", "[partition][schedule]") {
  //   CPU:0  x (0-1)
  //   CPU:1  c = Neg(x) (1-2), d = Neg(c) (2-4)          <- d depends on the Recv
  //          l1 (0-2.5) -> l2 (2.5-5) -> l3 (5-7.5) -> e = Add(d, l3) (7.5-8.5)
  // x is needed by c at its ALAP start, 4.5. d finishes at 4, the latest by then, but it
  // reads the Recv: waiting on it would be a cycle. l1 (done at 2.5) is chosen instead.
  Graph graph;
  Import(FloatConst("x", 0) + NodeText("c", "Neg", {"x"}, 1) + NodeText("d", "Neg", {"c"}, 1) + FloatConst("l1", 1) +
             NodeText("l2", "Neg", {"l1"}, 1) + NodeText("l3", "Neg", {"l2"}, 1) + NodeText("e", "Add", {"d", "l3"}, 1),
         &graph);
  PartitionOptions options;
  options.schedule_recvs = true;
  options.node_cost = [](const tensoract::Node& n) {
    if (n.name() == "d") return 2.0;
    return n.name()[0] == 'l' ? 2.5 : 1.0;
  };
  Partitions parts = PartitionOf(graph, options);  // imports each partition and sorts it
  CHECK(RecvControlInputs(parts.at(kCpu1)) == std::vector<std::string>{"^l1"});
}

TEST_CASE("recv scheduling does not close a cycle through another device", "[partition][schedule]") {
  //   CPU:0  x (0-1)                     f = Neg(c) (2-3)
  //   CPU:1  c = Neg(x) (1-2)            g = Neg(f) (3-4)
  //          l1 (0-3.5) -> l2 (3.5-9.5) -> e = Add(g, l2) (9.5-10.5)
  // x is needed by c at its ALAP start, 6.5. g finishes at 4, the latest by then, but it
  // reads x's Recv through CPU:0 (Recv -> c -> Send ... f ... Recv -> g): the Recv of x is
  // held back by l1 instead.
  Graph graph;
  Import(FloatConst("x", 0) + NodeText("c", "Neg", {"x"}, 1) + NodeText("f", "Neg", {"c"}, 0) + NodeText("g", "Neg", {"f"}, 1) +
             FloatConst("l1", 1) + NodeText("l2", "Neg", {"l1"}, 1) + NodeText("e", "Add", {"g", "l2"}, 1),
         &graph);
  PartitionOptions options;
  options.schedule_recvs = true;
  options.node_cost = [](const tensoract::Node& n) {
    if (n.name() == "l1") return 3.5;
    return n.name() == "l2" ? 6.0 : 1.0;
  };
  Partitions parts = PartitionOf(graph, options);
  const tf::GraphDef& p1 = parts.at(kCpu1);
  const NodeDef* recv_x = Find(p1, Find(p1, "c")->input(0));
  REQUIRE(recv_x != nullptr);
  CHECK(Inputs(*recv_x) == std::vector<std::string>{"^l1"});
  // f's Recv on CPU:0 has nothing to wait for there: x is done before c's value can arrive.
  CHECK(RecvControlInputs(parts.at(kCpu0)).empty());
}

}  // namespace
}  // namespace tensoract
