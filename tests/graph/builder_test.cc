// The C++ graph builder: Scope names, places and orders nodes; ops:: functions add them;
// inline constants become Const nodes; errors wait in the scope until it is checked.
//
// Examples and tests build their graphs this way, so the NodeDefs it writes must be the ones
// TensorFlow's C++ API would write: same names, same attrs, same constant encoding.
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "base/proto_io.h"
#include "base/status.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "graph/graph.h"

#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::HasControlEdge;

using testing::Inputs;

using Catch::Matchers::Contains;
using google::protobuf::util::MessageDifferencer;
namespace tf = ::tensorflow;




// The Const node feeding input `i` of `n`, required to be one.
const Node* ConstInput(const Node* n, int i) {
  REQUIRE(n->input_edge(i) != nullptr);
  const Node* c = n->input_edge(i)->src;
  REQUIRE(c->type_string() == "Const");
  return c;
}

TEST_CASE("ops are named after their op and made unique as TensorFlow does: Add, Add_1") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, tf::DT_FLOAT);
  auto a = ops::Add(root, x, x);
  auto b = ops::Add(root, x, x);
  auto c = ops::Add(root, a, b);
  REQUIRE(root.ok());
  CHECK(x.node->name() == "Placeholder");
  CHECK(a.node->name() == "Add");
  CHECK(b.node->name() == "Add_1");
  CHECK(c.node->name() == "Add_2");
  CHECK(Inputs(c.node) == std::vector<std::string>{"Add", "Add_1"});
}

TEST_CASE("sub-scopes prefix names, and a sub-scope name is made unique too: layer/Add, layer_1/Add") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, tf::DT_FLOAT);
  Scope layer = root.NewSubScope("layer");
  auto a = ops::Add(layer, x, x);
  auto b = ops::Add(layer, x, x);
  Scope layer_again = root.NewSubScope("layer");
  auto c = ops::Add(layer_again, x, x);
  Scope inner = layer.NewSubScope("inner");
  auto d = ops::Mul(inner, x, x);
  auto e = ops::Add(root, x, x);
  REQUIRE(root.ok());
  CHECK(a.node->name() == "layer/Add");
  CHECK(b.node->name() == "layer/Add_1");
  CHECK(c.node->name() == "layer_1/Add");
  CHECK(d.node->name() == "layer/inner/Mul");
  CHECK(e.node->name() == "Add");
}

TEST_CASE("WithOpName names the next op exactly, made unique like any other name") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto taken = ops::Identity(root.WithOpName("Identity_1"), x);
  auto first = ops::Identity(root, x);
  auto second = ops::Identity(root, x);  // skips the name someone took explicitly
  auto sum = ops::Add(root.WithOpName("sum"), x, x);
  auto sum_again = ops::Add(root.WithOpName("sum"), x, x);
  auto in_layer = ops::Add(root.NewSubScope("layer").WithOpName("sum"), x, x);
  REQUIRE(root.ok());
  CHECK(x.node->name() == "x");
  CHECK(taken.node->name() == "Identity_1");
  CHECK(first.node->name() == "Identity");
  CHECK(second.node->name() == "Identity_2");
  CHECK(sum.node->name() == "sum");
  CHECK(sum_again.node->name() == "sum_1");
  CHECK(in_layer.node->name() == "layer/sum");
}

TEST_CASE("the scope's device lands in the NodeDef and in the exported GraphDef") {
  Scope root = Scope::NewRootScope();
  Scope gpu = root.WithDevice("/job:localhost/replica:0/task:0/device:GPU:0");
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto y = ops::Identity(gpu.WithOpName("y"), x);
  REQUIRE(root.ok());
  CHECK(x.node->requested_device().empty());
  CHECK(y.node->requested_device() == "/job:localhost/replica:0/task:0/device:GPU:0");
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  REQUIRE(def.node_size() == 2);
  CHECK(def.node(1).device() == "/job:localhost/replica:0/task:0/device:GPU:0");
}

TEST_CASE("control dependencies become '^name' inputs after the data inputs, and control edges") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  Node* init = ops::NoOp(root.WithOpName("init"));
  Node* other = ops::NoOp(root.WithOpName("other"));
  REQUIRE(init != nullptr);
  auto y = ops::Identity(root.WithOpName("y").WithControlDependencies({Output(init), Output(other)}), x);
  REQUIRE(root.ok());
  CHECK(Inputs(y.node) == std::vector<std::string>{"x", "^init", "^other"});
  CHECK(HasControlEdge(init, y.node));
  CHECK(HasControlEdge(other, y.node));
  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  const NodeDef& exported = def.node(3);
  CHECK(exported.name() == "y");
  CHECK(std::vector<std::string>(exported.input().begin(), exported.input().end()) ==
        std::vector<std::string>{"x", "^init", "^other"});
}

TEST_CASE("ColocateWith records TensorFlow's _class attr") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto y = ops::Identity(root.ColocateWith(x), x);
  REQUIRE(root.ok());
  REQUIRE(y.node->def().attr().count("_class"));
  const auto& loc = y.node->def().attr().at("_class").list().s();
  REQUIRE(loc.size() == 1);
  CHECK(loc[0] == "loc:@x");
}

TEST_CASE("an inline matrix {{1.f,2.f},{3.f,4.f}} becomes a Const with TensorFlow's TensorProto") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto y = ops::MatMul(root, {{1.f, 2.f}, {3.f, 4.f}}, x);
  INFO(root.status());
  REQUIRE(root.ok());
  const Node* c = ConstInput(y.node, 0);
  CHECK(c->name() == "Const/Const");  // TensorFlow's C++ API makes it in a sub-scope "Const"
  CHECK(c->def().attr().at("dtype").type() == tf::DT_FLOAT);
  const tf::TensorProto want = testing::FromText<tf::TensorProto>(R"pb(
    dtype: DT_FLOAT
    tensor_shape { dim { size: 2 } dim { size: 2 } }
    float_val: 1 float_val: 2 float_val: 3 float_val: 4
  )pb");
  const tf::TensorProto& got = c->def().attr().at("value").tensor();
  INFO("got " << got.ShortDebugString());
  CHECK(MessageDifferencer::Equals(got, want));
  CHECK(c->output_type(0) == tf::DT_FLOAT);
  CHECK(y.node->input_edge(1)->src == x.node);
}

TEST_CASE("inline scalars, vectors and strings become Consts of TensorFlow's default types") {
  Scope root = Scope::NewRootScope();
  struct Case {
    Output out;
    const char* want;
  };
  const Case cases[] = {
      {ops::Const(root, 2.5f), "dtype: DT_FLOAT tensor_shape {} float_val: 2.5"},
      {ops::Const(root, 2.5), "dtype: DT_DOUBLE tensor_shape {} double_val: 2.5"},
      {ops::Const(root, 3), "dtype: DT_INT32 tensor_shape {} int_val: 3"},
      {ops::Const(root, int64_t{1} << 40), "dtype: DT_INT64 tensor_shape {} int64_val: 1099511627776"},
      {ops::Const(root, true), "dtype: DT_BOOL tensor_shape {} bool_val: true"},
      {ops::Const(root, {1, 2, 3}), "dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 1 int_val: 2 int_val: 3"},
      {ops::Const(root, "hello"), "dtype: DT_STRING tensor_shape {} string_val: 'hello'"},
  };
  INFO(root.status());
  REQUIRE(root.ok());
  for (const Case& c : cases) {
    INFO(c.want);
    REQUIRE(c.out.node != nullptr);
    tf::TensorProto got = c.out.node->def().attr().at("value").tensor();
    INFO("got " << got.ShortDebugString());
    // TensorFlow writes `tensor_shape {}` for a scalar; an absent shape reads the same.
    got.mutable_tensor_shape();
    CHECK(MessageDifferencer::Equals(got, testing::FromText<tf::TensorProto>(c.want)));
    CHECK(c.out.type() == testing::FromText<tf::TensorProto>(c.want).dtype());
  }
}

TEST_CASE("an inline constant is named as TensorFlow names it: Const/Const, Const_1/Const, inside the sub-scope") {
  Scope root = Scope::NewRootScope();
  Scope layer = root.NewSubScope("layer");
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto y = ops::Add(layer, x, 1.0f);
  auto explicit_const = ops::Const(root, 2.0f);
  auto z = ops::Add(root.WithOpName("z"), x, 3.0f);
  auto w = ops::Add(root.WithOpName("w"), x, 4.0f);
  REQUIRE(root.ok());
  CHECK(y.node->name() == "layer/Add");
  CHECK(ConstInput(y.node, 1)->name() == "layer/Const/Const");
  CHECK(explicit_const.node->name() == "Const");
  CHECK(ConstInput(z.node, 1)->name() == "Const_1/Const");  // the sub-scope name is made unique
  CHECK(ConstInput(w.node, 1)->name() == "Const_2/Const");
}

TEST_CASE("a type mismatch between inputs records an error in the scope naming the node and both types") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32);
  ops::Add(root.WithOpName("bad_sum"), x, n);
  REQUIRE_FALSE(root.ok());
  Status s = root.status();
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'bad_sum'") && Contains("int32") && Contains("float"));

  tf::GraphDef def;
  CHECK(root.ToGraphDef(&def) == s);
}

TEST_CASE("an inline constant of another type than its partner input is a mismatch too") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  ops::Add(root, x, 1);  // an int32 constant
  REQUIRE_FALSE(root.ok());
  CHECK_THAT(root.status().message(), Contains("'Add'") && Contains("int32"));
}

TEST_CASE("a node its op rejects records the error naming the node and the attr") {
  Scope root = Scope::NewRootScope();
  auto flags = ops::Placeholder(root.WithOpName("flags"), tf::DT_BOOL);
  ops::MatMul(root, flags, flags);
  REQUIRE_FALSE(root.ok());
  CHECK_THAT(root.status().message(), Contains("'MatMul'") && Contains("'T'") && Contains("bool"));
}

TEST_CASE("after an error, later ops add nothing and the first error is the one returned") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32);
  ops::Mul(root.WithOpName("first_error"), x, n);
  Status first = root.status();
  int nodes = root.graph()->num_op_nodes();
  auto later = ops::Add(root, x, x);
  CHECK(later.node == nullptr);
  CHECK(root.graph()->num_op_nodes() == nodes);
  CHECK(root.status() == first);
  CHECK_THAT(first.message(), Contains("'first_error'"));
}

TEST_CASE("ragged inline rows are an error saying so") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  ops::MatMul(root, {{1.f, 2.f}, {3.f}}, x);
  REQUIRE_FALSE(root.ok());
  CHECK_THAT(root.status().message(), Contains("different lengths"));
}

TEST_CASE("ragged rows given to ops::Const are an error saying so") {
  Scope root = Scope::NewRootScope();
  ops::Const(root, {{1.f, 2.f}, {3.f}});
  REQUIRE_FALSE(root.ok());
  CHECK_THAT(root.status().message(), Contains("different lengths"));
}

TEST_CASE("ops::Const of an existing output is an error naming it") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  ops::Const(root, x);
  REQUIRE_FALSE(root.ok());
  CHECK_THAT(root.status().message(), Contains("'x'"));
}

TEST_CASE("an Output names itself as Session::Run feeds and fetches take it") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT);
  CHECK(x.name() == "x");
  CHECK(Output(x.node, 1).name() == "x:1");
  CHECK(Output().name() == "<none>");
  CHECK(Output().type() == tf::DT_INVALID);
}

TEST_CASE("a placeholder's declared shape and MatMul's transpose attrs land in the NodeDef") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({-1, 2}));
  auto any = ops::Placeholder(root.WithOpName("any"), tf::DT_FLOAT);
  auto y = ops::MatMul(root, x, x, {/*transpose_a=*/false, /*transpose_b=*/true});
  REQUIRE(root.ok());
  PartialTensorShape shape;
  REQUIRE(GetNodeAttr(x.node->def(), "shape", &shape).ok());
  CHECK(shape.DebugString() == "[?,2]");
  REQUIRE(GetNodeAttr(any.node->def(), "shape", &shape).ok());
  CHECK(shape.unknown_rank());
  bool transpose_a = true, transpose_b = false;
  REQUIRE(GetNodeAttr(y.node->def(), "transpose_a", &transpose_a).ok());
  REQUIRE(GetNodeAttr(y.node->def(), "transpose_b", &transpose_b).ok());
  CHECK_FALSE(transpose_a);
  CHECK(transpose_b);
}

TEST_CASE("a built graph exports to a GraphDef that imports back to the same") {
  Scope root = Scope::NewRootScope();
  Scope layer = root.NewSubScope("dense");
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({-1, 2}));
  Node* init = ops::NoOp(root.WithOpName("init"));
  auto mm = ops::MatMul(layer.WithControlDependencies({Output(init)}), x, {{1.f, 2.f}, {3.f, 4.f}});
  auto out = ops::AddV2(layer.WithDevice("/device:CPU:0"), mm, {0.5f, -0.5f});
  REQUIRE(root.ok());
  CHECK(out.node->name() == "dense/AddV2");

  tf::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  Graph imported;
  Status s = ImportGraphDef(def, &imported);
  INFO(s);
  REQUIRE(s.ok());
  CHECK(imported.num_op_nodes() == root.graph()->num_op_nodes());
  tf::GraphDef again;
  imported.ToGraphDef(&again);
  CHECK(MessageDifferencer::Equals(def, again));
}

}  // namespace
}  // namespace tensoract
