// The graph optimizer's passes: common-subexpression elimination and constant folding,
// and OptimizeGraph running them to a fixed point behind its switches.
//
// Folding here uses a fake evaluator (float Add/AddV2/Mul/Identity, MatMul always fails),
// so these tests pin the graph rewriting alone; tests/kernels/constant_folding_test.cc
// folds with the real CPU kernels. Getting a pass wrong changes what a graph computes:
// a merged stateful op runs once instead of twice, a folded node that was ordered after
// another runs before it.
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/optimizer/constant_folding.h"
#include "graph/optimizer/constant_weights.h"
#include "graph/optimizer/cse.h"
#include "graph/optimizer/graph_optimizer.h"
#include "tests/graph/test_util.h"

// Test-only ops: a stateful source, a stateful op on a value, a variable and a reader of it.
REGISTER_OP("OptimizerTestRandom").Output("out: float").SetIsStateful();
REGISTER_OP("OptimizerTestStatefulNeg").Input("x: float").Output("y: float").SetIsStateful();
REGISTER_OP("OptimizerTestVariable").Output("ref: Ref(float)").SetIsStateful();
REGISTER_OP("OptimizerTestReadRef").Input("ref: Ref(float)").Output("value: float");
// No shape function: its output's size is only known once it has been evaluated.
REGISTER_OP("OptimizerTestDouble").Input("x: float").Output("y: float");

namespace tensoract {
namespace {

using testing::HasControlEdge;

using testing::Import;

namespace tf = ::tensorflow;
using testing::FromText;

// ---- graphs written as text ------------------------------------------------------------

std::string FloatTensor(const std::vector<float>& values, const std::vector<int>& dims) {
  std::string t = "tensor { dtype: DT_FLOAT tensor_shape { ";
  for (int d : dims) t += StrCat("dim { size: ", d, " } ");
  t += "} ";
  for (float v : values) t += StrCat("float_val: ", v, " ");
  return t + "}";
}

// `extra` is more NodeDef text: control inputs ("input: '^x'"), a device.
std::string Const(const std::string& name, float value, const std::string& extra = "") {
  return StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } ",
                "attr { key: 'value' value { ", FloatTensor({value}, {}), " } } ", extra, " }\n");
}
std::string ConstTensor(const std::string& name, const std::vector<float>& values, const std::vector<int>& dims) {
  return StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } ",
                "attr { key: 'value' value { ", FloatTensor(values, dims), " } } }\n");
}
std::string Op(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
               const std::string& extra = "") {
  std::string n = StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs) n += StrCat("input: '", in, "' ");
  return n + "attr { key: 'T' value { type: DT_FLOAT } } " + extra + " }\n";
}
std::string Untyped(const std::string& op, const std::string& name, const std::vector<std::string>& inputs) {
  std::string n = StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs) n += StrCat("input: '", in, "' ");
  return n + "}\n";
}
std::string Arg(const std::string& name, int index) {
  return StrCat("node { name: '", name, "' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } ",
                "attr { key: 'index' value { i: ", index, " } } }\n");
}
std::string Retval(const std::string& name, const std::string& input, int index) {
  return StrCat("node { name: '", name, "' op: '_Retval' input: '", input, "' ",
                "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: ", index, " } } }\n");
}


// ---- reading the result ------------------------------------------------------------------

const Node* InputNode(const Graph& graph, const std::string& node, int i) {
  const Node* n = graph.FindNode(node);
  REQUIRE(n != nullptr);
  REQUIRE(n->input_edge(i) != nullptr);
  return n->input_edge(i)->src;
}


std::vector<float> Floats(const tf::TensorProto& t) {
  int64_t n = 1;
  for (const auto& d : t.tensor_shape().dim()) n *= d.size();
  std::vector<float> v(t.float_val().begin(), t.float_val().end());
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);  // TensorFlow's "repeat the last value"
  return v;
}

std::vector<float> ConstValue(const Node* n) {
  REQUIRE(n->type_string() == "Const");
  const tf::TensorProto* value = nullptr;
  REQUIRE(GetNodeAttr(n->def(), "value", &value).ok());
  return Floats(*value);
}

bool IsAcyclic(const Graph& graph) {
  std::vector<Node*> order;
  return TopologicalOrder(graph, &order).ok();
}

// Float Add/AddV2/Mul (a scalar broadcasts) and Identity; everything else fails.
class FakeEvaluator : public ConstantEvaluator {
 public:
  Status Evaluate(const NodeDef& node, const tf::OpDef&, const std::vector<const tf::TensorProto*>& inputs,
                  std::vector<tf::TensorProto>* outputs) const override {
    evaluated.push_back(node.name());
    const std::string& op = node.op();
    outputs->assign(1, tf::TensorProto());
    tf::TensorProto& out = (*outputs)[0];
    if (op == "Identity" || op == "OptimizerTestDouble") {
      if (op == "OptimizerTestDouble") {
        std::vector<float> v = Floats(*inputs[0]);
        out.set_dtype(tf::DT_FLOAT);
        *out.mutable_tensor_shape() = inputs[0]->tensor_shape();
        for (float f : v) out.add_float_val(2 * f);
        return Status::OK();
      }
      out = *inputs[0];
      return Status::OK();
    }
    if (op != "Add" && op != "AddV2" && op != "Mul") return errors::Unimplemented("fake evaluator: no ", op);
    std::vector<float> a = Floats(*inputs[0]), b = Floats(*inputs[1]);
    const tf::TensorProto& shape_from = a.size() >= b.size() ? *inputs[0] : *inputs[1];
    if (a.size() == 1) a.assign(b.size(), a[0]);
    if (b.size() == 1) b.assign(a.size(), b[0]);
    out.set_dtype(tf::DT_FLOAT);
    *out.mutable_tensor_shape() = shape_from.tensor_shape();
    for (size_t i = 0; i < a.size(); ++i) out.add_float_val(op == "Mul" ? a[i] * b[i] : a[i] + b[i]);
    return Status::OK();
  }
  mutable std::vector<std::string> evaluated;  // the tests are single-threaded
};

bool Fold(Graph* graph, int64_t max_bytes = 10 << 20) {
  FakeEvaluator evaluator;
  ConstantFoldingOptions options;
  options.max_constant_size_in_bytes = max_bytes;
  return ConstantFold(options, evaluator, graph);
}

// ---- common-subexpression elimination ----------------------------------------------------

TEST_CASE("CSE merges nodes with the same op, inputs and attrs into the one with the lowest id") {
  Graph graph;
  Import(Arg("x", 0) + Arg("y", 1) + Op("Add", "a1", {"x", "y"}) + Op("Add", "a2", {"x", "y"}) +
             Retval("r1", "a1", 0) + Retval("r2", "a2", 1),
         &graph);
  REQUIRE(EliminateCommonSubexpressions(&graph));
  CHECK(graph.FindNode("a1") != nullptr);
  CHECK(graph.FindNode("a2") == nullptr);
  CHECK(InputNode(graph, "r2", 0)->name() == "a1");
  CHECK(IsAcyclic(graph));
  CHECK_FALSE(EliminateCommonSubexpressions(&graph));  // nothing left to merge
}

TEST_CASE("CSE matches a commutative op's inputs in either order, and no other op's") {
  Graph graph;
  Import(Arg("x", 0) + Arg("y", 1) + Op("Mul", "m1", {"x", "y"}) + Op("Mul", "m2", {"y", "x"}) +
             Op("Add", "s1", {"x", "y"}) + Op("Add", "s2", {"y", "x"}) + Retval("r1", "m1", 0) +
             Retval("r2", "m2", 1) + Retval("r3", "s1", 2) + Retval("r4", "s2", 3),
         &graph);
  REQUIRE(EliminateCommonSubexpressions(&graph));
  CHECK(graph.FindNode("m2") == nullptr);  // Mul is commutative
  CHECK(InputNode(graph, "r2", 0)->name() == "m1");
  CHECK(graph.FindNode("s1") != nullptr);  // Add is not (it concatenates strings)
  CHECK(graph.FindNode("s2") != nullptr);
}

TEST_CASE("CSE never merges stateful ops, placeholders or call arguments") {
  Graph graph;
  Import(Untyped("OptimizerTestRandom", "rand1", {}) + Untyped("OptimizerTestRandom", "rand2", {}) +
             "node { name: 'p1' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
             "node { name: 'p2' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n" +
             Arg("x", 0) + Untyped("OptimizerTestStatefulNeg", "n1", {"x"}) +
             Untyped("OptimizerTestStatefulNeg", "n2", {"x"}) + Retval("r1", "rand1", 0) +
             Retval("r2", "rand2", 1) + Retval("r3", "p1", 2) + Retval("r4", "p2", 3) + Retval("r5", "n1", 4) +
             Retval("r6", "n2", 5),
         &graph);
  int before = graph.num_op_nodes();
  CHECK_FALSE(EliminateCommonSubexpressions(&graph));
  CHECK(graph.num_op_nodes() == before);
}

TEST_CASE("CSE never merges nodes reading a reference, which may see different values") {
  Graph graph;
  Import(Untyped("OptimizerTestVariable", "v", {}) + Untyped("OptimizerTestReadRef", "read1", {"v"}) +
             Untyped("OptimizerTestReadRef", "read2", {"v"}) + Op("Identity", "id1", {"v"}) +
             Op("Identity", "id2", {"v"}) + Retval("r1", "read1", 0) + Retval("r2", "read2", 1) +
             Retval("r3", "id1", 2) + Retval("r4", "id2", 3),
         &graph);
  CHECK_FALSE(EliminateCommonSubexpressions(&graph));
  CHECK(graph.FindNode("read2") != nullptr);
  CHECK(graph.FindNode("id2") != nullptr);  // a value input fed by a ref output reads it too
}

TEST_CASE("CSE does not merge nodes whose attrs or devices differ") {
  Graph graph;
  Import(Arg("x", 0) + Arg("y", 1) + Op("MatMul", "mm1", {"x", "y"}) +
             Op("MatMul", "mm2", {"x", "y"}, "attr { key: 'transpose_a' value { b: true } }") +
             Op("Add", "a1", {"x", "y"}, "device: '/device:CPU:0'") +
             Op("Add", "a2", {"x", "y"}, "device: '/device:CPU:1'") + Const("c1", 1) + Const("c2", 2) +
             Retval("r1", "mm1", 0) + Retval("r2", "mm2", 1) + Retval("r3", "a1", 2) + Retval("r4", "a2", 3) +
             Retval("r5", "c1", 4) + Retval("r6", "c2", 5),
         &graph);
  CHECK_FALSE(EliminateCommonSubexpressions(&graph));
  CHECK(graph.num_op_nodes() == 14);
}

TEST_CASE("CSE merges Consts of equal value, which is most of what folding leaves behind") {
  Graph graph;
  Import(Const("c1", 3) + Const("c2", 3) + Retval("r1", "c1", 0) + Retval("r2", "c2", 1), &graph);
  REQUIRE(EliminateCommonSubexpressions(&graph));
  CHECK(InputNode(graph, "r2", 0)->name() == "c1");
}

TEST_CASE("CSE needs the same control inputs, in any order, and moves control consumers too") {
  Graph graph;
  Import(Arg("x", 0) + Arg("y", 1) + Op("Identity", "i1", {"x"}) + Op("Identity", "i2", {"y"}) +
             Op("Add", "a1", {"x", "y", "^i1", "^i2"}) + Op("Add", "a2", {"x", "y", "^i2", "^i1"}) +
             Op("Add", "a3", {"x", "y", "^i1"}) + Untyped("NoOp", "after_a2", {"^a2"}) + Retval("r1", "a1", 0) +
             Retval("r2", "a2", 1) + Retval("r3", "a3", 2),
         &graph);
  REQUIRE(EliminateCommonSubexpressions(&graph));
  CHECK(graph.FindNode("a2") == nullptr);
  CHECK(graph.FindNode("a3") != nullptr);  // orders after i1 only: another computation
  CHECK(InputNode(graph, "r2", 0)->name() == "a1");
  CHECK(HasControlEdge(graph.FindNode("a1"), graph.FindNode("after_a2")));
  CHECK(IsAcyclic(graph));
}

TEST_CASE("CSE collapses duplicated chains in one pass") {
  Graph graph;
  Import(Arg("x", 0) + Arg("y", 1) + Op("Add", "a1", {"x", "y"}) + Op("Mul", "b1", {"a1", "x"}) +
             Op("Add", "a2", {"x", "y"}) + Op("Mul", "b2", {"x", "a2"}) + Retval("r1", "b1", 0) +
             Retval("r2", "b2", 1),
         &graph);
  REQUIRE(EliminateCommonSubexpressions(&graph));
  CHECK(graph.FindNode("a2") == nullptr);
  CHECK(graph.FindNode("b2") == nullptr);
  CHECK(InputNode(graph, "r2", 0)->name() == "b1");
  CHECK(graph.num_op_nodes() == 6);
}

// ---- constant folding --------------------------------------------------------------------

TEST_CASE("folding replaces a subgraph of constants with one Const on the folded node's device") {
  Graph graph;
  const std::string device = "/job:localhost/replica:0/task:0/device:CPU:0";
  Import(Const("c1", 1) + Const("c2", 2) + Const("c3", 4) + Op("Add", "s", {"c1", "c2"}) +
             Op("Mul", "m", {"s", "c3"}, "device: '" + device + "'") + Retval("r", "m", 0),
         &graph);
  REQUIRE(Fold(&graph));
  const Node* folded = InputNode(graph, "r", 0);
  CHECK(ConstValue(folded) == std::vector<float>{12});
  CHECK(folded->name().rfind("m/_", 0) == 0);  // "<node>/_<k>__cf__<n>", as TensorFlow names it
  CHECK(folded->name().find("__cf__") != std::string::npos);
  CHECK(folded->requested_device() == device);
  CHECK(folded->output_shape(0).DebugString() == "[]");  // shape inference ran on it
  CHECK(HasControlEdge(graph.source_node(), folded));
  for (const char* gone : {"c1", "c2", "c3", "s", "m"}) CHECK(graph.FindNode(gone) == nullptr);
  CHECK(graph.num_op_nodes() == 2);
  CHECK(IsAcyclic(graph));
  CHECK_FALSE(Fold(&graph));  // a Const is not folded again
}

TEST_CASE("folding leaves what depends on an _Arg, and folds the constant part feeding it") {
  Graph graph;
  Import(Arg("x", 0) + Const("c1", 2) + Const("c2", 5) + Op("Mul", "k", {"c1", "c2"}) +
             Op("Add", "a", {"x", "k"}) + Retval("r", "a", 0),
         &graph);
  FakeEvaluator evaluator;
  REQUIRE(ConstantFold(ConstantFoldingOptions(), evaluator, &graph));
  CHECK(evaluator.evaluated == std::vector<std::string>{"k"});
  CHECK(graph.FindNode("a") != nullptr);
  CHECK(InputNode(graph, "a", 0)->name() == "x");
  CHECK(ConstValue(InputNode(graph, "a", 1)) == std::vector<float>{10});
  CHECK(graph.FindNode("k") == nullptr);
}

TEST_CASE("an output larger than max_constant_size_in_bytes stays computed at run time") {
  FakeEvaluator evaluator;
  ConstantFoldingOptions options;
  options.max_constant_size_in_bytes = 15;  // 4 floats are 16 bytes
  SECTION("a size shape inference knows: not even evaluated") {
    Graph graph;
    Import(ConstTensor("c", {1, 2, 3, 4}, {4}) + Op("Add", "a", {"c", "c"}) + Retval("r", "a", 0), &graph);
    CHECK_FALSE(ConstantFold(options, evaluator, &graph));
    CHECK(evaluator.evaluated.empty());
    CHECK(InputNode(graph, "r", 0)->name() == "a");
    CHECK(graph.FindNode("c") != nullptr);
    options.max_constant_size_in_bytes = 16;
    REQUIRE(ConstantFold(options, evaluator, &graph));
    CHECK(ConstValue(InputNode(graph, "r", 0)) == std::vector<float>{2, 4, 6, 8});
  }
  SECTION("a size known only from the value: evaluated, then not made a Const") {
    Graph graph;
    Import(ConstTensor("c", {1, 2, 3, 4}, {4}) + Untyped("OptimizerTestDouble", "d", {"c"}) + Retval("r", "d", 0),
           &graph);
    CHECK_FALSE(ConstantFold(options, evaluator, &graph));
    CHECK(evaluator.evaluated == std::vector<std::string>{"d"});
    CHECK(InputNode(graph, "r", 0)->name() == "d");
    options.max_constant_size_in_bytes = 16;
    REQUIRE(ConstantFold(options, evaluator, &graph));
    CHECK(ConstValue(InputNode(graph, "r", 0)) == std::vector<float>{2, 4, 6, 8});
  }
}

TEST_CASE("a folded value keeps the control dependencies of everything it was computed from") {
  Graph graph;
  // s: a Const ordered after `gate` feeds it; m: ordered after `gate` itself; t: no order.
  Import(Arg("x", 0) + Op("Identity", "gate", {"x"}) + Const("c1", 1, "input: '^gate'") + Const("c2", 2) +
             Op("Add", "s", {"c1", "c2"}) + Op("Mul", "m", {"c2", "c2", "^gate"}) + Op("Add", "t", {"c2", "c2"}) +
             Retval("r1", "s", 0) + Retval("r2", "m", 1) + Retval("r3", "t", 2) + Retval("r4", "gate", 3),
         &graph);
  REQUIRE(Fold(&graph));
  const Node* gate = graph.FindNode("gate");
  const Node* s = InputNode(graph, "r1", 0);
  const Node* m = InputNode(graph, "r2", 0);
  const Node* t = InputNode(graph, "r3", 0);
  CHECK(ConstValue(s) == std::vector<float>{3});
  CHECK(ConstValue(m) == std::vector<float>{4});
  CHECK(ConstValue(t) == std::vector<float>{4});
  CHECK(HasControlEdge(gate, s));
  CHECK(HasControlEdge(gate, m));
  CHECK_FALSE(HasControlEdge(gate, t));
  CHECK(HasControlEdge(graph.source_node(), t));
  CHECK(graph.FindNode("c1") == nullptr);
  CHECK(IsAcyclic(graph));
}

TEST_CASE("a node the evaluator fails on is left to run, and the rest still folds") {
  Graph graph;
  Import(Const("c1", 1) + Const("c2", 2) + ConstTensor("m", {1, 2, 3, 4}, {2, 2}) + Op("MatMul", "mm", {"m", "m"}) +
             Op("Add", "s", {"c1", "c2"}) + Retval("r1", "mm", 0) + Retval("r2", "s", 1),
         &graph);
  REQUIRE(Fold(&graph));
  CHECK(InputNode(graph, "r1", 0)->name() == "mm");
  CHECK(InputNode(graph, "mm", 0)->name() == "m");
  CHECK(ConstValue(InputNode(graph, "r2", 0)) == std::vector<float>{3});
}

TEST_CASE("folding never evaluates stateful ops, placeholders or call arguments") {
  Graph graph;
  Import(Const("c", 1) + Untyped("OptimizerTestStatefulNeg", "neg", {"c"}) + Untyped("OptimizerTestRandom", "rand", {}) +
             "node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n" + Arg("x", 0) +
             Retval("r1", "neg", 0) + Retval("r2", "rand", 1) + Retval("r3", "p", 2) + Retval("r4", "x", 3),
         &graph);
  FakeEvaluator evaluator;
  CHECK_FALSE(ConstantFold(ConstantFoldingOptions(), evaluator, &graph));
  CHECK(evaluator.evaluated.empty());
}

TEST_CASE("the consider function keeps nodes it rejects from being folded") {
  Graph graph;
  Import(Const("c", 1) + Op("Add", "keep", {"c", "c"}) + Op("Add", "fold", {"c", "c"}) + Retval("r1", "keep", 0) +
             Retval("r2", "fold", 1),
         &graph);
  FakeEvaluator evaluator;
  ConstantFoldingOptions options;
  options.consider = [](const Node* n) { return n->name() != "keep"; };
  REQUIRE(ConstantFold(options, evaluator, &graph));
  CHECK(InputNode(graph, "r1", 0)->name() == "keep");
  CHECK(ConstValue(InputNode(graph, "r2", 0)) == std::vector<float>{2});
}

// ---- OptimizeGraph -----------------------------------------------------------------------

// x+y twice, and c1+c2 and c2+c1: CSE has a pair to merge, folding a pair to fold, and
// once both are folded CSE can merge the two equal Consts.
const std::string& MixedGraph() {
  static const std::string text = Arg("x", 0) + Arg("y", 1) + Op("Add", "a1", {"x", "y"}) +
                                  Op("Add", "a2", {"x", "y"}) + Const("c1", 1) + Const("c2", 2) +
                                  Op("Add", "s1", {"c1", "c2"}) + Op("Add", "s2", {"c2", "c1"}) +
                                  Retval("r1", "a1", 0) + Retval("r2", "a2", 1) + Retval("r3", "s1", 2) +
                                  Retval("r4", "s2", 3);
  return text;
}

TEST_CASE("OptimizeGraph folds and merges until nothing changes") {
  Graph graph;
  Import(MixedGraph(), &graph);
  FakeEvaluator evaluator;
  REQUIRE(OptimizeGraph(GraphOptimizerOptions(), &evaluator, &graph).ok());
  CHECK(InputNode(graph, "r2", 0)->name() == "a1");
  const Node* folded = InputNode(graph, "r3", 0);
  CHECK(ConstValue(folded) == std::vector<float>{3});
  CHECK(InputNode(graph, "r4", 0) == folded);  // the two folded values were merged
  CHECK(graph.num_op_nodes() == 8);        // x, y, a1, one Const, four _Retvals
  CHECK(IsAcyclic(graph));
}

TEST_CASE("each optimizer option switches its pass off") {
  FakeEvaluator evaluator;
  SECTION("all off: the graph is left as written") {
    Graph graph;
    Import(MixedGraph(), &graph);
    tf::GraphDef before, after;
    graph.ToGraphDef(&before);
    REQUIRE(OptimizeGraph(GraphOptimizerOptions::AllOff(), &evaluator, &graph).ok());
    graph.ToGraphDef(&after);
    CHECK(google::protobuf::util::MessageDifferencer::Equals(before, after));
  }
  SECTION("no CSE: folds, merges nothing") {
    Graph graph;
    Import(MixedGraph(), &graph);
    GraphOptimizerOptions options;
    options.do_common_subexpression_elimination = false;
    REQUIRE(OptimizeGraph(options, &evaluator, &graph).ok());
    CHECK(InputNode(graph, "r2", 0)->name() == "a2");
    CHECK(ConstValue(InputNode(graph, "r3", 0)) == std::vector<float>{3});
    CHECK(InputNode(graph, "r4", 0) != InputNode(graph, "r3", 0));
  }
  SECTION("no folding: merges, folds nothing") {
    Graph graph;
    Import(MixedGraph(), &graph);
    GraphOptimizerOptions options;
    options.do_constant_folding = false;
    REQUIRE(OptimizeGraph(options, &evaluator, &graph).ok());
    CHECK(InputNode(graph, "r2", 0)->name() == "a1");
    CHECK(InputNode(graph, "r3", 0)->name() == "s1");
    CHECK(InputNode(graph, "r4", 0)->name() == "s2");
    CHECK(evaluator.evaluated.empty());
  }
  SECTION("no evaluator: no folding whatever the options say") {
    Graph graph;
    Import(MixedGraph(), &graph);
    REQUIRE(OptimizeGraph(GraphOptimizerOptions(), nullptr, &graph).ok());
    CHECK(InputNode(graph, "r3", 0)->name() == "s1");
    CHECK(InputNode(graph, "r2", 0)->name() == "a1");
  }
}

TEST_CASE("OptimizeGraph rejects a negative constant size limit") {
  Graph graph;
  GraphOptimizerOptions options;
  options.max_constant_size_in_bytes = -1;
  Status s = OptimizeGraph(options, nullptr, &graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Matchers::Contains("max_constant_size_in_bytes"));
}

// ---- constant weights ---------------------------------------------------------------------

TEST_CASE("MarkConstantWeights marks float products by a Const, not by a fed or computed right-hand side") {
  Graph graph;
  testing::BuildPlaced(
      [](const Scope& root) {
        auto x = ops::Placeholder(root.WithOpName("x"), testing::kFloat);
        auto w = ops::Const(root.WithOpName("w"), {{1.f, 2.f}, {3.f, 4.f}});
        ops::MatMul(root.WithOpName("by_const"), x, w);
        ops::MatMul(root.WithOpName("by_fed"), w, x);
        ops::MatMul(root.WithOpName("by_computed"), x, ops::Neg(root, w));
        auto xd = ops::Placeholder(root.WithOpName("xd"), tensorflow::DT_DOUBLE);
        ops::MatMul(root.WithOpName("double"), xd, ops::Const(root, {{1.0, 2.0}, {3.0, 4.0}}));
      },
      &graph);
  CHECK(MarkConstantWeights(&graph) == 1);
  auto marked = [&](const char* name) {
    const Node* n = graph.FindNode(name);
    REQUIRE(n != nullptr);
    return AttrIsTrue(n->def(), kConstantWeightsAttr);
  };
  CHECK(marked("by_const"));
  CHECK_FALSE(marked("by_fed"));
  CHECK_FALSE(marked("by_computed"));
  CHECK_FALSE(marked("double"));
}

}  // namespace
}  // namespace tensoract
