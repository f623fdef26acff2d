// Sequential loops (graph/optimizer/sequential_loops.h): which loops become one
// _SequentialLoop node, and what that node says of the loop.
//
// Getting this wrong would hand a loop the kernel cannot run alone (one with a loop inside,
// a random op whose state the executor's kernel keeps, a node on another device) to it, or
// leave a node of the loop behind, reading from a frame that no longer exists.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "graph/builder/control_flow_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/random_ops.h"
#include "graph/control_flow.h"
#include "graph/optimizer/sequential_loops.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Cpu;
using testing::kScalar;
namespace tf = ::tensorflow;

int FuseAll(Graph* graph) {
  return FuseSequentialLoops(graph, [](const Node&) { return true; });
}

// while (i < n) { i += 1; acc = acc * 0.5 + x } with x a loop invariant; "result" reads acc.
void AccumulatingLoop(const Scope& root) {
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, kScalar);
  auto out = testing::CountedLoop(root, n, {ops::Const(root, 0), ops::Const(root, 0.f)},
                                  [&](const Scope& sc, const std::vector<Output>& in) {
                                    return std::vector<Output>{ops::Add(sc, in[0], 1),
                                                               ops::Add(sc, ops::Mul(sc, in[1], 0.5f), x)};
                                  }, "acc");
  ops::Identity(root.WithOpName("result"), out[1]);
}

std::set<std::string> OpTypesOf(const Graph& graph) {
  std::set<std::string> ops;
  for (Node* n : graph.op_nodes()) ops.insert(n->type_string());
  return ops;
}

TEST_CASE("a plain CPU loop becomes one _SequentialLoop node", "[optimizer][loops]") {
  Graph graph;
  testing::BuildPlaced(AccumulatingLoop, &graph);
  REQUIRE(FuseAll(&graph) == 1);
  const std::set<std::string> ops = OpTypesOf(graph);
  for (const char* gone : {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit"}) {
    INFO(gone);
    CHECK(ops.count(gone) == 0);
  }
  Node* loop = nullptr;
  for (Node* n : graph.op_nodes()) {
    if (n->type_string() == "_SequentialLoop") loop = n;
  }
  REQUIRE(loop != nullptr);
  CHECK(loop->requested_device() == Cpu(0));
  const auto& attr = loop->def().attr();
  CHECK(attr.at("T").list().type_size() == 2);           // i and acc
  CHECK(attr.at("Tinvariants").list().type_size() >= 1);  // x (and the body's constants)
  tf::GraphDef body;
  REQUIRE(body.ParseFromString(attr.at("body").s()));
  CHECK(body.node_size() > 0);
  CHECK(attr.at("gated").list().s_size() > 0);  // the body's Adds and Mul
  CHECK(attr.at("next").list().s_size() == 2);
  // "result" now reads the loop's output for acc.
  Node* result = graph.FindNode("result");
  REQUIRE(result != nullptr);
  CHECK(result->input_edge(0)->src == loop);
  ControlFlowInfo info;
  REQUIRE(BuildControlFlowInfo(graph, &info).ok());
  CHECK_FALSE(info.HasLoops());
}

TEST_CASE("loops the kernel cannot run alone stay with the executor", "[optimizer][loops]") {
  SECTION("a loop inside a loop") {
    Graph graph;
    testing::BuildPlaced([](const Scope& root) {
      auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
      auto out = testing::CountedLoop(root, n, {ops::Const(root, 0), ops::Const(root, 0)},
                                      [&](const Scope& sc, const std::vector<Output>& in) {
                                        Output inner = testing::Counter(sc, ops::Const(sc, 3), "inner");
                                        return std::vector<Output>{ops::Add(sc, in[0], 1), ops::Add(sc, in[1], inner)};
                                      }, "outer");
      ops::Identity(root.WithOpName("result"), out[1]);
    }, &graph);
    CHECK(FuseAll(&graph) == 0);
  }
  SECTION("a random op, whose kernel keeps its state") {
    Graph graph;
    testing::BuildPlaced([](const Scope& root) {
      auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
      auto out = testing::CountedLoop(root, n, {ops::Const(root, 0), ops::Const(root, {0.f})},
                                      [&](const Scope& sc, const std::vector<Output>& in) {
                                        Output r = ops::RandomUniform(sc, ops::Const(sc, {1}), tf::DT_FLOAT);
                                        return std::vector<Output>{ops::Add(sc, in[0], 1), ops::Add(sc, in[1], r)};
                                      }, "random");
      ops::Identity(root.WithOpName("result"), out[1]);
    }, &graph);
    CHECK(FuseAll(&graph) == 0);
  }
  SECTION("a loop on a GPU") {
    Graph graph;
    testing::BuildPlaced(AccumulatingLoop, &graph, "/job:localhost/replica:0/task:0/device:GPU:0");
    CHECK(FuseAll(&graph) == 0);
  }
  SECTION("a node without a CPU kernel") {
    Graph graph;
    testing::BuildPlaced(AccumulatingLoop, &graph);
    CHECK(FuseSequentialLoops(&graph, [](const Node& n) { return n.type_string() != "Mul"; }) == 0);
    CHECK(OpTypesOf(graph).count("Merge") == 1);
  }
}

TEST_CASE("two loops side by side each become one node", "[optimizer][loops]") {
  Graph graph;
  testing::BuildPlaced([](const Scope& root) {
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    ops::Identity(root.WithOpName("a"), testing::Counter(root, n, "first"));
    ops::Identity(root.WithOpName("b"), testing::Counter(root, ops::Add(root, n, 2), "second"));
  }, &graph);
  CHECK(FuseAll(&graph) == 2);
  std::vector<Node*> loops;
  for (Node* n : graph.op_nodes()) {
    if (n->type_string() == "_SequentialLoop") loops.push_back(n);
  }
  CHECK(loops.size() == 2);
}

}  // namespace
}  // namespace tensoract
