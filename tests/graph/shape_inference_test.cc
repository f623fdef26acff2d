// Shape inference: the InferenceContext a shape function works with, the common shape
// functions, and inference as graphs are imported.
//
// The rule that matters most: inference refuses only what is certainly wrong. Unknown
// dimensions and unknown ranks flow through and are accepted wherever TensorFlow accepts
// them; a certain mismatch is an InvalidArgument naming the node, the op and the shapes.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "graph/common_shape_fns.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::ShapeOf;

namespace tf = ::tensorflow;
using Catch::Matchers::Contains;
using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;

// "[2,?]" -> PartialTensorShape; "?" is unknown rank.
PartialTensorShape S(const std::string& text) {
  if (text == "?") return PartialTensorShape();
  std::vector<int64_t> dims;
  std::string cur;
  for (char c : text.substr(1)) {
    if (c == ',' || c == ']') {
      if (!cur.empty()) dims.push_back(cur == "?" ? -1 : std::stoll(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return PartialTensorShape(dims);
}

// A context for a node of `op` with `shapes` as inputs (and `tensors` as their constant
// values), to call the helpers and shape functions on directly.
struct Context {
  Context(const std::string& op, std::vector<PartialTensorShape> shapes, const std::string& attrs = "",
          std::vector<const tf::TensorProto*> tensors = {}) {
    def = testing::FromText<tf::NodeDef>(StrCat("name: 'n' op: '", op, "' ", attrs));
    op_def = *OpRegistry::Global()->LookUp(op);
    AddDefaultsToNodeDef(*op_def, &def);
    DataTypeVector ins, outs;
    Status s = InOutTypesForNode(def, *op_def, &ins, &outs);
    INFO(s);
    REQUIRE(s.ok());
    c = std::make_unique<InferenceContext>(&def, op_def, kGraphDefVersion, ins, outs, std::move(shapes),
                                           std::move(tensors));
  }
  tf::NodeDef def;
  const tf::OpDef* op_def;
  std::unique_ptr<InferenceContext> c;
};

const char* const kFloatAttr = "attr { key: 'T' value { type: DT_FLOAT } }";

// The broadcast of two shapes, or the error's message.
std::string Broadcast(const std::string& a, const std::string& b) {
  Context ctx("Add", {S(a), S(b)}, kFloatAttr);
  Status s = shape_inference::BroadcastBinaryOpShape(ctx.c.get());
  return s.ok() ? ctx.c->output(0).DebugString() : "error: " + s.message();
}

std::string MatMul(const std::string& a, const std::string& b, bool ta = false, bool tb = false) {
  Context ctx("MatMul", {S(a), S(b)},
              StrCat(kFloatAttr, " attr { key: 'transpose_a' value { b: ", ta ? "true" : "false",
                     " } } attr { key: 'transpose_b' value { b: ", tb ? "true" : "false", " } }"));
  Status s = shape_inference::MatMulShape(ctx.c.get());
  return s.ok() ? ctx.c->output(0).DebugString() : "error: " + s.message();
}

Graph* Imported(const std::string& text, Graph* graph) {
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(text), graph);
  INFO(s);
  REQUIRE(s.ok());
  return graph;
}


std::string Placeholder(const std::string& name, const std::string& shape_attr = "") {
  return StrCat("node { name: '", name, "' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } ",
                shape_attr.empty() ? "" : StrCat("attr { key: 'shape' value { shape { ", shape_attr, " } } } "), "}\n");
}
std::string Binary(const std::string& op, const std::string& name, const std::string& a, const std::string& b,
                   const std::string& extra = "") {
  return StrCat("node { name: '", name, "' op: '", op, "' input: '", a, "' input: '", b, "' ", kFloatAttr, " ", extra,
                " }\n");
}
std::string FloatConst(const std::string& name, const std::string& dims) {
  return StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } ",
                "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { ", dims, " } } } } }\n");
}

// ---- the context's helpers ------------------------------------------------------------

TEST_CASE("Merge keeps the more specific of two compatible shapes, and names both when they are not") {
  Context ctx("Identity", {S("?")}, kFloatAttr);
  const InferenceContext& c = *ctx.c;
  PartialTensorShape out;
  REQUIRE(c.Merge(S("[?,3]"), S("[2,?]"), &out).ok());
  CHECK(out.DebugString() == "[2,3]");
  REQUIRE(c.Merge(S("?"), S("[2,?]"), &out).ok());
  CHECK(out.DebugString() == "[2,?]");
  REQUIRE(c.Merge(S("[4]"), S("?"), &out).ok());
  CHECK(out.DebugString() == "[4]");
  Status rank = c.Merge(S("[2]"), S("[2,3]"), &out);
  CHECK(rank.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(rank.message(), Contains("rank") && Contains("[2]") && Contains("[2,3]"));
  Status dim = c.Merge(S("[2,3]"), S("[2,4]"), &out);
  CHECK_THAT(dim.message(), Contains("dimension 1") && Contains("3") && Contains("4") && Contains("[2,3]"));

  int64_t d;
  REQUIRE(c.MergeDim(kUnknownDim, 5, &d).ok());
  CHECK(d == 5);
  REQUIRE(c.MergeDim(kUnknownDim, kUnknownDim, &d).ok());
  CHECK(d == kUnknownDim);
  CHECK_FALSE(c.MergeDim(4, 5, &d).ok());
}

TEST_CASE("WithRank turns an unknown rank into unknown dimensions and refuses another rank") {
  Context ctx("Identity", {S("?")}, kFloatAttr);
  const InferenceContext& c = *ctx.c;
  PartialTensorShape out;
  REQUIRE(c.WithRank(S("?"), 2, &out).ok());
  CHECK(out.DebugString() == "[?,?]");
  REQUIRE(c.WithRank(S("[3,?]"), 2, &out).ok());
  CHECK(out.DebugString() == "[3,?]");
  Status s = c.WithRank(S("[1,2,3]"), 2, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("[1,2,3]") && Contains("rank 2") && Contains("rank 3"));
  CHECK(c.WithRankAtLeast(S("[1,2,3]"), 2, &out).ok());
  CHECK(c.WithRankAtLeast(S("?"), 2, &out).ok());
  CHECK_FALSE(c.WithRankAtLeast(S("[1]"), 2, &out).ok());
  CHECK(c.WithRankAtMost(S("[1]"), 2, &out).ok());
  CHECK_FALSE(c.WithRankAtMost(S("[1,2,3]"), 2, &out).ok());
}

TEST_CASE("Concatenate, Subshape and ReplaceDim slice shapes as Python does") {
  Context ctx("Identity", {S("?")}, kFloatAttr);
  const InferenceContext& c = *ctx.c;
  PartialTensorShape out;
  REQUIRE(c.Concatenate(S("[2,?]"), S("[5]"), &out).ok());
  CHECK(out.DebugString() == "[2,?,5]");
  REQUIRE(c.Concatenate(S("[2]"), S("?"), &out).ok());
  CHECK(out.unknown_rank());
  REQUIRE(c.Subshape(S("[1,2,3,4]"), 1, &out).ok());
  CHECK(out.DebugString() == "[2,3,4]");
  REQUIRE(c.Subshape(S("[1,2,3,4]"), 1, -1, &out).ok());
  CHECK(out.DebugString() == "[2,3]");
  REQUIRE(c.Subshape(S("[1,2,3,4]"), -2, &out).ok());
  CHECK(out.DebugString() == "[3,4]");
  REQUIRE(c.Subshape(S("?"), 0, &out).ok());
  CHECK(out.unknown_rank());
  REQUIRE(c.Subshape(S("?"), 1, &out).ok());
  CHECK(out.unknown_rank());
  CHECK_FALSE(c.Subshape(S("[1,2]"), -3, &out).ok());
  CHECK_FALSE(c.Subshape(S("[1,2]"), 2, 1, &out).ok());
  REQUIRE(c.ReplaceDim(S("[1,2,3]"), -1, 7, &out).ok());
  CHECK(out.DebugString() == "[1,2,7]");
  CHECK_FALSE(c.ReplaceDim(S("[1,2,3]"), 3, 7, &out).ok());
}

TEST_CASE("dimension arithmetic keeps unknowns unknown and refuses impossible results") {
  Context ctx("Identity", {S("?")}, kFloatAttr);
  const InferenceContext& c = *ctx.c;
  CHECK(InferenceContext::Add(2, 3) == 5);
  CHECK(InferenceContext::Add(2, kUnknownDim) == kUnknownDim);
  CHECK(InferenceContext::Multiply(4, 3) == 12);
  CHECK(InferenceContext::Multiply(0, kUnknownDim) == 0);
  CHECK(InferenceContext::Multiply(kUnknownDim, 3) == kUnknownDim);
  CHECK(InferenceContext::NumElements(S("[2,3,4]")) == 24);
  CHECK(InferenceContext::NumElements(S("[2,?]")) == kUnknownDim);
  CHECK(InferenceContext::NumElements(S("[]")) == 1);
  int64_t d;
  REQUIRE(c.Subtract(5, 2, &d).ok());
  CHECK(d == 3);
  CHECK_FALSE(c.Subtract(2, 5, &d).ok());
  REQUIRE(c.Divide(12, 4, true, &d).ok());
  CHECK(d == 3);
  CHECK_FALSE(c.Divide(12, 5, true, &d).ok());
  CHECK_FALSE(c.Divide(12, 0, false, &d).ok());
  REQUIRE(c.Divide(kUnknownDim, 4, true, &d).ok());
  CHECK(d == kUnknownDim);
  CHECK(InferenceContext::Dim(S("[2,3]"), -1) == 3);
  CHECK(InferenceContext::Dim(S("?"), 0) == kUnknownDim);
  CHECK(InferenceContext::Compatible(S("[2,?]"), S("[?,3]")));
  CHECK_FALSE(InferenceContext::Compatible(S("[2,?]"), S("[3,?]")));
  CHECK(InferenceContext::SameShape(S("[2,?]"), S("[2,?]")));
  CHECK_FALSE(InferenceContext::SameShape(S("[2,?]"), S("[2,3]")));
}

TEST_CASE("a shape written as a constant tensor reads in every TensorFlow encoding") {
  auto proto = [](const std::string& text) { return testing::FromText<tf::TensorProto>(text); };
  const tf::TensorProto listed = proto("dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 2 int_val: -1 int_val: 5");
  const tf::TensorProto repeated = proto("dtype: DT_INT64 tensor_shape { dim { size: 3 } } int64_val: 7");
  const tf::TensorProto zeros = proto("dtype: DT_INT32 tensor_shape { dim { size: 2 } }");
  tf::TensorProto content = proto("dtype: DT_INT32 tensor_shape { dim { size: 2 } }");
  const int32_t raw[] = {4, 9};
  content.set_tensor_content(std::string(reinterpret_cast<const char*>(raw), sizeof raw));
  const tf::TensorProto bad = proto("dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: -3");

  struct Case {
    const tf::TensorProto* value;
    const char* want;
  } cases[] = {{&listed, "[2,?,5]"}, {&repeated, "[7,7,7]"}, {&zeros, "[0,0]"}, {&content, "[4,9]"}};
  for (const Case& k : cases) {
    Context ctx("Identity", {S("[?]")}, kFloatAttr, {k.value});
    PartialTensorShape out;
    Status s = ctx.c->MakeShapeFromShapeTensor(0, &out);
    INFO(k.value->ShortDebugString() << ": " << s);
    REQUIRE(s.ok());
    CHECK(out.DebugString() == k.want);
  }
  Context unknown_value("Identity", {S("[3]")}, kFloatAttr);
  PartialTensorShape out;
  REQUIRE(unknown_value.c->MakeShapeFromShapeTensor(0, &out).ok());
  CHECK(out.DebugString() == "[?,?,?]");
  Context unknown_length("Identity", {S("[?]")}, kFloatAttr);
  REQUIRE(unknown_length.c->MakeShapeFromShapeTensor(0, &out).ok());
  CHECK(out.unknown_rank());
  Context negative("Identity", {S("[2]")}, kFloatAttr, {&bad});
  CHECK_THAT(negative.c->MakeShapeFromShapeTensor(0, &out).message(), Contains("-3"));
  Context matrix("Identity", {S("[2,2]")}, kFloatAttr);
  CHECK_FALSE(matrix.c->MakeShapeFromShapeTensor(0, &out).ok());

  std::vector<int64_t> values;
  tf::TensorProto short_content = content;
  short_content.set_tensor_content("abc");
  CHECK_FALSE(shape_inference::TensorProtoToInt64s(short_content, &values).ok());
  CHECK_FALSE(shape_inference::TensorProtoToInt64s(proto("dtype: DT_FLOAT tensor_shape {} float_val: 1"), &values).ok());
}

// ---- common shape functions -----------------------------------------------------------

TEST_CASE("broadcasting follows NumPy, and a dimension it cannot decide stays unknown") {
  CHECK(Broadcast("[2,3]", "[3]") == "[2,3]");
  CHECK(Broadcast("[2,1,3]", "[4,1]") == "[2,4,3]");
  CHECK(Broadcast("[]", "[5,6]") == "[5,6]");
  CHECK(Broadcast("[?,3]", "[2,1]") == "[2,3]");
  CHECK(Broadcast("[?]", "[5]") == "[5]");  // the unknown must be 1 or 5: 5 either way
  CHECK(Broadcast("[?]", "[1]") == "[?]");
  CHECK(Broadcast("[?]", "[?]") == "[?]");
  CHECK(Broadcast("[0]", "[?]") == "[?]");
  CHECK(Broadcast("[0]", "[1]") == "[0]");
  CHECK(Broadcast("?", "[3]") == "<unknown>");
  CHECK(Broadcast("[?,?]", "[7]") == "[?,7]");
  const std::string bad = Broadcast("[2,3]", "[4]");
  CHECK_THAT(bad, Contains("error") && Contains("[2,3]") && Contains("[4]"));
}

TEST_CASE("MatMul's shape honours the transpose attrs and checks the inner dimensions where known") {
  CHECK(MatMul("[2,3]", "[3,5]") == "[2,5]");
  CHECK(MatMul("[3,2]", "[3,5]", true) == "[2,5]");
  CHECK(MatMul("[2,3]", "[5,3]", false, true) == "[2,5]");
  CHECK(MatMul("[?,784]", "[784,10]") == "[?,10]");
  CHECK(MatMul("[?,?]", "[4,10]") == "[?,10]");
  CHECK(MatMul("?", "?") == "[?,?]");
  CHECK_THAT(MatMul("[2,3]", "[4,5]"), Contains("inner dimensions") && Contains("3") && Contains("4"));
  CHECK_THAT(MatMul("[2,3]", "[3,5]", true), Contains("transposed"));
  CHECK_THAT(MatMul("[2]", "[2,5]"), Contains("'a' must be a matrix"));
}

// ---- inference on imported graphs -----------------------------------------------------

TEST_CASE("partial shapes flow through a chain: [?,784] x [784,10] + [10] is [?,10]") {
  Graph graph;
  Imported(Placeholder("x", "dim { size: -1 } dim { size: 784 }") +
               FloatConst("w", "dim { size: 784 } dim { size: 10 }") + FloatConst("b", "dim { size: 10 }") +
               Binary("MatMul", "mm", "x", "w") + Binary("Add", "logits", "mm", "b") +
               "node { name: 'out' op: 'Identity' input: 'logits' " + kFloatAttr + " }\n" +
               "versions { producer: 27 }",
           &graph);
  CHECK(ShapeOf(graph, "x") == "[?,784]");
  CHECK(ShapeOf(graph, "w") == "[784,10]");
  CHECK(ShapeOf(graph, "mm") == "[?,10]");
  CHECK(ShapeOf(graph, "logits") == "[?,10]");
  CHECK(ShapeOf(graph, "out") == "[?,10]");
  CHECK(graph.source_node()->output_shape(0).unknown_rank());  // no such output: unknown
}

TEST_CASE("a graph with unknown ranks that TensorFlow accepts is accepted, its shapes partly unknown") {
  Graph graph;
  Imported(Placeholder("x") + Placeholder("y") + Binary("MatMul", "mm", "x", "y") + Binary("Mul", "m", "mm", "x") +
               Binary("AddV2", "s", "m", "y") + FloatConst("c", "dim { size: 3 }") + Binary("Add", "t", "s", "c"),
           &graph);
  CHECK(ShapeOf(graph, "x") == "<unknown>");
  CHECK(ShapeOf(graph, "mm") == "[?,?]");
  CHECK(ShapeOf(graph, "m") == "<unknown>");
  CHECK(ShapeOf(graph, "t") == "<unknown>");
}

TEST_CASE("a MatMul whose inner dimensions differ is refused at import, naming the node, op and shapes") {
  Graph graph;
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(FloatConst("a", "dim { size: 2 } dim { size: 3 }") +
                                                            FloatConst("b", "dim { size: 4 } dim { size: 5 }") +
                                                            Binary("MatMul", "dense/mm", "a", "b")),
                            &graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'dense/mm'") && Contains("MatMul") && Contains("[2,3]") && Contains("[4,5]") &&
                              Contains("inner dimensions"));
}

TEST_CASE("shapes that cannot broadcast are refused at import, naming the node") {
  Graph graph;
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(Placeholder("x", "dim { size: -1 } dim { size: 3 }") +
                                                            FloatConst("b", "dim { size: 4 }") +
                                                            Binary("AddV2", "bias_add", "x", "b")),
                            &graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'bias_add'") && Contains("AddV2") && Contains("[?,3]") && Contains("[4]"));
}

TEST_CASE("a Placeholder's scalar shape means unknown in graphs older than version 22, as in TensorFlow") {
  const std::string scalar = Placeholder("x", " ");  // shape {}: a scalar
  Graph old_graph, new_graph;
  Imported(scalar + "versions { producer: 21 }", &old_graph);
  Imported(scalar + "versions { producer: 22 }", &new_graph);
  CHECK(ShapeOf(old_graph, "x") == "<unknown>");
  CHECK(ShapeOf(new_graph, "x") == "[]");
}

TEST_CASE("a Const whose value has no valid shape is refused, naming it") {
  Graph graph;
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(R"pb(
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: -1 } } } } } }
  )pb"), &graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("'c'") && Contains("Const"));
}

TEST_CASE("an _Arg's shape is unknown unless _output_shapes says it") {
  Graph graph;
  Imported(R"pb(
    node { name: "a" op: "_Arg" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index" value { i: 0 } } }
    node { name: "b" op: "_Arg" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index" value { i: 1 } }
           attr { key: "_output_shapes" value { list { shape { dim { size: 2 } } } } } }
  )pb", &graph);
  CHECK(ShapeOf(graph, "a") == "<unknown>");
  CHECK(ShapeOf(graph, "b") == "[2]");
}

// Ops registered for these tests ("Test" in the name keeps them out of the TensorFlow
// comparison in tf_op_defs_test.cc).
REGISTER_OP("ShapeTestFill")
    .Input("dims: int32")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape out;
      TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
      c->set_output(0, out);
      return Status::OK();
    });
// Stacks its N inputs on a new first dimension: [N] + the inputs merged.
REGISTER_OP("ShapeTestStack")
    .Input("values: N * T")
    .Input("extra: float")
    .Output("y: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<PartialTensorShape> values;
      TA_RETURN_IF_ERROR(c->input("values", &values));
      PartialTensorShape merged = values[0];
      for (const auto& v : values) TA_RETURN_IF_ERROR(c->Merge(merged, v, &merged));
      int start, end;
      TA_RETURN_IF_ERROR(c->InputRange("extra", &start, &end));
      if (start != static_cast<int>(values.size()) || end != start + 1) return errors::Internal("bad range");
      PartialTensorShape out;
      TA_RETURN_IF_ERROR(c->Concatenate(c->Vector(static_cast<int64_t>(values.size())), merged, &out));
      c->set_output(0, out);
      return Status::OK();
    });
REGISTER_OP("ShapeTestMisuse").Input("x: float").Output("y: float").SetShapeFn([](InferenceContext* c) {
  c->set_output(0, c->input(3));
  return Status::OK();
});
REGISTER_OP("ShapeTestNoFn").Input("x: float").Output("y: float");

std::string IntConst(const std::string& name, const std::string& values, int n) {
  return StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } ",
                "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: ", n, " } } ",
                values, " } } } }\n");
}

TEST_CASE("a shape function reads a constant input's value, through Identity too, and unknown otherwise") {
  Graph graph;
  Imported(IntConst("dims", "int_val: 2 int_val: 3", 2) +
               "node { name: 'id' op: 'Identity' input: 'dims' attr { key: 'T' value { type: DT_INT32 } } }\n"
               "node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } }"
               "       attr { key: 'shape' value { shape { dim { size: 4 } } } } }\n"
               "node { name: 'direct' op: 'ShapeTestFill' input: 'dims' }\n"
               "node { name: 'through' op: 'ShapeTestFill' input: 'id' }\n"
               "node { name: 'fed' op: 'ShapeTestFill' input: 'p' }\n",
           &graph);
  CHECK(ShapeOf(graph, "direct") == "[2,3]");
  CHECK(ShapeOf(graph, "through") == "[2,3]");
  CHECK(ShapeOf(graph, "fed") == "[?,?,?,?]");
}

TEST_CASE("a shape function reads the shapes of a list argument by its name") {
  Graph graph;
  Imported(Placeholder("a", "dim { size: -1 } dim { size: 3 }") + Placeholder("b", "dim { size: 2 } dim { size: -1 }") +
               Placeholder("e") +
               "node { name: 's' op: 'ShapeTestStack' input: 'a' input: 'b' input: 'a' input: 'e' "
               "attr { key: 'N' value { i: 3 } } " + kFloatAttr + " }\n",
           &graph);
  CHECK(ShapeOf(graph, "s") == "[3,2,3]");
}

TEST_CASE("a shape function's misuse is an Internal error naming the op, not a crash") {
  Graph graph;
  Status s = ImportGraphDef(testing::FromText<tf::GraphDef>(Placeholder("x") +
                                                            "node { name: 'bad' op: 'ShapeTestMisuse' input: 'x' }"),
                            &graph);
  CHECK(s.code() == error::INTERNAL);
  CHECK_THAT(s.message(), Contains("'bad'") && Contains("ShapeTestMisuse") && Contains("input 3"));
}

TEST_CASE("an op registered without a shape function gets unknown output shapes") {
  Graph graph;
  Imported(Placeholder("x", "dim { size: 2 }") + "node { name: 'n' op: 'ShapeTestNoFn' input: 'x' }", &graph);
  CHECK(ShapeOf(graph, "n") == "<unknown>");
}

}  // namespace
}  // namespace tensoract
