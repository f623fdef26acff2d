// Variables, as TensorFlow 1.x graphs hold them: reference variables (VariableV2, Assign,
// AssignAdd, IsVariableInitialized) and resource variables (VarHandleOp, ReadVariableOp,
// AssignVariableOp, ...). Their graphs import with TensorFlow's shapes and TensorFlow's
// runtime attrs (_class, _output_shapes) intact, and the shape mistakes TensorFlow refuses
// when building them are refused here too.
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::ShapeOf;

namespace tf = ::tensorflow;
using Catch::Matchers::Contains;
using google::protobuf::util::MessageDifferencer;

// Written by TensorFlow 2.21 with as_graph_def(add_shapes=True) from:
//   x = tf1.placeholder(tf.float32, shape=[None, 2], name="x")
//   v = tf1.Variable(tf.zeros([2, 3]), name="v", use_resource=False)
//   y = tf.matmul(x, v, name="y")
//   inc = tf1.assign_add(v, tf.ones([2, 3]), name="inc")
//   init = tf1.is_variable_initialized(v)
//   r = tf1.Variable(tf.ones([3]), name="r", use_resource=True)
//   ry = tf.add(y, r, name="ry")
const char* const kTensorFlowVariablesGraph = R"pb(
    node { name: "x" op: "Placeholder" attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim
      { size: 2 } } } } } attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim
      { size: -1 } dim { size: 2 } } } } }
    node { name: "zeros" op: "Const" attr { key: "_output_shapes" value { list { shape { dim { size: 2 } dim {
      size: 3 } } } } } attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 0.0 } } } }
    node { name: "v" op: "VariableV2" attr { key: "_output_shapes" value { list { shape { dim { size: 2 } dim {
      size: 3 } } } } } attr { key: "container" value { s: "" } } attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } attr { key: "shared_name" value
      { s: "" } } }
    node { name: "v/Assign" op: "Assign" input: "v" input: "zeros" attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "_class" value { list { s: "loc:@v" } } } attr { key: "_output_shapes" value { list { shape {
      dim { size: 2 } dim { size: 3 } } } } } attr { key: "use_locking" value { b: true } } attr { key:
      "validate_shape" value { b: true } } }
    node { name: "v/read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } attr { key:
      "_class" value { list { s: "loc:@v" } } } attr { key: "_output_shapes" value { list { shape { dim { size:
      2 } dim { size: 3 } } } } } }
    node { name: "y" op: "MatMul" input: "x" input: "v/read" attr { key: "T" value { type: DT_FLOAT } } attr {
      key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: 3 } } } } } attr { key: "grad_a"
      value { b: false } } attr { key: "grad_b" value { b: false } } attr { key: "transpose_a" value { b: false
      } } attr { key: "transpose_b" value { b: false } } }
    node { name: "ones" op: "Const" attr { key: "_output_shapes" value { list { shape { dim { size: 2 } dim {
      size: 3 } } } } } attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 1.0 } } } }
    node { name: "inc" op: "AssignAdd" input: "v" input: "ones" attr { key: "T" value { type: DT_FLOAT } } attr
      { key: "_class" value { list { s: "loc:@v" } } } attr { key: "_output_shapes" value { list { shape { dim {
      size: 2 } dim { size: 3 } } } } } attr { key: "use_locking" value { b: false } } }
    node { name: "IsVariableInitialized" op: "IsVariableInitialized" input: "v" attr { key: "_class" value {
      list { s: "loc:@v" } } } attr { key: "_output_shapes" value { list { shape { } } } } attr { key: "dtype"
      value { type: DT_FLOAT } } }
    node { name: "ones_1" op: "Const" attr { key: "_output_shapes" value { list { shape { dim { size: 3 } } } }
      } attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT
      tensor_shape { dim { size: 3 } } float_val: 1.0 } } } }
    node { name: "r" op: "VarHandleOp" attr { key: "_class" value { list { s: "loc:@r" } } } attr { key:
      "_output_shapes" value { list { shape { } } } } attr { key: "allowed_devices" value { list { } } } attr {
      key: "container" value { s: "" } } attr { key: "debug_name" value { s: "r/" } } attr { key: "dtype" value
      { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } attr { key: "shared_name"
      value { s: "r" } } }
    node { name: "r/IsInitialized/VarIsInitializedOp" op: "VarIsInitializedOp" input: "r" attr { key:
      "_output_shapes" value { list { shape { } } } } }
    node { name: "r/Assign" op: "AssignVariableOp" input: "r" input: "ones_1" attr { key: "dtype" value { type:
      DT_FLOAT } } attr { key: "validate_shape" value { b: false } } }
    node { name: "r/Read/ReadVariableOp" op: "ReadVariableOp" input: "r" attr { key: "_output_shapes" value {
      list { shape { dim { size: 3 } } } } } attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "ry/ReadVariableOp" op: "ReadVariableOp" input: "r" attr { key: "_output_shapes" value { list {
      shape { dim { size: 3 } } } } } attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "ry" op: "AddV2" input: "y" input: "ry/ReadVariableOp" attr { key: "T" value { type: DT_FLOAT }
      } attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: 3 } } } } } }
    versions { producer: 2474 }
)pb";

Status ImportStatus(const std::string& text, Graph* graph) {
  return ImportGraphDef(testing::FromText<tf::GraphDef>(text), graph);
}


TEST_CASE("a TensorFlow 1.x graph with both kinds of variables imports with the shapes TensorFlow inferred") {
  const tf::GraphDef def = testing::FromText<tf::GraphDef>(kTensorFlowVariablesGraph);
  Graph graph;
  Status s = ImportGraphDef(def, &graph);
  INFO(s);
  REQUIRE(s.ok());
  // TensorFlow wrote its own inference into _output_shapes: ours must agree on every output.
  int compared = 0;
  for (const tf::NodeDef& node : def.node()) {
    INFO("node " << node.name());
    const Node* n = graph.FindNode(node.name());
    REQUIRE(n != nullptr);
    std::vector<PartialTensorShape> theirs;  // TensorFlow leaves the attr out where there are no outputs
    if (node.attr().count("_output_shapes")) REQUIRE(GetNodeAttr(node, "_output_shapes", &theirs).ok());
    REQUIRE(static_cast<int>(theirs.size()) == n->num_outputs());
    for (int i = 0; i < n->num_outputs(); ++i, ++compared) {
      CHECK(n->output_shape(i).DebugString() == theirs[i].DebugString());
    }
  }
  CHECK(compared >= 15);
  CHECK(graph.FindNode("v")->output_type(0) == tf::DT_FLOAT_REF);
  CHECK(ShapeOf(graph, "y") == "[?,3]");
  CHECK(ShapeOf(graph, "r/Read/ReadVariableOp") == "[3]");  // from the handle's variable
}

TEST_CASE("TensorFlow's _class and _output_shapes attrs survive import and export unchanged") {
  const tf::GraphDef def = testing::FromText<tf::GraphDef>(kTensorFlowVariablesGraph);
  Graph graph;
  REQUIRE(ImportGraphDef(def, &graph).ok());
  const Node* assign = graph.FindNode("v/Assign");
  std::vector<std::string> groups;
  REQUIRE(GetNodeAttr(assign->def(), "_class", &groups).ok());
  CHECK(groups == std::vector<std::string>{"loc:@v"});
  tf::GraphDef exported;
  graph.ToGraphDef(&exported);
  std::string diff;
  MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  INFO(diff);
  CHECK(differ.Compare(def, exported));
}

const char* const kRefVariableText = R"pb(
  node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } } }
  node { name: "any" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

std::string RefOp(const std::string& op, const std::string& name, const std::string& value,
                  const std::string& extra = "") {
  return StrCat("node { name: '", name, "' op: '", op, "' input: 'v' input: '", value,
                "' attr { key: 'T' value { type: DT_FLOAT } } ", extra, " }\n");
}

TEST_CASE("Assign needs a value of the variable's shape unless validate_shape is false") {
  Graph ok;
  Status s = ImportStatus(std::string(kRefVariableText) + RefOp("Assign", "fits", "any") +
                        RefOp("Assign", "reshape", "p", "attr { key: 'validate_shape' value { b: false } }") +
                        RefOp("AssignAdd", "add", "any") + RefOp("AssignSub", "sub", "any") +
                        "node { name: 'init' op: 'IsVariableInitialized' input: 'v' "
                        "attr { key: 'dtype' value { type: DT_FLOAT } } }",
                    &ok);
  INFO(s);
  REQUIRE(s.ok());
  CHECK(ShapeOf(ok, "fits") == "[2,3]");
  CHECK(ShapeOf(ok, "reshape") == "[3,2]");  // the variable takes the value's shape
  CHECK(ShapeOf(ok, "add") == "[2,3]");
  CHECK(ShapeOf(ok, "init") == "[]");

  for (const char* op : {"Assign", "AssignAdd", "AssignSub"}) {
    INFO(op);
    Graph bad;
    Status refused = ImportStatus(std::string(kRefVariableText) + RefOp(op, "update", "p"), &bad);
    CHECK(refused.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(refused.message(), Contains("'update'") && Contains(op) && Contains("[2,3]") && Contains("[3,2]"));
  }
}

TEST_CASE("the legacy Variable op reads a scalar shape as unknown; VariableV2 as a scalar") {
  Graph graph;
  REQUIRE(ImportStatus(R"pb(
    node { name: "old" op: "Variable" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape {} } } }
    node { name: "new" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape {} } } }
    node { name: "old_matrix" op: "Variable" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 4 } dim { size: -1 } } } } }
  )pb", &graph).ok());
  CHECK(ShapeOf(graph, "old") == "<unknown>");
  CHECK(ShapeOf(graph, "new") == "[]");
  CHECK(ShapeOf(graph, "old_matrix") == "[4,?]");
}

const char* const kResourceVariable = R"pb(
  node { name: "h" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } }
         attr { key: "shared_name" value { s: "h" } } }
  node { name: "h_again" op: "Identity" input: "h" attr { key: "T" value { type: DT_RESOURCE } } }
  node { name: "fed" op: "_Arg" attr { key: "T" value { type: DT_RESOURCE } } attr { key: "index" value { i: 0 } } }
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } } }
  node { name: "any" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

std::string ResourceOp(const std::string& op, const std::string& name, const std::string& handle,
                       const std::string& value = "", const std::string& dtype = "DT_FLOAT") {
  return StrCat("node { name: '", name, "' op: '", op, "' input: '", handle, "' ",
                value.empty() ? "" : StrCat("input: '", value, "' "), "attr { key: 'dtype' value { type: ", dtype,
                " } } }\n");
}

TEST_CASE("a resource handle carries its variable's shape to reads, through Identity too") {
  Graph graph;
  Status s = ImportStatus(std::string(kResourceVariable) + ResourceOp("ReadVariableOp", "read", "h") +
                        ResourceOp("ReadVariableOp", "read_again", "h_again") +
                        ResourceOp("ReadVariableOp", "read_fed", "fed") +
                        ResourceOp("AssignVariableOp", "assign", "h", "any") +
                        ResourceOp("AssignAddVariableOp", "add", "h_again", "any") +
                        ResourceOp("AssignVariableOp", "assign_fed", "fed", "p") +
                        "node { name: 'init' op: 'VarIsInitializedOp' input: 'h' }\n"
                        "node { name: 'destroy' op: 'DestroyResourceOp' input: 'h' }\n",
                    &graph);
  INFO(s);
  REQUIRE(s.ok());
  CHECK(ShapeOf(graph, "h") == "[]");  // the handle itself is a scalar
  REQUIRE(graph.FindNode("h")->output_handle_data(0) != nullptr);
  CHECK(graph.FindNode("h")->output_handle_data(0)->dtype == tf::DT_FLOAT);
  CHECK(ShapeOf(graph, "read") == "[2,3]");
  CHECK(ShapeOf(graph, "read_again") == "[2,3]");
  CHECK(ShapeOf(graph, "read_fed") == "<unknown>");  // nothing is known of a fed handle
  CHECK(ShapeOf(graph, "init") == "[]");
  CHECK(graph.FindNode("destroy")->num_outputs() == 0);
}

TEST_CASE("assigning a value of another shape to a resource variable is refused, whatever validate_shape says") {
  for (const char* op : {"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"}) {
    INFO(op);
    Graph graph;
    Status s = ImportStatus(std::string(kResourceVariable) + ResourceOp(op, "update", "h_again", "p"), &graph);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("'update'") && Contains(op) && Contains("[2,3]") && Contains("[3,2]"));
  }
}

TEST_CASE("reading a resource variable as another dtype is refused, naming both dtypes") {
  Graph graph;
  Status s = ImportStatus(std::string(kResourceVariable) + ResourceOp("ReadVariableOp", "read", "h", "", "DT_INT32"), &graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'read'") && Contains("float") && Contains("int32"));
}

}  // namespace
}  // namespace tensoract
