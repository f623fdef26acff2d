// What the optimizer does to loops: loop-invariant motion
// (graph/optimizer/loop_invariant_motion.h), which nodes of a loop body leave the loop and
// which stay, and the remapper's Identity bypass (graph/optimizer/remapper.h), which
// Identities a loop skips.
//
// Getting them wrong changes what a loop computes: a moved node that fed NextIteration would
// start one iteration too many, a moved read of a variable the loop writes would read it
// once, a consumer whose only inputs moved would run live after the loop ended, and a
// skipped pivot would leave the body's constants without their iteration.
// tests/actors/loop_optimization_session_test.cc runs such loops both ways.
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "graph/builder/control_flow_ops.h"
#include "graph/builder/ops.h"
#include "graph/control_flow.h"
#include "graph/node_def_util.h"
#include "graph/optimizer/loop_invariant_motion.h"
#include "graph/optimizer/remapper.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kScalar;

namespace tf = ::tensorflow;

const char kFrame[] = "loop/while_context";  // the builder names a loop's frame so

// The body's inputs, and x and v from outside the loop.
using LoopBody = std::function<std::vector<Output>(const Scope&, const std::vector<Output>& in, const Output& x,
                                                   const Output& v)>;

// Imports into `graph` the loop "loop" over an int32 counter from 0 and `floats` float
// variables from 0: while (in[0] < n) in = body(in, x, v), with n an int32 and x a float
// placeholder and v a float resource variable outside the loop; its last result is fetched
// as "result".
void ImportLoop(int floats, const LoopBody& body, Graph* graph) {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, kScalar);
  Output v = ops::VarHandleOp(root.WithOpName("v"), tf::DT_FLOAT, kScalar);
  std::vector<Output> init = {ops::Const(root, 0)};
  for (int i = 0; i < floats; ++i) init.push_back(ops::Const(root, 0.f));
  const std::vector<Output> out = testing::CountedLoop(
      root, n, init, [&](const Scope& sc, const std::vector<Output>& in) { return body(sc, in, x, v); }, "loop");
  ops::Identity(root.WithOpName("result"), out.back());
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  REQUIRE(ImportGraphDef(def, graph).ok());
}

// while (i < n) { i += 1; acc = acc * 0.5 + scaled } with scaled = x * 3 (x from outside
// the loop) and, when `with_variable`, acc += read(v) after v += 1 each iteration.
void LoopGraph(bool with_variable, Graph* graph) {
  ImportLoop(1, [with_variable](const Scope& sc, const std::vector<Output>& in, const Output& x, const Output& v) {
    auto scaled = ops::Mul(sc.WithOpName("scaled"), x, 3.f);
    Output acc = ops::Add(sc.WithOpName("acc"), ops::Mul(sc, in[1], 0.5f), scaled);
    if (with_variable) {
      Node* bump = ops::AssignAddVariableOp(sc.WithOpName("bump"), v, 1.f);
      auto read = ops::ReadVariableOp(sc.WithOpName("read").WithControlDependencies({bump}), v, tf::DT_FLOAT);
      acc = ops::Add(sc, acc, read);
    }
    return std::vector<Output>{ops::Add(sc.WithOpName("count"), in[0], 1), acc};
  }, graph);
}

// The frame `name`'s node runs in ("" for the root frame).
std::string FrameOf(const Graph& graph, const std::string& name) {
  ControlFlowInfo info;
  Status s = BuildControlFlowInfo(graph, &info);
  INFO(s.ToString());
  REQUIRE(s.ok());
  Node* n = graph.FindNode(name);
  REQUIRE(n != nullptr);
  return info.frames[info.frame_of[n->id()]].name;
}

// The node `name` itself, found by its name's ending (the builder prefixes loop nodes).
std::string Named(const Graph& graph, const std::string& ending) {
  for (const Node* n : graph.op_nodes()) {
    const std::string& name = n->name();
    if (name.size() >= ending.size() && name.compare(name.size() - ending.size(), ending.size(), ending) == 0) {
      return name;
    }
  }
  FAIL("no node ends in " << ending);
  return "";
}

TEST_CASE("a body's node of invariants leaves the loop and enters it as an invariant", "[optimizer][loops]") {
  Graph graph;
  LoopGraph(/*with_variable=*/false, &graph);
  const std::string scaled = Named(graph, "scaled");
  REQUIRE(FrameOf(graph, scaled) == kFrame);
  REQUIRE(HoistLoopInvariants(&graph));
  CHECK(FrameOf(graph, scaled).empty());
  // Its constant operand left with it; it reaches its consumer through a constant Enter.
  const Node* moved = graph.FindNode(scaled);
  for (const Edge* e : moved->in_edges()) CHECK_FALSE(IsEnter(*e->src));
  int enters = 0;
  for (const Edge* e : moved->out_edges()) {
    if (!e->dst->IsOp()) continue;
    REQUIRE(IsEnter(*e->dst));
    bool constant = false;
    REQUIRE(GetNodeAttr(e->dst->def(), "is_constant", &constant).ok());
    CHECK(constant);
    ++enters;
  }
  CHECK(enters == 1);
  // What depends on the iteration stays: the accumulator and the counter.
  CHECK(FrameOf(graph, Named(graph, "acc")) == kFrame);
  CHECK(FrameOf(graph, Named(graph, "count")) == kFrame);
  CHECK_FALSE(HoistLoopInvariants(&graph));  // nothing more to move
}

TEST_CASE("a read of a variable some op writes stays in the loop, as does the write", "[optimizer][loops]") {
  Graph graph;
  LoopGraph(/*with_variable=*/true, &graph);
  REQUIRE(HoistLoopInvariants(&graph));  // x * 3 still moves
  CHECK(FrameOf(graph, Named(graph, "scaled")).empty());
  CHECK(FrameOf(graph, Named(graph, "read")) == kFrame);
  CHECK(FrameOf(graph, Named(graph, "bump")) == kFrame);
}

TEST_CASE("a value fed back to the next iteration stays in the loop", "[optimizer][loops]") {
  // while (i < n) { i += 1; y = x * 2 }: y is the same every iteration, but its
  // NextIteration must see it dead once the loop ends.
  Graph graph;
  ImportLoop(1, [](const Scope& sc, const std::vector<Output>& in, const Output& x, const Output&) {
    return std::vector<Output>{ops::Add(sc, in[0], 1), ops::Mul(sc.WithOpName("twice"), x, 2.f)};
  }, &graph);
  HoistLoopInvariants(&graph);
  CHECK(FrameOf(graph, Named(graph, "twice")) == kFrame);
}

// Places every node of `graph` on the CPU (the remapper works on placed graphs).
void PlaceOnCpu(Graph* graph) {
  for (Node* n : graph->op_nodes()) n->mutable_def()->set_device("/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST_CASE("a loop's pass-through Identities are skipped; its pivot and its control are kept", "[optimizer][loops]") {
  Graph graph;
  LoopGraph(/*with_variable=*/false, &graph);
  PlaceOnCpu(&graph);
  auto in_loop = [&graph] {
    ControlFlowInfo info;
    REQUIRE(BuildControlFlowInfo(graph, &info).ok());
    std::vector<const Node*> found;
    for (const Node* n : graph.op_nodes()) {
      if (n->type_string() == "Identity" && info.frame_of[n->id()] > 0) found.push_back(n);
    }
    return found;
  };
  REQUIRE(in_loop().size() == 2);  // the body's view of each loop variable
  Remap(&graph);
  // The pivot stays: the body's constants wait on it by control edges.
  std::vector<const Node*> kept = in_loop();
  REQUIRE(kept.size() == 1);
  bool controls = false;
  for (const Edge* e : kept[0]->out_edges()) controls = controls || e->IsControlEdge();
  CHECK(controls);
  // The other loop variable's readers read its Switch's output themselves.
  bool reads_switch = false;
  for (const Node* n : graph.op_nodes()) {
    if (IsControlFlow(*n)) continue;
    for (const Edge* e : n->in_edges()) reads_switch = reads_switch || (!e->IsControlEdge() && IsSwitch(*e->src));
  }
  CHECK(reads_switch);
}

TEST_CASE("an Identity with a control input before a NextIteration stays", "[optimizer][loops]") {
  // The body returns Identity(i + 1, ^side): a NextIteration takes no control inputs.
  Graph graph;
  ImportLoop(0, [](const Scope& sc, const std::vector<Output>& in, const Output&, const Output&) {
    Node* side = ops::NoOp(sc.WithOpName("side"));
    return std::vector<Output>{
        ops::Identity(sc.WithOpName("returned").WithControlDependencies({side}), ops::Add(sc, in[0], 1))};
  }, &graph);
  PlaceOnCpu(&graph);
  Remap(&graph);
  CHECK(graph.FindNode(Named(graph, "returned")) != nullptr);
}

}  // namespace
}  // namespace tensoract
