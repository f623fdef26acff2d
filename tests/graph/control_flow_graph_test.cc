// Control flow in the graph layer (issue 7): which frame each node runs in, the builder's
// tf.cond / tf.while_loop structure and names, loops' back edges in topological order, and
// partitioning a loop across devices (control loops).
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/control_flow.h"
#include "graph/partition.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Cpu;

using testing::kScalar;

namespace tf = ::tensorflow;

std::map<std::string, const NodeDef*> ByName(const tf::GraphDef& def) {
  std::map<std::string, const NodeDef*> out;
  for (const NodeDef& n : def.node()) out[n.name()] = &n;
  return out;
}

TEST_CASE("WhileLoop builds tf.while_loop's nodes, names and frame", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  testing::Counter(root, n);
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto nodes = ByName(def);
  for (const char* name : {"while/Enter", "while/Merge", "while/Less", "while/Less/Enter", "while/LoopCond",
                           "while/Switch", "while/Identity", "while/Add", "while/NextIteration", "while/Exit"}) {
    INFO(name);
    CHECK(nodes.count(name) == 1);
  }
  CHECK(nodes["while/Enter"]->attr().at("frame_name").s() == "while/while_context");
  CHECK(nodes["while/Less/Enter"]->attr().at("is_constant").b());
  CHECK(std::vector<std::string>(nodes["while/Merge"]->input().begin(), nodes["while/Merge"]->input().end()) ==
        std::vector<std::string>{"while/Enter", "while/NextIteration"});
  CHECK(nodes["while/Switch"]->attr().at("_class").list().s(0) == "loc:@while/Merge");
  CHECK(std::vector<std::string>(nodes["while/Exit"]->input().begin(), nodes["while/Exit"]->input().end()) ==
        std::vector<std::string>{"while/Switch"});
  // The body's constant hangs off the pivot.
  bool pivoted = false;
  for (const auto& [name, node] : nodes) {
    if (node->op() == "Const" && name.rfind("while/", 0) == 0) {
      pivoted = std::find(node->input().begin(), node->input().end(), "^while/Identity") != node->input().end();
    }
  }
  CHECK(pivoted);

  Graph graph;
  REQUIRE(ImportGraphDef(def, &graph).ok());
  ControlFlowInfo cf;
  REQUIRE(BuildControlFlowInfo(graph, &cf).ok());
  REQUIRE(cf.frames.size() == 2);
  CHECK(cf.frames[1].name == "while/while_context");
  CHECK(cf.frames[1].parallel_iterations == 10);
  CHECK(cf.frames[1].enters.size() == 2);
  auto frame = [&](const char* name) { return cf.frame_of[graph.FindNode(name)->id()]; };
  CHECK(frame("n") == 0);
  CHECK(frame("while/Enter") == 0);  // an Enter runs in its parent frame ...
  CHECK(cf.OutputFrame(*graph.FindNode("while/Enter")) == 1);  // ... and outputs into the loop
  CHECK(frame("while/Merge") == 1);
  CHECK(frame("while/Add") == 1);
  CHECK(frame("while/Exit") == 1);
  CHECK(cf.OutputFrame(*graph.FindNode("while/Exit")) == 0);
  // The back edge NextIteration -> Merge is no cycle for the topological order.
  std::vector<Node*> order;
  CHECK(TopologicalOrder(graph, &order).ok());
}

TEST_CASE("Cond builds tf.cond's pivots, Switches and Merge", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), tf::DT_BOOL, kScalar);
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  std::vector<Output> y;
  REQUIRE(ops::Cond(
              root, p,
              [&](const Scope& s, std::vector<Output>* out) {
                out->push_back(ops::Add(s, x, 1.f));
                return s.status();
              },
              [&](const Scope& s, std::vector<Output>* out) {
                out->push_back(ops::Neg(s, x));
                return s.status();
              },
              &y)
              .ok());
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto nodes = ByName(def);
  for (const char* name : {"cond/Switch", "cond/switch_t", "cond/switch_f", "cond/pred_id", "cond/Add",
                           "cond/Add/Switch", "cond/Neg", "cond/Neg/Switch", "cond/Merge"}) {
    INFO(name);
    CHECK(nodes.count(name) == 1);
  }
  CHECK(nodes["cond/Add"]->input(0) == "cond/Add/Switch:1");
  CHECK(nodes["cond/Neg"]->input(0) == "cond/Neg/Switch");
  CHECK(nodes["cond/Add/Switch"]->input(1) == "cond/pred_id");
  CHECK(nodes["cond/Add/Switch"]->attr().at("_class").list().s(0) == "loc:@x");
  // tf.cond's order: Merge(else, then).
  CHECK(nodes["cond/Merge"]->input(0) == "cond/Neg");
  CHECK(nodes["cond/Merge"]->input(1) == "cond/Add");
}

TEST_CASE("the builder's errors: no loop variables, wrong dtypes, branches that disagree", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  auto never = [](const Scope& s, const std::vector<Output>&, Output* pred) {
    *pred = ops::Const(s, false);
    return s.status();
  };
  Status s = ops::WhileLoop(root, {}, never,
                            [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
                              *next = v;
                              return sc.status();
                            },
                            &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  Scope r2 = Scope::NewRootScope();
  s = ops::WhileLoop(r2, {ops::Const(r2, 0)}, never,
                     [](const Scope& sc, const std::vector<Output>&, std::vector<Output>* next) {
                       *next = {ops::Const(sc, 1.f)};
                       return sc.status();
                     },
                     &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("int32") && Catch::Contains("float"));
  Scope r3 = Scope::NewRootScope();
  s = ops::Cond(
      r3, ops::Const(r3, true),
      [](const Scope& sc, std::vector<Output>* o) {
        o->push_back(ops::Const(sc, 1.f));
        return sc.status();
      },
      [](const Scope& sc, std::vector<Output>* o) {
        o->push_back(ops::Const(sc, 1));
        return sc.status();
      },
      &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("same dtypes"));
}

TEST_CASE("partitioning a loop across devices adds a control loop on the receiving device", "[control_flow]") {
  Scope root = Scope::NewRootScope().WithDevice(Cpu(0));
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  std::vector<Output> out;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0)},
              [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
                *pred = ops::Less(sc, v[0], n);
                return sc.status();
              },
              [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
                *next = {ops::Identity(sc.WithDevice(Cpu(0)), ops::Add(sc.WithOpName("far").WithDevice(Cpu(1)), v[0], 1))};
                return sc.status();
              },
              &out)
              .ok());
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  Graph graph;
  REQUIRE(ImportGraphDef(def, &graph).ok());
  // The placer's part: the invariant's Enter goes with n (the builder colocates it).
  for (Node* node : graph.op_nodes()) {
    if (node->def().device().empty()) node->mutable_def()->set_device(Cpu(0));
  }
  std::map<std::string, tf::GraphDef> parts;
  Status s = Partition(graph, {}, &parts);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(parts.count(Cpu(1)) == 1);
  auto p1 = ByName(parts.at(Cpu(1)));
  // CPU:1: Enter(dummy) -> Merge -> Switch(Merge, the LoopCond's value) -> NextIteration.
  const NodeDef* merge = nullptr;
  std::set<std::string> ops_on_1;
  for (const auto& [name, node] : p1) {
    ops_on_1.insert(node->op());
    if (node->op() == "Merge" && name.rfind("_cloop/while/while_context", 0) == 0) merge = node;
  }
  REQUIRE(merge != nullptr);
  for (const char* op : {"Enter", "Merge", "Switch", "NextIteration", "_Recv", "_Send"}) {
    INFO(op);
    CHECK(ops_on_1.count(op) == 1);
  }
  // Every _Recv on CPU:1 runs after the control loop's Merge: once per iteration.
  int recvs = 0;
  for (const auto& [name, node] : p1) {
    if (node->op() != "_Recv") continue;
    ++recvs;
    CHECK(std::find(node->input().begin(), node->input().end(), "^" + merge->name()) != node->input().end());
  }
  CHECK(recvs == 3);  // the loop variable, the pivot (for the constant 1), the LoopCond
  // Each partition still imports, with well-formed frames.
  for (const auto& [device, part] : parts) {
    Graph g;
    Status imported = ImportGraphDef(part, &g);
    INFO(device << ": " << imported.ToString());
    CHECK(imported.ok());
  }
}

TEST_CASE("an Enter with an empty frame name or parallel_iterations 0 is refused", "[control_flow]") {
  auto import = [](const std::string& enter_attrs) {
    Graph graph;
    return ImportGraphDef(testing::FromText<tf::GraphDef>(
                              "node { name: 'a' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                              "attr { key: 'value' value { tensor { dtype: DT_FLOAT float_val: 1 } } } } "
                              "node { name: 'e' op: 'Enter' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } " +
                              enter_attrs + " } node { name: 'x' op: 'Exit' input: 'e' "
                                            "attr { key: 'T' value { type: DT_FLOAT } } }"),
                          &graph);
  };
  CHECK(import("attr { key: 'frame_name' value { s: 'f' } }").ok());
  Status s = import("attr { key: 'frame_name' value { s: '' } }");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'e'"));
  s = import("attr { key: 'frame_name' value { s: 'f' } } attr { key: 'parallel_iterations' value { i: 0 } }");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("parallel_iterations"));
}

}  // namespace
}  // namespace tensoract
