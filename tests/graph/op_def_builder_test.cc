// OpDefBuilder reads TensorFlow's op spec strings into OpDefs; OpRegistry keeps them.
//
// Ops are written once against TensorFlow's syntax and then trusted by every GraphDef
// import, so each spec form is pinned here, and so is the error a bad spec gives: one that
// names the op and the spec, since it surfaces far from the REGISTER_OP that caused it.
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "base/proto_io.h"
#include "base/status.h"
#include "graph/op_def_builder.h"
#include "graph/op_registry.h"
#include "messages/op_def.pb.h"

#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using Catch::Matchers::Contains;
using google::protobuf::util::MessageDifferencer;
namespace tf = ::tensorflow;

tf::OpDef Finalized(const OpDefBuilder& b) {
  tf::OpDef op;
  Status s = b.Finalize(&op);
  INFO(s);
  REQUIRE(s.ok());
  return op;
}

tf::OpDef::AttrDef AttrNamed(const tf::OpDef& op, const std::string& name) {
  for (const auto& a : op.attr()) {
    if (a.name() == name) return a;
  }
  FAIL("op '" << op.name() << "' has no attr '" << name << "'");
  return {};
}


// The error Finalize gives for `b`, required to be an InvalidArgument.
Status FinalizeError(const OpDefBuilder& b) {
  tf::OpDef op;
  Status s = b.Finalize(&op);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == error::INVALID_ARGUMENT);
  return s;
}

TEST_CASE("a type attr with allowed types lists them as allowed values and has no default") {
  tf::OpDef op = Finalized(OpDefBuilder("Op").Attr("T: {float, double}"));
  const auto& t = AttrNamed(op, "T");
  CHECK(t.type() == "type");
  CHECK_FALSE(t.has_default_value());
  CHECK_FALSE(t.has_minimum());
  CHECK(MessageDifferencer::Equals(t.allowed_values(), testing::FromText<tf::AttrValue>("list { type: DT_FLOAT type: DT_DOUBLE }")));
}

TEST_CASE("an attr with allowed strings is a string attr listing them") {
  tf::OpDef op = Finalized(OpDefBuilder("Conv").Attr("padding: {'SAME', 'VALID'}").Attr("format: {\"NHWC\", \"NCHW\"} = 'NHWC'"));
  const auto& padding = AttrNamed(op, "padding");
  CHECK(padding.type() == "string");
  CHECK(MessageDifferencer::Equals(padding.allowed_values(), testing::FromText<tf::AttrValue>("list { s: 'SAME' s: 'VALID' }")));
  const auto& format = AttrNamed(op, "format");
  CHECK(format.type() == "string");
  CHECK(MessageDifferencer::Equals(format.allowed_values(), testing::FromText<tf::AttrValue>("list { s: 'NHWC' s: 'NCHW' }")));
  CHECK(MessageDifferencer::Equals(format.default_value(), testing::FromText<tf::AttrValue>("s: 'NHWC'")));
}

TEST_CASE("typed attrs take defaults of every kind, written the way TensorFlow writes them") {
  struct Case {
    const char* spec;
    const char* type;
    const char* default_text;  // the AttrValue it should become
  };
  const Case cases[] = {
      {"b: bool = false", "bool", "b: false"},
      {"b: bool = true", "bool", "b: true"},
      {"i: int = -1", "int", "i: -1"},
      {"f: float = 0.5", "float", "f: 0.5"},
      {"s: string = 'abc'", "string", "s: 'abc'"},
      {"s: string = \"a b\"", "string", "s: 'a b'"},
      {"s: string = ''", "string", "s: ''"},
      {"t: type = DT_INT32", "type", "type: DT_INT32"},
      {"t: type = int64", "type", "type: DT_INT64"},
      {"t: {float, double} = DT_DOUBLE", "type", "type: DT_DOUBLE"},
      {"t: {float, double} = float", "type", "type: DT_FLOAT"},
      {"shape: shape = { unknown_rank: true }", "shape", "shape { unknown_rank: true }"},
      {"shape: shape = { dim { size: -1 } dim { size: 3 } }", "shape", "shape { dim { size: -1 } dim { size: 3 } }"},
      {"value: tensor = { dtype: DT_FLOAT float_val: 1 }", "tensor", "tensor { dtype: DT_FLOAT float_val: 1 }"},
      {"strides: list(int) = [1, 1]", "list(int)", "list { i: 1 i: 1 }"},
      {"empty: list(int) = []", "list(int)", "list { }"},
      {"fs: list(float) = [0.5, 2]", "list(float)", "list { f: 0.5 f: 2 }"},
      {"ss: list(string) = ['a', 'b']", "list(string)", "list { s: 'a' s: 'b' }"},
      {"bs: list(bool) = [true, false]", "list(bool)", "list { b: true b: false }"},
      {"ts: list(type) = [float, DT_INT32]", "list(type)", "list { type: DT_FLOAT type: DT_INT32 }"},
      {"shapes: list(shape) = [{ dim { size: 2 } }, { unknown_rank: true }]", "list(shape)",
       "list { shape { dim { size: 2 } } shape { unknown_rank: true } }"},
  };
  for (const Case& c : cases) {
    INFO(c.spec);
    tf::OpDef op = Finalized(OpDefBuilder("Op").Attr(c.spec));
    REQUIRE(op.attr_size() == 1);
    CHECK(op.attr(0).type() == c.type);
    REQUIRE(op.attr(0).has_default_value());
    tf::AttrValue want = testing::FromText<tf::AttrValue>(c.default_text);
    INFO("got " << op.attr(0).default_value().ShortDebugString());
    CHECK(MessageDifferencer::Equals(op.attr(0).default_value(), want));
  }
}

TEST_CASE("attrs of type func, tensor, list(tensor) and list(func) are accepted without defaults") {
  tf::OpDef op = Finalized(
      OpDefBuilder("Call").Attr("f: func").Attr("v: tensor").Attr("vs: list(tensor)").Attr("fs: list(func)"));
  CHECK(AttrNamed(op, "f").type() == "func");
  CHECK(AttrNamed(op, "v").type() == "tensor");
  CHECK(AttrNamed(op, "vs").type() == "list(tensor)");
  CHECK(AttrNamed(op, "fs").type() == "list(func)");
}

TEST_CASE("a minimum is recorded, zero included, with or without a default") {
  tf::OpDef op = Finalized(OpDefBuilder("Op")
                               .Attr("N: int >= 1")
                               .Attr("index: int >= 0")
                               .Attr("M: int >= 2 = 3")
                               .Attr("ksize: list(int) >= 4"));
  CHECK(AttrNamed(op, "N").has_minimum());
  CHECK(AttrNamed(op, "N").minimum() == 1);
  CHECK(AttrNamed(op, "N").type() == "int");
  CHECK(AttrNamed(op, "index").has_minimum());
  CHECK(AttrNamed(op, "index").minimum() == 0);
  CHECK(AttrNamed(op, "M").minimum() == 2);
  CHECK(AttrNamed(op, "M").default_value().i() == 3);
  CHECK(AttrNamed(op, "ksize").type() == "list(int)");
  CHECK(AttrNamed(op, "ksize").minimum() == 4);
}

TEST_CASE("a list of allowed types is a list(type) attr with allowed values") {
  tf::OpDef op = Finalized(OpDefBuilder("Op").Attr("Tout: list({float, int32}) >= 1"));
  const auto& tout = AttrNamed(op, "Tout");
  CHECK(tout.type() == "list(type)");
  CHECK(tout.minimum() == 1);
  CHECK(MessageDifferencer::Equals(tout.allowed_values(), testing::FromText<tf::AttrValue>("list { type: DT_FLOAT type: DT_INT32 }")));
}

TEST_CASE("args are typed by a type attr, a fixed type, N * T, a list(type) attr or Ref(T)") {
  // The args come first in the chain: attrs resolve whatever order they are declared in.
  tf::OpDef op = Finalized(OpDefBuilder("Fancy")
                               .Input("a: T")
                               .Input("x: float")
                               .Input("values: N * T")
                               .Input("counts: N * int64")
                               .Input("args: Tin")
                               .Input("ref: Ref(T)")
                               .Output("out: Ref(int32)")
                               .Output("outs: Tout")
                               .Attr("T: type")
                               .Attr("N: int >= 1")
                               .Attr("Tin: list(type)")
                               .Attr("Tout: list(type) >= 0"));
  REQUIRE(op.input_arg_size() == 6);
  const auto& a = op.input_arg(0);
  CHECK(a.name() == "a");
  CHECK(a.type_attr() == "T");
  CHECK(a.type() == tf::DT_INVALID);
  CHECK_FALSE(a.is_ref());
  const auto& x = op.input_arg(1);
  CHECK(x.type() == tf::DT_FLOAT);
  CHECK(x.type_attr().empty());
  const auto& values = op.input_arg(2);
  CHECK(values.number_attr() == "N");
  CHECK(values.type_attr() == "T");
  const auto& counts = op.input_arg(3);
  CHECK(counts.number_attr() == "N");
  CHECK(counts.type() == tf::DT_INT64);
  const auto& args = op.input_arg(4);
  CHECK(args.type_list_attr() == "Tin");
  CHECK(args.number_attr().empty());
  CHECK(args.type_attr().empty());
  const auto& ref = op.input_arg(5);
  CHECK(ref.is_ref());
  CHECK(ref.type_attr() == "T");
  REQUIRE(op.output_arg_size() == 2);
  CHECK(op.output_arg(0).is_ref());
  CHECK(op.output_arg(0).type() == tf::DT_INT32);
  CHECK(op.output_arg(1).type_list_attr() == "Tout");
}

TEST_CASE("flags, control outputs and the summary land in the OpDef") {
  tf::OpDef op = Finalized(OpDefBuilder("Flags")
                               .SetIsCommutative()
                               .SetIsAggregate()
                               .SetIsStateful()
                               .SetAllowsUninitializedInput()
                               .ControlOutput("done")
                               .Doc("Sets every flag."));
  CHECK(op.name() == "Flags");
  CHECK(op.is_commutative());
  CHECK(op.is_aggregate());
  CHECK(op.is_stateful());
  CHECK(op.allows_uninitialized_input());
  REQUIRE(op.control_output_size() == 1);
  CHECK(op.control_output(0) == "done");
  CHECK(op.summary() == "Sets every flag.");

  tf::OpDef plain = Finalized(OpDefBuilder("Plain"));
  CHECK_FALSE(plain.is_commutative());
  CHECK_FALSE(plain.is_aggregate());
  CHECK_FALSE(plain.is_stateful());
  CHECK_FALSE(plain.allows_uninitialized_input());
}

TEST_CASE("a bad attr spec is an InvalidArgument naming the op and the spec") {
  const char* bad_specs[] = {
      "T type",                 // no colon
      "1T: type",               // not a name
      "T: tensorr",             // no such attr type
      "T: list(tensorr)",       // nor as a list element
      "N: int >= one",          // minimum not a number
      "b: bool = maybe",        // default not a bool
      "i: int = 1.5",           // default not an int
      "strides: list(int) = 3", // list default not a list
      "T: {float, florp}",      // not a data type
      "T: {float, double",      // unterminated
      "t: type = florp",        // default not a data type
  };
  for (const char* spec : bad_specs) {
    INFO(spec);
    Status s = FinalizeError(OpDefBuilder("BadOp").Attr(spec));
    CHECK_THAT(s.message(), Contains("BadOp") && Contains(spec));
  }
}

TEST_CASE("an attr declared twice is an error naming the op and the attr") {
  Status s = FinalizeError(OpDefBuilder("Twice").Attr("T: type").Attr("T: {float}"));
  CHECK_THAT(s.message(), Contains("Twice") && Contains("'T'") && Contains("twice"));
}

TEST_CASE("a bad input or output spec is an InvalidArgument naming the op and the spec") {
  struct Case {
    const char* spec;
    bool output;
  };
  const Case cases[] = {
      {"x T", false},          // no colon
      {"x: U", false},         // U is no attr and no type
      {"x: N", false},         // N is an int attr, not a type
      {"xs: M * T", false},    // M is not declared
      {"xs: T * T", false},    // the count must be an int attr
      {"xs: N * Tin", false},  // a list(type) has its own length
      {"y: Ref(U)", true},
      {"9y: T", true},
  };
  for (const Case& c : cases) {
    INFO(c.spec);
    OpDefBuilder b("BadArgs");
    b.Attr("T: type").Attr("N: int").Attr("Tin: list(type)");
    if (c.output) {
      b.Output(c.spec);
    } else {
      b.Input(c.spec);
    }
    Status s = FinalizeError(b);
    CHECK_THAT(s.message(), Contains("BadArgs") && Contains(c.spec));
    CHECK_THAT(s.message(), Contains(c.output ? "output" : "input"));
  }
}

TEST_CASE("an op name that is not an identifier is an error naming it") {
  Status s = FinalizeError(OpDefBuilder("1Bad-Name"));
  CHECK_THAT(s.message(), Contains("1Bad-Name"));
}

// TensorFlow's OpDefBuilder rejects these; tensoract accepts them today.
TEST_CASE("allowed values mixing strings and types are an error") {
  tf::OpDef op;
  Status s = OpDefBuilder("Mixed").Attr("T: {'SAME', float}").Finalize(&op);
  INFO("allowed values read as " << (op.attr_size() ? op.attr(0).allowed_values().ShortDebugString() : ""));
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("Mixed"));
}

TEST_CASE("a default outside the allowed values or below the minimum is an error") {
  for (const char* spec : {"T: {float, double} = DT_INT32", "padding: {'SAME', 'VALID'} = 'FULL'", "N: int >= 2 = 1"}) {
    INFO(spec);
    tf::OpDef op;
    Status s = OpDefBuilder("BadDefault").Attr(spec).Finalize(&op);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains("BadDefault"));
  }
}

TEST_CASE("looking up an op that is not registered is NotFound naming it") {
  auto op = OpRegistry::Global()->LookUp("NoSuchOpAnywhere");
  REQUIRE_FALSE(op.ok());
  CHECK(op.status().code() == error::NOT_FOUND);
  CHECK_THAT(op.status().message(), Contains("'NoSuchOpAnywhere'"));
}

TEST_CASE("the global registry holds the built-in ops as TensorFlow defines them") {
  std::vector<std::string> names = OpRegistry::Global()->ListOpNames();
  for (const char* op : {"Const", "Placeholder", "Identity", "_Arg", "_Retval", "NoOp", "Add", "AddV2", "Mul",
                         "MatMul"}) {
    INFO(op);
    CHECK(std::find(names.begin(), names.end(), op) != names.end());
    auto def = OpRegistry::Global()->LookUp(op);
    INFO(def.status());
    REQUIRE(def.ok());
    CHECK((*def)->name() == op);
  }
  const tf::OpDef* placeholder = *OpRegistry::Global()->LookUp("Placeholder");
  CHECK(AttrNamed(*placeholder, "shape").default_value().shape().unknown_rank());
  const tf::OpDef* add_v2 = *OpRegistry::Global()->LookUp("AddV2");
  CHECK(add_v2->is_commutative());
  CHECK(add_v2->is_aggregate());
  CHECK((*OpRegistry::Global()->LookUp("_Arg"))->is_stateful());
  const tf::OpDef* matmul = *OpRegistry::Global()->LookUp("MatMul");
  CHECK_FALSE(AttrNamed(*matmul, "transpose_a").default_value().b());
  CHECK(matmul->input_arg_size() == 2);

  tf::OpList exported;
  OpRegistry::Global()->Export(&exported);
  CHECK(exported.op_size() == static_cast<int>(names.size()));
}

TEST_CASE("a registration with a bad spec fails at LookUp, naming the op and the spec") {
  OpRegistry registry;
  registry.Register(OpDefBuilder("Good").Attr("T: type").Output("y: T"));
  registry.Register(OpDefBuilder("Broken").Attr("T: florp"));
  CHECK(registry.LookUp("Good").ok());
  auto broken = registry.LookUp("Broken");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(broken.status().message(), Contains("Broken") && Contains("T: florp"));

  tf::OpList exported;  // only the good ones are exported
  registry.Export(&exported);
  REQUIRE(exported.op_size() == 1);
  CHECK(exported.op(0).name() == "Good");
}

TEST_CASE("registering an op name twice makes its LookUp AlreadyExists") {
  OpRegistry registry;
  registry.Register(OpDefBuilder("Dup").Output("y: float"));
  registry.Register(OpDefBuilder("Dup").Output("y: int32"));
  auto dup = registry.LookUp("Dup");
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.status().code() == error::ALREADY_EXISTS);
  CHECK_THAT(dup.status().message(), Contains("'Dup'"));
}

}  // namespace
}  // namespace tensoract
