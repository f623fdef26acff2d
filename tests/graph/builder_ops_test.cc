// The builder beyond naming: every op's ops:: function writes the NodeDef TensorFlow's C++
// API would, shapes are inferred (and mistakes refused) as nodes are added, and a scope's
// control dependencies and colocation compose as TensorFlow's do.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "graph/common_shape_fns.h"
#include "graph/graph.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Inputs;

namespace tf = ::tensorflow;
using Catch::Matchers::Contains;


std::vector<std::string> ColocationGroups(const Node* n) {
  std::vector<std::string> groups;
  if (n->def().attr().count(kColocationAttrName)) REQUIRE(GetNodeAttr(n->def(), kColocationAttrName, &groups).ok());
  return groups;
}

template <class T>
T Attr(const Node* n, const std::string& name) {
  T value{};
  Status s = GetNodeAttr(n->def(), name, &value);
  INFO(n->name() << "." << name << ": " << s);
  REQUIRE(s.ok());
  return value;
}

TEST_CASE("a reference variable built with ops:: is a VariableV2 named Variable, assigned and updated in place") {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root, PartialTensorShape({2, 3}), tf::DT_FLOAT);
  auto init = ops::Assign(root, v, ops::Const(root, {{0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}}));
  auto add = ops::AssignAdd(root, v, {{1.f, 1.f, 1.f}, {1.f, 1.f, 1.f}});
  auto sub = ops::AssignSub(root, v, {{1.f, 1.f, 1.f}, {1.f, 1.f, 1.f}}, {/*use_locking=*/true});
  auto reshape = ops::Assign(root, v, {1.f, 2.f}, {/*validate_shape=*/false});
  auto ready = ops::IsVariableInitialized(root, v);
  auto legacy = ops::VariableV1(root, PartialTensorShape(std::vector<int64_t>{}), tf::DT_INT32, {"c", "shared"});
  INFO(root.status());
  REQUIRE(root.ok());
  CHECK(v.node->name() == "Variable");
  CHECK(v.node->type_string() == "VariableV2");
  CHECK(v.type() == tf::DT_FLOAT_REF);
  CHECK(v.shape().DebugString() == "[2,3]");
  CHECK(init.node->name() == "Assign");
  CHECK(init.type() == tf::DT_FLOAT_REF);
  CHECK(Attr<bool>(init.node, "validate_shape"));
  CHECK(Attr<bool>(init.node, "use_locking"));
  CHECK(init.shape().DebugString() == "[2,3]");
  CHECK_FALSE(Attr<bool>(add.node, "use_locking"));
  CHECK(Attr<bool>(sub.node, "use_locking"));
  CHECK(add.shape().DebugString() == "[2,3]");
  CHECK(reshape.shape().DebugString() == "[2]");
  CHECK(ready.shape().DebugString() == "[]");
  CHECK(ready.type() == tf::DT_BOOL);
  CHECK(legacy.node->type_string() == "Variable");
  CHECK(Attr<std::string>(legacy.node, "container") == "c");
  CHECK(Attr<std::string>(legacy.node, "shared_name") == "shared");
  CHECK(legacy.shape().unknown_rank());  // the legacy op's scalar shape means unknown
}

TEST_CASE("a resource variable built with ops:: carries its shape to its reads and checks its assigns") {
  Scope root = Scope::NewRootScope();
  auto h = ops::VarHandleOp(root.WithOpName("w"), tf::DT_FLOAT, PartialTensorShape({2}),
                            {"", "w", "dense/w", {"/device:CPU:0"}});
  auto read = ops::ReadVariableOp(root, h, tf::DT_FLOAT);
  Node* assign = ops::AssignVariableOp(root, h, {1.f, 2.f});
  Node* add = ops::AssignAddVariableOp(root, ops::Identity(root, h), {1.f, 2.f});
  Node* sub = ops::AssignSubVariableOp(root, h, {1.f, 2.f});
  auto ready = ops::VarIsInitializedOp(root, h);
  Node* destroy = ops::DestroyResourceOp(root, h);
  INFO(root.status());
  REQUIRE(root.ok());
  CHECK(h.type() == tf::DT_RESOURCE);
  CHECK(h.shape().DebugString() == "[]");
  CHECK(Attr<std::string>(h.node, "debug_name") == "dense/w");
  CHECK(Attr<std::vector<std::string>>(h.node, "allowed_devices") == std::vector<std::string>{"/device:CPU:0"});
  CHECK(read.node->name() == "ReadVariableOp");
  CHECK(read.shape().DebugString() == "[2]");
  REQUIRE(assign != nullptr);
  CHECK(assign->name() == "AssignVariableOp");
  CHECK_FALSE(Attr<bool>(assign, "validate_shape"));
  CHECK(Attr<DataType>(assign, "dtype") == tf::DT_FLOAT);
  CHECK(add != nullptr);
  CHECK(sub != nullptr);
  CHECK(ready.shape().DebugString() == "[]");
  CHECK(Attr<bool>(destroy, "ignore_lookup_error"));

  ops::AssignVariableOp(root.WithOpName("wrong"), h, {1.f, 2.f, 3.f});
  CHECK(root.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(root.status().message(), Contains("'wrong'") && Contains("[2]") && Contains("[3]"));
}

TEST_CASE("the call-frame ops build too: Arg and Retval make _Arg and _Retval") {
  Scope root = Scope::NewRootScope();
  auto arg = ops::Arg(root, tf::DT_FLOAT, 0);
  Node* ret = ops::Retval(root, ops::Identity(root, arg), 0);
  REQUIRE(root.ok());
  CHECK(arg.node->type_string() == "_Arg");
  CHECK(arg.node->name() == "_Arg");
  CHECK(Attr<int64_t>(arg.node, "index") == 0);
  CHECK(ret->type_string() == "_Retval");
  CHECK(ret->num_outputs() == 0);
}

TEST_CASE("shapes are inferred as nodes are built, and readable from each Output") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({-1, 2}));
  auto scalar = ops::Placeholder(root.WithOpName("s"), tf::DT_FLOAT, PartialTensorShape(std::vector<int64_t>{}));
  auto y = ops::Add(root, ops::MatMul(root, x, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}}), {0.5f, 0.5f, 0.5f});
  auto z = ops::Mul(root, y, scalar);
  REQUIRE(root.ok());
  CHECK(y.shape().DebugString() == "[?,3]");
  CHECK(z.shape().DebugString() == "[?,3]");
  CHECK(scalar.shape().DebugString() == "[]");  // a current graph: a scalar shape is a scalar
  CHECK(Output().shape().unknown_rank());
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  CHECK(def.versions().producer() == kGraphDefVersion);
}

TEST_CASE("a MatMul whose inner dimensions differ is refused by the builder, naming the node, and not added") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), tf::DT_FLOAT, PartialTensorShape({2, 3}));
  auto b = ops::Placeholder(root.WithOpName("b"), tf::DT_FLOAT, PartialTensorShape({4, 5}));
  const int before = root.graph()->num_op_nodes();
  auto mm = ops::MatMul(root.NewSubScope("dense").WithOpName("mm"), a, b);
  CHECK(mm.node == nullptr);
  CHECK(root.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(root.status().message(),
             Contains("'dense/mm'") && Contains("MatMul") && Contains("[2,3]") && Contains("[4,5]"));
  CHECK(root.graph()->FindNode("dense/mm") == nullptr);
  CHECK(root.graph()->num_op_nodes() == before);
  tf::GraphDef def;
  CHECK(root.ToGraphDef(&def) == root.status());
}

TEST_CASE("control dependencies accumulate over scopes and WithNoControlDependencies drops them") {
  Scope root = Scope::NewRootScope();
  Node* a = ops::NoOp(root.WithOpName("a"));
  Node* b = ops::NoOp(root.WithOpName("b"));
  Scope after_a = root.WithControlDependencies({Output(a)});
  Scope after_both = after_a.WithControlDependencies({Output(b)});
  auto c = ops::Const(after_both.WithOpName("c"), 1.f);
  auto d = ops::Identity(after_both.WithNoControlDependencies().WithOpName("d"), c);
  auto e = ops::Identity(after_a.WithOpName("e"), 2.f);  // the inline Const waits too, as in TensorFlow
  REQUIRE(root.ok());
  CHECK(Inputs(c.node) == std::vector<std::string>{"^a", "^b"});
  CHECK(Inputs(d.node) == std::vector<std::string>{"c"});
  CHECK(Inputs(e.node) == std::vector<std::string>{"Const/Const", "^a"});
  CHECK(Inputs(e.node->input_edge(0)->src) == std::vector<std::string>{"^a"});

  root.WithControlDependencies({Output()});
  CHECK_FALSE(root.ok());
}

TEST_CASE("ColocateWith joins the group of a node that is itself colocated, and groups are sorted") {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), PartialTensorShape({2}), tf::DT_FLOAT);
  auto w = ops::Variable(root.WithOpName("w"), PartialTensorShape({2}), tf::DT_FLOAT);
  auto read = ops::Identity(root.ColocateWith(v).WithOpName("v/read"), v);
  auto again = ops::Identity(root.ColocateWith(read).WithOpName("again"), read);  // joins v's group
  auto both = ops::Add(root.ColocateWith(w).ColocateWith(v).WithOpName("both"), read, again);
  auto none = ops::Identity(root.ColocateWith(v).ClearColocation().WithOpName("none"), v);
  REQUIRE(root.ok());
  CHECK(ColocationGroups(read.node) == std::vector<std::string>{"loc:@v"});
  CHECK(ColocationGroups(again.node) == std::vector<std::string>{"loc:@v"});
  CHECK(ColocationGroups(both.node) == std::vector<std::string>{"loc:@v", "loc:@w"});
  CHECK(ColocationGroups(none.node).empty());
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  Graph imported;
  REQUIRE(ImportGraphDef(def, &imported).ok());
  CHECK(ColocationGroups(imported.FindNode("both")) == std::vector<std::string>{"loc:@v", "loc:@w"});
}

TEST_CASE("a scope's device reaches its sub-scopes and inline constants") {
  Scope root = Scope::NewRootScope();
  Scope gpu = root.WithDevice("/device:GPU:0");
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto y = ops::Add(gpu.NewSubScope("layer"), x, 1.f);
  REQUIRE(root.ok());
  CHECK(y.node->name() == "layer/Add");
  CHECK(y.node->requested_device() == "/device:GPU:0");
  CHECK(y.node->input_edge(1)->src->requested_device() == "/device:GPU:0");
  CHECK(gpu.device() == "/device:GPU:0");
  CHECK(gpu.NewSubScope("layer").name_prefix() == "layer_1");
}

// Ops with list arguments, registered for this test ("Test" keeps them out of the
// TensorFlow comparison): N tensors in, N tensors out.
REGISTER_OP("BuilderTestSplitLike")
    .Input("x: T")
    .Output("pieces: num * T")
    .Attr("num: int >= 1")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnknownShape);
REGISTER_OP("BuilderTestAddNLike")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      std::vector<PartialTensorShape> shapes;
      TA_RETURN_IF_ERROR(c->input("inputs", &shapes));
      PartialTensorShape merged;
      for (const auto& s : shapes) TA_RETURN_IF_ERROR(c->Merge(merged, s, &merged));
      c->set_output(0, merged);
      return Status::OK();
    });

// How an ops:: function for a list input reads: the InputList flattened into the inputs.
Output AddNLike(const Scope& scope, const InputList& inputs) {
  tf::AttrValue n, t;
  n.set_i(static_cast<int64_t>(inputs.size()));
  t.set_type(tf::DT_FLOAT);
  return Output(scope.AddOp("BuilderTestAddNLike", "AddNLike", inputs.inputs(), {{"N", n}, {"T", t}}), 0);
}

OutputList SplitLike(const Scope& scope, const Input& x, int num) {
  tf::AttrValue n, t;
  n.set_i(num);
  t.set_type(tf::DT_FLOAT);
  return AllOutputs(scope.AddOp("BuilderTestSplitLike", "SplitLike", {x}, {{"num", n}, {"T", t}}));
}

TEST_CASE("list outputs come back as an OutputList, and an InputList feeds a list input") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({-1, 4}));
  OutputList pieces = SplitLike(root, x, 3);
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[2].name() == "SplitLike:2");
  auto sum = AddNLike(root, pieces);
  auto sum_inline = AddNLike(root, {x, {{1.f, 2.f, 3.f, 4.f}}, x});
  INFO(root.status());
  REQUIRE(root.ok());
  CHECK(Inputs(sum.node) == std::vector<std::string>{"SplitLike", "SplitLike:1", "SplitLike:2"});
  CHECK(Inputs(sum_inline.node) == std::vector<std::string>{"x", "Const/Const", "x"});
  CHECK(sum_inline.shape().DebugString() == "[1,4]");
  CHECK(AllOutputs(nullptr).empty());

  AddNLike(root.WithOpName("mismatch"), {x, {{1.f, 2.f}}});
  CHECK_THAT(root.status().message(), Contains("'mismatch'") && Contains("[?,4]") && Contains("[1,2]"));
}

}  // namespace
}  // namespace tensoract
