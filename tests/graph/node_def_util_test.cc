// A NodeDef checked against its OpDef: defaults, validation, input/output types, typed attr
// access and tensor names.
//
// This is the gate a GraphDef from outside passes before anything runs it, so each way a
// node can be wrong is pinned with an error that names the node and the attr at fault.
#include <catch2/catch.hpp>
#include <string>

#include "base/proto_io.h"
#include "base/status.h"
#include "graph/node_def_util.h"
#include "graph/op_def_builder.h"
#include "graph/op_registry.h"

#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using Catch::Matchers::Contains;
namespace tf = ::tensorflow;


const tf::OpDef& RegisteredOp(const std::string& name) {
  auto op = OpRegistry::Global()->LookUp(name);
  INFO(op.status());
  REQUIRE(op.ok());
  return **op;
}

// A MatMul node as TensorFlow writes it, before defaults.
NodeDef MatMulNode() {
  return testing::FromText<NodeDef>(R"pb(
    name: "mm" op: "MatMul" input: "x" input: "w"
    attr { key: "T" value { type: DT_FLOAT } }
  )pb");
}

// Validates after adding defaults, as Graph::AddNode does.
Status Validate(NodeDef node, const tf::OpDef& op) {
  AddDefaultsToNodeDef(op, &node);
  return ValidateNodeDef(node, op);
}

// An op using every way an arg gets its types.
tf::OpDef FancyOp() {
  tf::OpDef op;
  Status s = OpDefBuilder("Fancy")
                 .Input("a: Ref(T)")
                 .Input("bs: N * T")
                 .Input("cs: Tin")
                 .Input("d: int64")
                 .Output("out: T")
                 .Output("outs: N * int32")
                 .Attr("T: type")
                 .Attr("N: int >= 0")
                 .Attr("Tin: list(type)")
                 .Finalize(&op);
  REQUIRE(s.ok());
  return op;
}

TEST_CASE("defaults are added for every attr the node leaves out, and only those") {
  const tf::OpDef& matmul = RegisteredOp("MatMul");
  NodeDef node = MatMulNode();
  (*node.mutable_attr())["transpose_a"].set_b(true);
  AddDefaultsToNodeDef(matmul, &node);
  CHECK(node.attr().at("transpose_a").b());  // kept
  REQUIRE(node.attr().count("transpose_b"));
  CHECK(node.attr().at("transpose_b").value_case() == AttrValue::kB);
  CHECK_FALSE(node.attr().at("transpose_b").b());
  CHECK(node.attr().count("grad_a"));
  CHECK(node.attr().at("T").type() == tf::DT_FLOAT);
  CHECK(node.attr_size() == 5);

  NodeDef placeholder = testing::FromText<NodeDef>(R"pb(name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } })pb");
  AddDefaultsToNodeDef(RegisteredOp("Placeholder"), &placeholder);
  REQUIRE(placeholder.attr().count("shape"));
  CHECK(placeholder.attr().at("shape").shape().unknown_rank());
}

TEST_CASE("a MatMul node as TensorFlow writes it validates") {
  CHECK(Validate(MatMulNode(), RegisteredOp("MatMul")).ok());
}

TEST_CASE("attrs starting with an underscore belong to the runtime and are not checked") {
  NodeDef node = MatMulNode();
  (*node.mutable_attr())["_class"].mutable_list()->add_s("loc:@w");
  (*node.mutable_attr())["_output_shapes"].mutable_list();
  CHECK(Validate(node, RegisteredOp("MatMul")).ok());
}

TEST_CASE("a node missing an attr without default is an InvalidArgument naming node and attr") {
  NodeDef node = MatMulNode();
  node.mutable_attr()->erase("T");
  Status s = Validate(node, RegisteredOp("MatMul"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("'T'") && Contains("missing"));
}

TEST_CASE("a node with an attr its op does not declare is an InvalidArgument naming node and attr") {
  NodeDef node = MatMulNode();
  (*node.mutable_attr())["adjoint_a"].set_b(true);
  Status s = Validate(node, RegisteredOp("MatMul"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("'adjoint_a'"));
}

TEST_CASE("an attr of the wrong type is an InvalidArgument naming node, attr and both types") {
  NodeDef node = MatMulNode();
  (*node.mutable_attr())["T"].set_i(1);
  Status s = Validate(node, RegisteredOp("MatMul"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("'T'") && Contains("int") && Contains("type"));

  NodeDef bool_as_list = MatMulNode();
  (*bool_as_list.mutable_attr())["transpose_a"].mutable_list()->add_b(true);
  s = Validate(bool_as_list, RegisteredOp("MatMul"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("'transpose_a'") && Contains("list(bool)"));
}

TEST_CASE("an attr with no value set is an InvalidArgument naming node and attr") {
  NodeDef node = MatMulNode();
  (*node.mutable_attr())["T"].Clear();  // present, but nothing in it
  Status s = Validate(node, RegisteredOp("MatMul"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("'T'"));
}

TEST_CASE("a type the op does not allow is an InvalidArgument naming node, attr, type and the allowed ones") {
  NodeDef node = MatMulNode();
  (*node.mutable_attr())["T"].set_type(tf::DT_BOOL);
  Status s = Validate(node, RegisteredOp("MatMul"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("'T'") && Contains("bool") && Contains("float"));
}

TEST_CASE("a dtype that is not TensorFlow's is an InvalidArgument naming node, attr and the number") {
  NodeDef node = testing::FromText<NodeDef>(R"pb(
    name: "c" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  )pb");
  (*node.mutable_attr())["dtype"].set_type(static_cast<tf::DataType>(9799));
  Status s = Validate(node, RegisteredOp("Placeholder"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'c'") && Contains("'dtype'") && Contains("dtype 9799"));
  tf::OpDef fancy = FancyOp();
  NodeDef f = testing::FromText<NodeDef>(R"pb(
    name: "f" op: "Fancy" input: "a" input: "b" input: "c" input: "d"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "N" value { i: 1 } }
    attr { key: "Tin" value { list { type: DT_INT32 } } }
  )pb");
  (*f.mutable_attr())["Tin"].mutable_list()->add_type(static_cast<tf::DataType>(-3));
  s = Validate(f, fancy);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'Tin'") && Contains("dtype -3"));
}

TEST_CASE("a string the op does not allow is an InvalidArgument naming it") {
  tf::OpDef conv;
  REQUIRE(OpDefBuilder("Pad").Attr("padding: {'SAME', 'VALID'}").Finalize(&conv).ok());
  NodeDef node = testing::FromText<NodeDef>(R"pb(name: "p" op: "Pad" attr { key: "padding" value { s: "FULL" } })pb");
  Status s = Validate(node, conv);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'p'") && Contains("'padding'") && Contains("FULL") && Contains("SAME"));
}

TEST_CASE("an int or list below its minimum is an InvalidArgument naming node and attr") {
  NodeDef arg = testing::FromText<NodeDef>(R"pb(
    name: "arg" op: "_Arg"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "index" value { i: -1 } }
  )pb");
  Status s = Validate(arg, RegisteredOp("_Arg"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'arg'") && Contains("'index'") && Contains("minimum"));

  tf::OpDef pool;
  REQUIRE(OpDefBuilder("Pool").Attr("ksize: list(int) >= 4").Finalize(&pool).ok());
  NodeDef short_list = testing::FromText<NodeDef>(R"pb(name: "pool" op: "Pool" attr { key: "ksize" value { list { i: 1 i: 2 } } })pb");
  s = Validate(short_list, pool);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'pool'") && Contains("'ksize'") && Contains("4"));
}

TEST_CASE("a node with the wrong number of inputs is an InvalidArgument naming node and counts") {
  NodeDef node = MatMulNode();
  node.mutable_input()->RemoveLast();
  Status s = Validate(node, RegisteredOp("MatMul"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("1") && Contains("2"));

  NodeDef extra = MatMulNode();
  extra.add_input("z");
  s = Validate(extra, RegisteredOp("MatMul"));
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("3"));
}

TEST_CASE("control inputs do not count as inputs but must come after the data inputs") {
  NodeDef node = MatMulNode();
  node.add_input("^init");
  CHECK(Validate(node, RegisteredOp("MatMul")).ok());

  NodeDef misplaced = MatMulNode();
  misplaced.clear_input();
  misplaced.add_input("x");
  misplaced.add_input("^init");
  misplaced.add_input("w");
  Status s = Validate(misplaced, RegisteredOp("MatMul"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("'w'"));
}

TEST_CASE("a node validated against another op is an error naming the node and both ops") {
  NodeDef node = MatMulNode();
  Status s = Validate(node, RegisteredOp("Add"));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'mm'") && Contains("Add"));
  CHECK_THAT(s.message(), Contains("MatMul"));
}

TEST_CASE("input and output types resolve through type attrs") {
  NodeDef node = MatMulNode();
  AddDefaultsToNodeDef(RegisteredOp("MatMul"), &node);
  DataTypeVector in, out;
  REQUIRE(InOutTypesForNode(node, RegisteredOp("MatMul"), &in, &out).ok());
  CHECK(in == DataTypeVector{tf::DT_FLOAT, tf::DT_FLOAT});
  CHECK(out == DataTypeVector{tf::DT_FLOAT});
}

TEST_CASE("input and output types resolve through Ref(T), N * T, list(type) and fixed types") {
  NodeDef node = testing::FromText<NodeDef>(R"pb(
    name: "f" op: "Fancy"
    attr { key: "T" value { type: DT_DOUBLE } }
    attr { key: "N" value { i: 2 } }
    attr { key: "Tin" value { list { type: DT_FLOAT type: DT_STRING } } }
  )pb");
  DataTypeVector in, out;
  Status s = InOutTypesForNode(node, FancyOp(), &in, &out);
  INFO(s);
  REQUIRE(s.ok());
  CHECK(in == DataTypeVector{tf::DT_DOUBLE_REF, tf::DT_DOUBLE, tf::DT_DOUBLE, tf::DT_FLOAT, tf::DT_STRING,
                             tf::DT_INT64});
  CHECK(out == DataTypeVector{tf::DT_DOUBLE, tf::DT_INT32, tf::DT_INT32});

  NodeDef none = node;
  (*none.mutable_attr())["N"].set_i(0);
  (*none.mutable_attr())["Tin"].mutable_list()->Clear();
  REQUIRE(InOutTypesForNode(none, FancyOp(), &in, &out).ok());
  CHECK(in == DataTypeVector{tf::DT_DOUBLE_REF, tf::DT_INT64});
  CHECK(out == DataTypeVector{tf::DT_DOUBLE});
}

TEST_CASE("types of a node missing its count attr, or with a negative count, are an error naming both") {
  NodeDef node = testing::FromText<NodeDef>(R"pb(
    name: "f" op: "Fancy"
    attr { key: "T" value { type: DT_DOUBLE } }
    attr { key: "Tin" value { list { } } }
  )pb");
  DataTypeVector in, out;
  Status s = InOutTypesForNode(node, FancyOp(), &in, &out);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Contains("'f'") && Contains("'N'"));

  (*node.mutable_attr())["N"].set_i(-1);
  s = InOutTypesForNode(node, FancyOp(), &in, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'f'") && Contains("'N'"));
}

TEST_CASE("typed attr access returns the value, NotFound when missing, InvalidArgument when of another type") {
  NodeDef node = testing::FromText<NodeDef>(R"pb(
    name: "n" op: "Any"
    attr { key: "b" value { b: true } }
    attr { key: "i" value { i: 7 } }
    attr { key: "f" value { f: 0.5 } }
    attr { key: "s" value { s: "SAME" } }
    attr { key: "t" value { type: DT_HALF } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } }
    attr { key: "ints" value { list { i: 1 i: 2 } } }
    attr { key: "types" value { list { type: DT_INT8 } } }
    attr { key: "strings" value { list { s: "a" s: "b" } } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 3 } } }
  )pb");
  bool b = false;
  int64_t i64 = 0;
  int32_t i32 = 0;
  float f = 0;
  std::string s;
  DataType t = tf::DT_INVALID;
  PartialTensorShape shape;
  std::vector<int64_t> ints;
  DataTypeVector types;
  std::vector<std::string> strings;
  const tf::TensorProto* value = nullptr;
  REQUIRE(GetNodeAttr(node, "b", &b).ok());
  REQUIRE(GetNodeAttr(node, "i", &i64).ok());
  REQUIRE(GetNodeAttr(node, "i", &i32).ok());
  REQUIRE(GetNodeAttr(node, "f", &f).ok());
  REQUIRE(GetNodeAttr(node, "s", &s).ok());
  REQUIRE(GetNodeAttr(node, "t", &t).ok());
  REQUIRE(GetNodeAttr(node, "shape", &shape).ok());
  REQUIRE(GetNodeAttr(node, "ints", &ints).ok());
  REQUIRE(GetNodeAttr(node, "types", &types).ok());
  REQUIRE(GetNodeAttr(node, "strings", &strings).ok());
  REQUIRE(GetNodeAttr(node, "value", &value).ok());
  CHECK(b);
  CHECK(i64 == 7);
  CHECK(i32 == 7);
  CHECK(f == 0.5f);
  CHECK(s == "SAME");
  CHECK(t == tf::DT_HALF);
  CHECK(shape.DebugString() == "[?,3]");
  CHECK(ints == std::vector<int64_t>{1, 2});
  CHECK(types == DataTypeVector{tf::DT_INT8});
  CHECK(strings == std::vector<std::string>{"a", "b"});
  REQUIRE(value != nullptr);
  CHECK(value->float_val(0) == 3.0f);

  Status missing = GetNodeAttr(node, "nope", &b);
  CHECK(missing.code() == error::NOT_FOUND);
  CHECK_THAT(missing.message(), Contains("'n'") && Contains("'nope'"));
  Status wrong = GetNodeAttr(node, "i", &t);
  CHECK(wrong.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(wrong.message(), Contains("'n'") && Contains("'i'") && Contains("int") && Contains("type"));
}

TEST_CASE("AttrValueTypeName names each kind of value") {
  AttrValue v;
  CHECK(AttrValueTypeName(v).empty());
  v.set_s("x");
  CHECK(AttrValueTypeName(v) == "string");
  v.set_type(tf::DT_FLOAT);
  CHECK(AttrValueTypeName(v) == "type");
  v.mutable_shape();
  CHECK(AttrValueTypeName(v) == "shape");
  v.mutable_list()->add_type(tf::DT_FLOAT);
  CHECK(AttrValueTypeName(v) == "list(type)");
  v.mutable_list()->Clear();
  CHECK(AttrValueTypeName(v) == "list");
  v.mutable_func()->set_name("f");
  CHECK(AttrValueTypeName(v) == "func");
}

TEST_CASE("tensor names parse into node and port: 'a', 'a:1', '^a'") {
  TensorId id;
  REQUIRE(ParseTensorName("a", &id).ok());
  CHECK(id.node == "a");
  CHECK(id.index == 0);
  CHECK_FALSE(id.IsControl());
  CHECK(id.ToString() == "a");

  REQUIRE(ParseTensorName("a:1", &id).ok());
  CHECK(id.node == "a");
  CHECK(id.index == 1);
  CHECK(id.ToString() == "a:1");

  REQUIRE(ParseTensorName("layer/dense/MatMul:12", &id).ok());
  CHECK(id.node == "layer/dense/MatMul");
  CHECK(id.index == 12);

  REQUIRE(ParseTensorName("a:0", &id).ok());
  CHECK(id.ToString() == "a");

  REQUIRE(ParseTensorName("^a", &id).ok());
  CHECK(id.node == "a");
  CHECK(id.IsControl());
  CHECK(id.ToString() == "^a");
}

TEST_CASE("a tensor name with a port that is not a number, or with no node, is an InvalidArgument naming it") {
  for (const char* bad : {"a:x", "a:", "a:-1", "a:1x", "", ":1", "^"}) {
    INFO("'" << bad << "'");
    TensorId id;
    Status s = ParseTensorName(bad, &id);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("'" + std::string(bad) + "'"));
  }
}

}  // namespace
}  // namespace tensoract
