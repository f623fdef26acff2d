// Constant folding with the real CPU kernels (kernels/constant_evaluator.h): the values
// the folded Consts hold are the ones the kernels would compute at run time, and a node
// the kernels cannot compute is left in the graph rather than failing it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "graph/graph.h"
#include "graph/optimizer/graph_optimizer.h"
#include "graph/subgraph.h"
#include "kernels/constant_evaluator.h"
#include "kernels/tensor.h"

namespace tensoract {
namespace {

namespace tf = ::tensorflow;

// The node feeding the _Retval of fetch `index`.
const Node* Fetched(const Graph& graph, int index) {
  for (Node* n : graph.op_nodes()) {
    int64_t i = -1;
    if (n->type_string() == "_Retval" && GetNodeAttr(n->def(), "index", &i).ok() && i == index) {
      REQUIRE(n->input_edge(0) != nullptr);
      return n->input_edge(0)->src;
    }
  }
  FAIL("no _Retval with index " << index);
  return nullptr;
}

// A Const node's value as floats, with its shape.
std::vector<float> ConstFloats(const Node* n, TensorShape* shape) {
  REQUIRE(n->type_string() == "Const");
  const tf::TensorProto* proto = nullptr;
  REQUIRE(GetNodeAttr(n->def(), "value", &proto).ok());
  StatusOr<Tensor> t = Tensor::FromProto(*proto);
  INFO(t.status());
  REQUIRE(t.ok());
  *shape = t->shape();
  return std::vector<float>(t->base<float>(), t->base<float>() + t->NumElements());
}

TEST_CASE("Add, Mul and MatMul of constants fold to the values the CPU kernels compute") {
  // y = x . (w^T . v) + (2 * 3 + 1), fetching y, w^T . v and the scalar.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto w = ops::Const(root.WithOpName("w"), {{1.f, 2.f}, {3.f, 4.f}});
  auto v = ops::Const(root.WithOpName("v"), {{0.f, 1.f}, {1.f, 0.f}});
  auto wv = ops::MatMul(root.WithOpName("wv"), w, v, {/*transpose_a=*/true, /*transpose_b=*/false});
  auto b = ops::Add(root.WithOpName("b"), ops::Mul(root.WithOpName("six"), 2.f, 3.f), 1.f);
  auto y = ops::Add(root.WithOpName("y"), ops::MatMul(root.WithOpName("xw"), x, wv), b);
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());

  Graph graph;
  REQUIRE(ImportGraphDef(def, &graph).ok());
  CallSignature sig;
  sig.feeds = {"x"};
  sig.fetches = {"y", "wv", "b"};
  REQUIRE(RewriteForCall(&graph, &sig).ok());
  PruneForTargets(&graph, sig.targets);
  Status s = OptimizeGraph(GraphOptimizerOptions(), CpuConstantEvaluator(), &graph);
  INFO(s);
  REQUIRE(s.ok());

  TensorShape shape;
  const Node* folded_wv = Fetched(graph, 1);
  CHECK(ConstFloats(folded_wv, &shape) == std::vector<float>{3, 1, 4, 2});  // [[1,3],[2,4]] . [[0,1],[1,0]]
  CHECK(shape == TensorShape({2, 2}));
  CHECK(folded_wv->name().find("wv/_") == 0);
  const Node* folded_b = Fetched(graph, 2);
  CHECK(ConstFloats(folded_b, &shape) == std::vector<float>{7});
  CHECK(shape.dims() == 0);

  // What depends on the feed is still computed, from the folded values.
  const Node* y_node = Fetched(graph, 0);
  CHECK(y_node->name() == "y");
  const Node* xw = y_node->input_edge(0)->src;
  CHECK(xw->type_string() == "MatMul");
  CHECK(xw->input_edge(0)->src->type_string() == "_Arg");
  CHECK(xw->input_edge(1)->src == folded_wv);  // one Const serves the fetch and the MatMul
  CHECK(y_node->input_edge(1)->src == folded_b);
  for (const char* gone : {"w", "v", "wv", "six", "b"}) CHECK(graph.FindNode(gone) == nullptr);
  std::vector<Node*> order;
  CHECK(TopologicalOrder(graph, &order).ok());
}

TEST_CASE("with constant folding off the constant subgraph stays") {
  Scope root = Scope::NewRootScope();
  ops::Add(root.WithOpName("s"), 1.f, 2.f);
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  Graph graph;
  REQUIRE(ImportGraphDef(def, &graph).ok());
  CallSignature sig;
  sig.fetches = {"s"};
  REQUIRE(RewriteForCall(&graph, &sig).ok());
  GraphOptimizerOptions options;
  options.do_constant_folding = false;
  REQUIRE(OptimizeGraph(options, CpuConstantEvaluator(), &graph).ok());
  CHECK(Fetched(graph, 0)->name() == "s");
  REQUIRE(OptimizeGraph(GraphOptimizerOptions(), CpuConstantEvaluator(), &graph).ok());
  TensorShape shape;
  CHECK(ConstFloats(Fetched(graph, 0), &shape) == std::vector<float>{3});
}

// ---- the evaluator on its own ------------------------------------------------------------

tf::TensorProto Proto(const Tensor& t) {
  tf::TensorProto p;
  t.AsProtoField(&p);
  return p;
}

const tf::OpDef& OpDefOf(const std::string& op) {
  auto looked_up = OpRegistry::Global()->LookUp(op);
  REQUIRE(looked_up.ok());
  return **looked_up;
}

// A node "n" of `op` with T = `type` and the op's defaults, as Graph::AddNode leaves it.
NodeDef FoldBinary(const std::string& op, DataType type) {
  NodeDef def;
  def.set_name("n");
  def.set_op(op);
  (*def.mutable_attr())["T"].set_type(type);
  AddDefaultsToNodeDef(OpDefOf(op), &def);
  return def;
}

TEST_CASE("the CPU evaluator runs a kernel and writes its outputs as TensorProtos") {
  NodeDef def = FoldBinary("Mul", tf::DT_INT32);
  tf::TensorProto a = Proto(Tensor::FromVector<int32_t>({1, 2, 3}));
  tf::TensorProto b = Proto(Tensor::Scalar<int32_t>(10));
  std::vector<tf::TensorProto> out;
  Status s = CpuConstantEvaluator()->Evaluate(def, OpDefOf("Mul"), {&a, &b}, &out);
  INFO(s);
  REQUIRE(s.ok());
  REQUIRE(out.size() == 1);
  StatusOr<Tensor> t = Tensor::FromProto(out[0]);
  REQUIRE(t.ok());
  REQUIRE(t->dtype() == tf::DT_INT32);
  CHECK(std::vector<int32_t>(t->base<int32_t>(), t->base<int32_t>() + 3) == std::vector<int32_t>{10, 20, 30});
}

TEST_CASE("the CPU evaluator flushes denormals as the executor's kernels do", "[fidelity]") {
  // 1e-40 * 1: a denormal the executor's kernels read as 0 (flush-to-zero and
  // denormals-are-zero, as TensorFlow's); folding must give the fed graph's value.
  NodeDef def = FoldBinary("Mul", tf::DT_FLOAT);
  tf::TensorProto a = Proto(Tensor::FromVector<float>({1e-40f, -3e-39f, 1.5f}));
  tf::TensorProto b = Proto(Tensor::Scalar<float>(1.f));
  std::vector<tf::TensorProto> out;
  REQUIRE(CpuConstantEvaluator()->Evaluate(def, OpDefOf("Mul"), {&a, &b}, &out).ok());
  StatusOr<Tensor> t = Tensor::FromProto(out[0]);
  REQUIRE(t.ok());
  CHECK(std::vector<float>(t->base<float>(), t->base<float>() + 3) == std::vector<float>{0.f, 0.f, 1.5f});
}

TEST_CASE("the CPU evaluator reports, and does not crash on, kernels it cannot run") {
  std::vector<tf::TensorProto> out;
  SECTION("no CPU kernel for the dtype") {
    NodeDef def = FoldBinary("MatMul", tf::DT_UINT8);  // the op allows uint8; no CPU kernel computes it
    tf::TensorProto m = Proto(Tensor::FromVector<uint8_t>({1, 2, 3, 4}, TensorShape({2, 2})));
    Status s = CpuConstantEvaluator()->Evaluate(def, OpDefOf("MatMul"), {&m, &m}, &out);
    CHECK(s.code() == error::NOT_FOUND);
  }
  SECTION("the kernel fails on its inputs") {
    NodeDef def = FoldBinary("MatMul", tf::DT_FLOAT);
    tf::TensorProto a = Proto(Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})));
    Status s = CpuConstantEvaluator()->Evaluate(def, OpDefOf("MatMul"), {&a, &a}, &out);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Matchers::Contains("constant folding node 'n'"));
  }
  SECTION("an input of the wrong dtype") {
    NodeDef def = FoldBinary("Add", tf::DT_FLOAT);
    tf::TensorProto i = Proto(Tensor::Scalar<int32_t>(1));
    Status s = CpuConstantEvaluator()->Evaluate(def, OpDefOf("Add"), {&i, &i}, &out);
    CHECK(s.code() == error::INVALID_ARGUMENT);
  }
}

}  // namespace
}  // namespace tensoract
