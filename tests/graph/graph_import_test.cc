// ImportGraphDef turns a GraphDef into a Graph, or says precisely why it cannot; ToGraphDef
// writes it back.
//
// GraphDefs come from TensorFlow, from files and from clients, so every way one can be
// broken (unknown op, dangling input, bad port, mistyped edge, duplicate name, cycle) is
// pinned with an error naming the nodes involved.
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "base/proto_io.h"
#include "base/status.h"
#include "graph/graph.h"
#include "graph/op_def_builder.h"
#include "graph/op_registry.h"

#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::HasControlEdge;

using Catch::Matchers::Contains;
using google::protobuf::util::MessageDifferencer;
namespace tf = ::tensorflow;


// x (Placeholder) and w (Const) into a MatMul, then an Identity that also waits on w.
const char* const kMatMulGraph = R"pb(
  node {
    name: "x" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
  }
  node {
    name: "w" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } dim { size: 2 } }
          float_val: 1 float_val: 2 float_val: 3 float_val: 4
        }
      }
    }
  }
  node {
    name: "mm" op: "MatMul" input: "x" input: "w"
    device: "/job:localhost/replica:0/task:0/device:CPU:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "out" op: "Identity" input: "mm" input: "^w"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  versions { producer: 27 min_consumer: 12 }
)pb";

// The import's error, required to exist.
Status ImportError(const std::string& text) {
  Graph graph;
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(text), &graph);
  REQUIRE_FALSE(s.ok());
  return s;
}


TEST_CASE("a well-formed GraphDef imports with its nodes, types, edges and versions") {
  Graph graph;
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(kMatMulGraph), &graph);
  INFO(s);
  REQUIRE(s.ok());
  CHECK(graph.num_op_nodes() == 4);
  CHECK(graph.versions().producer() == 27);
  CHECK(graph.versions().min_consumer() == 12);

  Node* x = graph.FindNode("x");
  Node* w = graph.FindNode("w");
  Node* mm = graph.FindNode("mm");
  Node* out = graph.FindNode("out");
  REQUIRE(x);
  REQUIRE(w);
  REQUIRE(mm);
  REQUIRE(out);
  CHECK(graph.FindNode("nope") == nullptr);

  CHECK(mm->type_string() == "MatMul");
  CHECK(mm->requested_device() == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(mm->input_types() == DataTypeVector{tf::DT_FLOAT, tf::DT_FLOAT});
  CHECK(mm->output_types() == DataTypeVector{tf::DT_FLOAT});
  CHECK(mm->def().attr().count("transpose_a"));  // defaults were filled in
  CHECK(x->num_inputs() == 0);
  CHECK(x->num_outputs() == 1);

  REQUIRE(mm->input_edge(0) != nullptr);
  CHECK(mm->input_edge(0)->src == x);
  CHECK(mm->input_edge(0)->src_output == 0);
  REQUIRE(mm->input_edge(1) != nullptr);
  CHECK(mm->input_edge(1)->src == w);
  CHECK(out->input_edge(0)->src == mm);
  CHECK(HasControlEdge(w, out));

  // One entry and one exit: Source before the nodes without inputs, Sink after the ones
  // without outputs.
  CHECK(HasControlEdge(graph.source_node(), x));
  CHECK(HasControlEdge(graph.source_node(), w));
  CHECK_FALSE(HasControlEdge(graph.source_node(), mm));
  CHECK(HasControlEdge(out, graph.sink_node()));
  CHECK_FALSE(HasControlEdge(mm, graph.sink_node()));
}

TEST_CASE("the topological order puts every node after its data and control inputs") {
  Graph graph;
  REQUIRE(ImportGraphDef(testing::FromText<tf::GraphDef>(kMatMulGraph), &graph).ok());
  std::vector<Node*> order;
  REQUIRE(TopologicalOrder(graph, &order).ok());
  CHECK(order.size() == graph.nodes().size());
  auto position = [&](const Node* n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  for (Node* n : graph.nodes()) {
    for (const Edge* e : n->in_edges()) {
      INFO(e->src->name() << " -> " << n->name());
      CHECK(position(e->src) < position(n));
    }
  }
}

TEST_CASE("a node of an unregistered op is NotFound naming the node and the op") {
  Status s = ImportError(R"pb(node { name: "mystery" op: "FrobnicateV7" })pb");
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Contains("'mystery'") && Contains("FrobnicateV7"));
}

TEST_CASE("a node that does not validate is an error naming the node and the attr") {
  Status s = ImportError(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "mm" op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_BOOL } } }
  )pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("'T'"));
}

TEST_CASE("a node input naming a missing node is an InvalidArgument naming both") {
  Status s = ImportError(R"pb(
    node { name: "b" op: "Identity" input: "ghost" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'b'") && Contains("'ghost'"));
}

TEST_CASE("inputs may name nodes that come later in the GraphDef") {
  Graph graph;
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(R"pb(
    node { name: "b" op: "Identity" input: "a" input: "^c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "c" op: "NoOp" }
  )pb"), &graph);
  INFO(s);
  REQUIRE(s.ok());
  CHECK(graph.FindNode("b")->input_edge(0)->src == graph.FindNode("a"));
}

TEST_CASE("the implicit Source and Sink nodes cannot be named as inputs") {
  Status source = ImportError(R"pb(
    node { name: "n" op: "Identity" input: "_SOURCE" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  CHECK(source.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(source.message(), Contains("'n'") && Contains("_SOURCE"));
  Status sink = ImportError(R"pb(node { name: "n" op: "NoOp" input: "^_SINK" })pb");
  CHECK(sink.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(sink.message(), Contains("'n'") && Contains("_SINK"));
}

TEST_CASE("a control input naming a missing node is an InvalidArgument naming both") {
  Status s = ImportError(R"pb(
    node { name: "a" op: "NoOp" input: "^ghost" }
  )pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'a'") && Contains("ghost"));
}

TEST_CASE("an input port past the producer's outputs is an InvalidArgument naming both nodes and the port") {
  Status s = ImportError(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "b" op: "Identity" input: "a:3" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'b'") && Contains("'a:3'") && Contains("1 output"));
}

TEST_CASE("an input that is not a tensor name is an InvalidArgument naming the node") {
  Status s = ImportError(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "b" op: "Identity" input: "a:out" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'b'") && Contains("a:out"));
}

TEST_CASE("a producer's dtype that differs from its consumer's is an InvalidArgument naming both and both types") {
  Status s = ImportError(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'b'") && Contains("'a'") && Contains("int32") && Contains("float"));
}

TEST_CASE("two nodes with one name are an InvalidArgument naming it") {
  Status s = ImportError(R"pb(
    node { name: "a" op: "NoOp" }
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  )pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'a'"));
}

TEST_CASE("a node without a name is an InvalidArgument naming its op") {
  Status s = ImportError(R"pb(node { op: "NoOp" })pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("NoOp"));
}

TEST_CASE("a cycle of data edges is an InvalidArgument naming the nodes on it") {
  Status s = ImportError(R"pb(
    node { name: "start" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "a" op: "Add" input: "start" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("cycle") && Contains("'a'") && Contains("'b'"));
  CHECK_THAT(s.message(), !Contains("'start'"));
}

TEST_CASE("a node that is its own input, or a cycle of control edges, is reported too") {
  Status self = ImportError(R"pb(
    node { name: "loop" op: "Identity" input: "loop" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  CHECK_THAT(self.message(), Contains("cycle") && Contains("'loop'"));
  Status control = ImportError(R"pb(
    node { name: "p" op: "NoOp" input: "^q" }
    node { name: "q" op: "NoOp" input: "^p" }
  )pb");
  CHECK_THAT(control.message(), Contains("cycle") && Contains("'p'") && Contains("'q'"));
}

TEST_CASE("importing into a graph that already has nodes is refused") {
  Graph graph;
  REQUIRE(ImportGraphDef(testing::FromText<tf::GraphDef>(kMatMulGraph), &graph).ok());
  Status again = ImportGraphDef(testing::FromText<tf::GraphDef>(kMatMulGraph), &graph);
  CHECK_FALSE(again.ok());
  CHECK(graph.num_op_nodes() == 4);
}

TEST_CASE("an exported graph is the imported GraphDef with attr defaults, and re-imports to the same") {
  tf::GraphDef original = testing::FromText<tf::GraphDef>(kMatMulGraph);
  Graph graph;
  REQUIRE(ImportGraphDef(original, &graph).ok());
  tf::GraphDef exported;
  graph.ToGraphDef(&exported);

  tf::GraphDef with_defaults = original;
  for (NodeDef& node : *with_defaults.mutable_node()) {
    AddDefaultsToNodeDef(**OpRegistry::Global()->LookUp(node.op()), &node);
  }
  INFO("exported:\n" << exported.DebugString());
  CHECK(MessageDifferencer::Equals(with_defaults, exported));

  Graph again;
  REQUIRE(ImportGraphDef(exported, &again).ok());
  tf::GraphDef exported_again;
  again.ToGraphDef(&exported_again);
  CHECK(MessageDifferencer::Equals(exported, exported_again));
}

TEST_CASE("an exported graph writes data inputs by index, then control inputs, in canonical form") {
  Graph graph;
  REQUIRE(ImportGraphDef(testing::FromText<tf::GraphDef>(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "init" op: "NoOp" }
    node { name: "first" op: "NoOp" }
    node { name: "sum" op: "Add" input: "a:0" input: "a" input: "^init" input: "^first" input: "^init"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb"), &graph).ok());
  tf::GraphDef exported;
  graph.ToGraphDef(&exported);
  REQUIRE(exported.node_size() == 4);
  const NodeDef& sum = exported.node(3);
  CHECK(std::vector<std::string>(sum.input().begin(), sum.input().end()) ==
        std::vector<std::string>{"a", "a", "^init", "^first"});
}

TEST_CASE("a reference output may feed a value input, but a value may not feed a reference input") {
  OpRegistry registry;
  registry.Register(OpDefBuilder("VariableV2")
                        .Output("ref: Ref(dtype)")
                        .Attr("shape: shape")
                        .Attr("dtype: type")
                        .Attr("container: string = ''")
                        .Attr("shared_name: string = ''")
                        .SetIsStateful());
  registry.Register(OpDefBuilder("Identity").Input("input: T").Output("output: T").Attr("T: type"));
  registry.Register(OpDefBuilder("Assign")
                        .Input("ref: Ref(T)")
                        .Input("value: T")
                        .Output("output_ref: Ref(T)")
                        .Attr("T: type")
                        .SetAllowsUninitializedInput());
  const char* variable = R"pb(
    node { name: "v" op: "VariableV2"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } } } } }
  )pb";

  Graph reads(&registry);
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(std::string(variable) + R"pb(
    node { name: "read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "assign" op: "Assign" input: "v" input: "read" attr { key: "T" value { type: DT_FLOAT } } }
  )pb"), &reads);
  INFO(s);
  CHECK(s.ok());
  if (s.ok()) {
    CHECK(reads.FindNode("v")->output_type(0) == tf::DT_FLOAT_REF);
    CHECK(reads.FindNode("assign")->input_type(0) == tf::DT_FLOAT_REF);
    CHECK(reads.FindNode("read")->input_type(0) == tf::DT_FLOAT);
  }

  Graph writes(&registry);
  Status bad = ImportGraphDef(testing::FromText<tf::GraphDef>(std::string(variable) + R"pb(
    node { name: "read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "assign" op: "Assign" input: "read" input: "read" attr { key: "T" value { type: DT_FLOAT } } }
  )pb"), &writes);
  CHECK(bad.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad.message(), Contains("'assign'") && Contains("float_ref"));
}

TEST_CASE("a graph built on a registry only knows that registry's ops") {
  OpRegistry empty;
  Graph graph(&empty);
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(R"pb(node { name: "n" op: "NoOp" })pb"), &graph);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Contains("'n'") && Contains("NoOp"));
}

TEST_CASE("removing a node removes its edges and frees its name, never its id") {
  Graph graph;
  REQUIRE(ImportGraphDef(testing::FromText<tf::GraphDef>(kMatMulGraph), &graph).ok());
  Node* mm = graph.FindNode("mm");
  int id = mm->id();
  int ids = graph.num_node_ids();
  graph.RemoveNode(mm);
  CHECK(graph.FindNode("mm") == nullptr);
  CHECK(graph.FindNodeId(id) == nullptr);
  CHECK(graph.num_op_nodes() == 3);
  CHECK(graph.num_node_ids() == ids);
  CHECK(graph.FindNode("out")->input_edge(0) == nullptr);
  for (const Edge* e : graph.FindNode("x")->out_edges()) CHECK(e->dst->name() != "mm");
}

}  // namespace
}  // namespace tensoract
