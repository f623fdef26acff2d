// Lanes (graph/loop_lanes.h): which loops of a device get executors of their own, and
// Partition cutting a device's lanes apart with _Send/_Recv pairs.
//
// Getting this wrong runs two loops one after the other that could run side by side, or
// worse, cuts a loop that depends on another into a lane whose values cross per iteration,
// or narrows a value between lanes of one device.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "graph/builder/control_flow_ops.h"
#include "graph/control_flow.h"
#include "graph/loop_lanes.h"
#include "graph/partition.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Cpu;

using testing::kScalar;

namespace tf = ::tensorflow;
using testing::Counter;


// Whether every consumer of `n` is in `lane`.
bool OnlyFeedsLane(const Node& n, const std::vector<int>& lanes, int lane) {
  for (const Edge* e : n.out_edges()) {
    if (e->dst->IsOp() && lanes[e->dst->id()] != lane) return false;
  }
  return true;
}

// The lane of each loop (by frame name) and of the root frame's nodes; a loop whose nodes
// are in different lanes fails the test, and so does a root-frame node outside lane 0 that
// something outside its lane reads (what only one lane's loop reads goes with it).
std::map<std::string, int> LanesByFrame(const Graph& graph) {
  std::vector<int> lanes;
  Status s = IndependentLoopLanes(graph, &lanes);
  INFO(s.ToString());
  REQUIRE(s.ok());
  ControlFlowInfo cf;
  REQUIRE(BuildControlFlowInfo(graph, &cf).ok());
  std::map<std::string, int> by_frame;
  for (const Node* n : graph.op_nodes()) {
    const std::string& frame = cf.frames[cf.frame_of[n->id()]].name;
    INFO("node " << n->name() << " in frame '" << frame << "'");
    if (frame.empty() && lanes[n->id()] != 0) {
      CHECK(OnlyFeedsLane(*n, lanes, lanes[n->id()]));
      continue;
    }
    auto [it, added] = by_frame.emplace(frame, lanes[n->id()]);
    CHECK(it->second == lanes[n->id()]);
  }
  return by_frame;
}

TEST_CASE("two loops that nothing orders get two lanes; the root frame stays in lane 0", "[lanes]") {
  Graph graph;
  testing::BuildPlaced([](const Scope& root) {
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    ops::Add(root.WithOpName("sum"), Counter(root, n, "a"), Counter(root, n, "b"));
  }, &graph);
  auto lanes = LanesByFrame(graph);
  REQUIRE(lanes.size() == 3);
  CHECK(lanes.at("") == 0);
  CHECK(lanes.at("a/while_context") + lanes.at("b/while_context") == 1);  // one in lane 0, the other in lane 1
}

TEST_CASE("what only a lane's loop reads goes to that lane; what both read stays in lane 0", "[lanes]") {
  Graph graph;
  testing::BuildPlaced([](const Scope& root) {
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    Output a = Counter(root, n, "a");                          // first: lane 0
    auto limit = ops::Add(root.WithOpName("b_limit"), n, 1);  // read by loop b alone
    Output b = Counter(root, limit, "b");
    ops::Add(root.WithOpName("sum"), a, b);
  }, &graph);
  std::vector<int> lanes;
  REQUIRE(IndependentLoopLanes(graph, &lanes).ok());
  const int b_lane = lanes[graph.FindNode("b/Enter")->id()];
  CHECK(b_lane == 1);
  CHECK(lanes[graph.FindNode("b_limit")->id()] == b_lane);
  CHECK(lanes[graph.FindNode("n")->id()] == 0);    // a feed, read by both loops
  CHECK(lanes[graph.FindNode("sum")->id()] == 0);  // reads both results
}

TEST_CASE("a loop that reads another's result shares its lane", "[lanes]") {
  Graph graph;
  testing::BuildPlaced([](const Scope& root) {
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    Counter(root, Counter(root, n, "first"), "second");
  }, &graph);
  for (const auto& [frame, lane] : LanesByFrame(graph)) {
    INFO(frame);
    CHECK(lane == 0);
  }
}

TEST_CASE("a stacked bidirectional loop pair: each layer's second loop gets a lane of its own", "[lanes]") {
  // A and B read n; C and D read both of their results (a second bidirectional layer).
  Graph graph;
  testing::BuildPlaced([](const Scope& root) {
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    // In this order (loops are taken in the order of their nodes).
    Output a = Counter(root, n, "A");
    Output b = Counter(root, n, "B");
    auto both = ops::Add(root, a, b);
    Output c = Counter(root, both, "C");
    Output d = Counter(root, both, "D");
    ops::Add(root.WithOpName("out"), c, d);
  }, &graph);
  auto lanes = LanesByFrame(graph);
  CHECK(lanes.at("A/while_context") == 0);
  CHECK(lanes.at("B/while_context") == 1);
  CHECK(lanes.at("C/while_context") == 0);
  CHECK(lanes.at("D/while_context") == 2);
}

TEST_CASE("loops stay in lane 0 off the CPU, and all of them where the graph has stacks", "[lanes]") {
  SECTION("on a GPU") {
    Graph graph;
    testing::BuildPlaced([](const Scope& root) {
      auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
      ops::Add(root, Counter(root, n, "a"), Counter(root, n, "b"));
    }, &graph, "/job:localhost/replica:0/task:0/device:GPU:0");
    for (const auto& [frame, lane] : LanesByFrame(graph)) CHECK(lane == 0);
  }
  SECTION("beside a StackV2") {
    Graph graph;
    testing::BuildPlaced([](const Scope& root) {
      auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
      ops::Add(root, Counter(root, n, "a"), Counter(root, n, "b"));
      ops::StackV2(root, n, tf::DT_FLOAT);
    }, &graph);
    for (const auto& [frame, lane] : LanesByFrame(graph)) CHECK(lane == 0);
  }
}

TEST_CASE("Partition cuts a device's lanes apart: same device at both ends, nothing narrowed", "[lanes][partition]") {
  Graph graph;
  testing::BuildPlaced([](const Scope& root) {
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, kScalar);
    ops::Identity(root.WithOpName("count"), Counter(root, n, "counter"));  // first: lane 0
    std::vector<Output> out;
    // A float loop, in lane 1: its input and result would be narrowed across devices.
    REQUIRE(ops::WhileLoop(
                root, {ops::Const(root, 0), x},
                [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
                  *pred = ops::Less(sc, v[0], n);
                  return sc.status();
                },
                [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
                  *next = {ops::Add(sc, v[0], 1), ops::Mul(sc, v[1], 2.f)};
                  return sc.status();
                },
                &out)
                .ok());
    ops::Identity(root.WithOpName("y"), out[1]);
  }, &graph);
  std::vector<int> lanes;
  REQUIRE(IndependentLoopLanes(graph, &lanes).ok());
  PartitionOptions options;
  options.lossy_float_transfers = true;
  options.lane_of = [&](const Node& node) { return lanes[node.id()]; };
  std::map<std::string, tf::GraphDef> parts;
  Status s = Partition(graph, options, &parts);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(parts.size() == 2);
  REQUIRE(parts.count(Cpu(0)) == 1);
  const std::string lane_key = PartitionKey(Cpu(0), 1);
  CHECK(lane_key == Cpu(0) + "#lane:1");
  CHECK(DeviceOfPartition(lane_key) == Cpu(0));
  CHECK(LaneOfPartition(lane_key) == 1);
  CHECK(LaneOfPartition(Cpu(0)) == 0);
  REQUIRE(parts.count(lane_key) == 1);
  int sends = 0;
  for (const auto& [key, part] : parts) {
    INFO("partition " << key);
    for (const NodeDef& node : part.node()) {
      INFO(node.ShortDebugString());
      CHECK(node.device() == Cpu(0));
      auto lane = node.attr().find(kExecutorLaneAttr);
      CHECK((lane == node.attr().end() ? 0 : lane->second.i()) == LaneOfPartition(key));
      CHECK(node.name().find("Bfloat16") == std::string::npos);  // nothing narrowed between lanes
      if (node.op() == "_Send" || node.op() == "_Recv") {
        CHECK(node.attr().at("send_device").s() == Cpu(0));
        CHECK(node.attr().at("recv_device").s() == Cpu(0));
        sends += node.op() == "_Send";
      }
    }
    // Each lane is a graph of its own, with well-formed frames.
    Graph lane_graph;
    Status imported = ImportGraphDef(part, &lane_graph);
    INFO(imported.ToString());
    CHECK(imported.ok());
  }
  CHECK(sends > 0);
}

}  // namespace
}  // namespace tensoract
