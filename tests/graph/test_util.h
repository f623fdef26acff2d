// Helpers shared by the graph-layer tests (and the actors' tests of loops).
#ifndef TENSORACT_TESTS_GRAPH_TEST_UTIL_H_
#define TENSORACT_TESTS_GRAPH_TEST_UTIL_H_

#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/proto_io.h"
#include "graph/graph.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace testing {

// The message of type M written as `text` (pbtxt); fails the test if it does not parse.
template <class M>
M FromText(const std::string& text) {
  M message;
  Status s = ParseTextProto(text, &message);
  INFO(s);
  REQUIRE(s.ok());
  return message;
}

// The next values of a counted loop's variables from theirs.
using CountedBody = std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>;

// The exits of while (in[0] < n) in = body(in), from `init` (in[0] an int32 counter that the
// body advances), built in `root` as loop `name`.
inline std::vector<Output> CountedLoop(const Scope& root, const Output& n, const std::vector<Output>& init,
                                       const CountedBody& body, const std::string& name = "while",
                                       int64_t parallel_iterations = 10) {
  std::vector<Output> out;
  ops::WhileLoopOptions options;
  options.name = name;
  options.parallel_iterations = parallel_iterations;
  Status s = ops::WhileLoop(
      root, init,
      [&](const Scope& sc, const std::vector<Output>& in, Output* pred) {
        *pred = ops::Less(sc, in[0], n);
        return sc.status();
      },
      [&](const Scope& sc, const std::vector<Output>& in, std::vector<Output>* next) {
        *next = body(sc, in);
        return sc.status();
      },
      &out, options);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return out;
}

// while (i < n) i += 1 from 0, built in `root` as loop `name`; returns the Exit (the
// number of iterations).
inline Output Counter(const Scope& root, const Output& n, const std::string& name = "while",
                      int64_t parallel_iterations = 10) {
  return CountedLoop(
      root, n, {ops::Const(root, 0)},
      [](const Scope& sc, const std::vector<Output>& v) { return std::vector<Output>{ops::Add(sc, v[0], 1)}; }, name,
      parallel_iterations)[0];
}

// The CPU device i of the local task, and its first two, as the placer and partitioner name them.
inline std::string Cpu(int i) { return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i); }
inline const std::string kCpu0 = Cpu(0);
inline const std::string kCpu1 = Cpu(1);
// float, the type most tests build with.
inline constexpr DataType kFloat = tensorflow::DT_FLOAT;
// A scalar's shape.
inline const PartialTensorShape kScalar(std::vector<int64_t>{});

// The graph `build` makes on a root scope placed on `device`, with every node placed there
// that the builder left unplaced (the placer's part), imported into `graph`.
inline void BuildPlaced(const std::function<void(const Scope&)>& build, Graph* graph,
                        const std::string& device = Cpu(0)) {
  Scope root = Scope::NewRootScope().WithDevice(device);
  build(root);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  Status s = ImportGraphDef(def, graph);
  INFO(s.ToString());
  REQUIRE(s.ok());
  for (Node* node : graph->op_nodes()) {
    if (node->def().device().empty()) node->mutable_def()->set_device(device);
  }
}

// Imports the GraphDef written as `text` into `graph`; fails the test if it does not.
inline void Import(const std::string& text, Graph* graph) {
  Status s = ImportGraphDef(FromText<tensorflow::GraphDef>(text), graph);
  INFO(s);
  REQUIRE(s.ok());
}

// The shape `y` was inferred to have, as text ("[2,?]"); fails the test if building failed.
inline std::string ShapeOf(const Scope& root, const Output& y) {
  INFO(root.status().ToString());
  REQUIRE(root.status().ok());
  return y.node->output_shape(y.index).DebugString();
}
// The shape inferred for output `output` of `node`, as text.
inline std::string ShapeOf(const Graph& graph, const std::string& node, int output = 0) {
  const Node* n = graph.FindNode(node);
  REQUIRE(n != nullptr);
  return n->output_shape(output).DebugString();
}
// A partial shape, and the same as text.
inline PartialTensorShape Shape(std::vector<int64_t> dims) { return PartialTensorShape(std::move(dims)); }
inline std::string ShapeText(std::vector<int64_t> dims) { return PartialTensorShape(std::move(dims)).DebugString(); }

// A node's inputs as its NodeDef names them.
inline std::vector<std::string> Inputs(const Node* n) {
  return std::vector<std::string>(n->def().input().begin(), n->def().input().end());
}

// Whether `dst` waits for `src` by a control edge.
inline bool HasControlEdge(const Node* src, const Node* dst) {
  for (const Edge* e : dst->in_edges()) {
    if (e->IsControlEdge() && e->src == src) return true;
  }
  return false;
}

// The shape `build` gives its result in a fresh graph, or the error it is refused with.
inline std::string Inferred(const std::function<Output(const Scope&)>& build) {
  Scope root = Scope::NewRootScope();
  Output out = build(root);
  if (!root.ok()) return "refused: " + root.status().ToString();
  return out.shape().DebugString();
}
// A placeholder of `shape` and type `t`.
inline Output P(const Scope& s, PartialTensorShape shape, DataType t = tensorflow::DT_FLOAT) {
  return ops::Placeholder(s, t, shape);
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_GRAPH_TEST_UTIL_H_
