// Every message in messages/*.proto survives bytes and text (pbtxt) unchanged, and bytes or
// text that are not such a message are an error naming its type.
//
// These are the forms in which GraphDefs, OpLists and tensors cross into and out of
// tensoract (files written by TensorFlow, a client's RunStep, the wire between tasks), so a
// field lost on the way is a silent wrong answer. The fixtures set every field of every
// message at least once; the last test checks that, so a field added to a .proto without a
// fixture here is noticed.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/message_differencer.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/proto_io.h"
#include "base/status.h"
#include "base/types.h"
#include "tests/messages/fixtures.h"
#include "tests/messages/round_trip_util.h"
#include "messages/attr_value.pb.h"
#include "messages/device_attributes.pb.h"
#include "messages/error_codes.pb.h"
#include "messages/full_type.pb.h"
#include "messages/function.pb.h"
#include "messages/graph.pb.h"
#include "messages/graph_debug_info.pb.h"
#include "messages/node_def.pb.h"
#include "messages/op_def.pb.h"
#include "messages/resource_handle.pb.h"
#include "messages/tensor.pb.h"
#include "messages/tensor_shape.pb.h"
#include "messages/types.pb.h"
#include "messages/versions.pb.h"

namespace tensoract {
namespace {

using namespace testing;  // the fixtures

using Catch::Matchers::Contains;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;
namespace tf = ::tensorflow;


// ---------------------------------------------------------------------------------------
// Round-trip checks.

// Where each top-level field of serialized `bytes` ends. Cutting the bytes there leaves a
// shorter but valid message; cutting anywhere else must fail.
std::set<size_t> FieldEnds(const std::string& bytes) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::set<size_t> ends;
  while (uint32_t tag = in.ReadTag()) {
    uint64_t varint = 0;
    uint32_t length = 0;
    switch (tag & 7) {
      case 0: REQUIRE(in.ReadVarint64(&varint)); break;
      case 1: REQUIRE(in.Skip(8)); break;
      case 2: REQUIRE((in.ReadVarint32(&length) && in.Skip(static_cast<int>(length)))); break;
      case 5: REQUIRE(in.Skip(4)); break;
      default: FAIL("wire type " << (tag & 7) << " in a proto3 message");
    }
    ends.insert(static_cast<size_t>(in.CurrentPosition()));
  }
  return ends;
}

// Bytes of `original` cut short, in the middle of a field and by one byte, are an
// InvalidArgument naming the message type; so is text that is not that message.
void RequireDamagedFormsFail(const Message& original) {
  const std::string type = original.GetTypeName();
  INFO("message type " << type);
  std::string bytes = original.SerializeAsString();
  REQUIRE(bytes.size() >= 2);
  std::set<size_t> ends = FieldEnds(bytes);
  size_t middle = bytes.size() / 2;
  while (ends.count(middle)) ++middle;
  for (size_t cut : {middle, bytes.size() - 1}) {
    INFO("cut to " << cut << " of " << bytes.size() << " bytes");
    std::unique_ptr<Message> m(original.New());
    Status s = ParseBinaryProto(bytes.substr(0, cut), m.get());
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains(type));
  }
  std::unique_ptr<Message> m(original.New());
  Status s = ParseTextProto("this is { not a " + type, m.get());
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains(type));
}

const char* const kProtoFiles[] = {
    "messages/attr_value.proto",  "messages/device_attributes.proto", "messages/error_codes.proto",
    "messages/full_type.proto",   "messages/function.proto",          "messages/graph.proto",
    "messages/graph_debug_info.proto", "messages/node_def.proto",    "messages/op_def.proto",
    "messages/resource_handle.proto",  "messages/tensor.proto",      "messages/tensor_shape.proto",
    "messages/types.proto",       "messages/versions.proto",
};

// ---------------------------------------------------------------------------------------

TEST_CASE("every DataType value, _REF types included, survives in a message field") {
  const auto* values = tf::DataType_descriptor();
  REQUIRE(values->value_count() == 67);  // DT_INVALID, 33 types, 33 reference types
  tf::AttrValue all;
  for (int i = 0; i < values->value_count(); ++i) {
    auto dt = static_cast<tf::DataType>(values->value(i)->number());
    INFO(values->value(i)->name());
    all.mutable_list()->add_type(dt);
    tf::SerializedDType one;
    one.set_datatype(dt);
    tf::AttrValue as_attr;
    as_attr.set_type(dt);
    if (dt != tf::DT_INVALID) {  // DT_INVALID is the default, so it has no bytes
      RequireRoundTrips(one);
      RequireRoundTrips(as_attr);
    }
  }
  RequireRoundTrips(all);
}

TEST_CASE("DataType numbers are TensorFlow's, each reference type 100 above its base type") {
  CHECK(tf::DT_FLOAT == 1);
  CHECK(tf::DT_STRING == 7);
  CHECK(tf::DT_BFLOAT16 == 14);
  CHECK(tf::DT_HALF == 19);
  CHECK(tf::DT_RESOURCE == 20);
  CHECK(tf::DT_VARIANT == 21);
  CHECK(tf::DT_UINT64 == 23);
  CHECK(tf::DT_FLOAT4_E2M1FN == 33);
  const auto* values = tf::DataType_descriptor();
  for (int i = 0; i < values->value_count(); ++i) {
    auto dt = static_cast<tf::DataType>(values->value(i)->number());
    if (dt == tf::DT_INVALID || IsRefType(dt)) continue;
    INFO(values->value(i)->name());
    const auto* ref = values->FindValueByNumber(dt + 100);
    REQUIRE(ref != nullptr);
    CHECK(ref->name() == values->value(i)->name() + "_REF");
    CHECK(MakeRefType(dt) == dt + 100);
    CHECK(BaseType(MakeRefType(dt)) == dt);
  }
}

TEST_CASE("every DataType's short name parses back to it") {
  const auto* values = tf::DataType_descriptor();
  for (int i = 0; i < values->value_count(); ++i) {
    auto dt = static_cast<tf::DataType>(values->value(i)->number());
    if (dt == tf::DT_INVALID) continue;
    std::string name = DataTypeString(dt);
    INFO(values->value(i)->name() << " is called '" << name << "'");
    DataType parsed = tf::DT_INVALID;
    REQUIRE(DataTypeFromString(name, &parsed));
    CHECK(parsed == dt);
    REQUIRE(DataTypeFromString(values->value(i)->name(), &parsed));
    CHECK(parsed == dt);
  }
  CHECK(DataTypeString(tf::DT_FLOAT) == "float");
  CHECK(DataTypeString(tf::DT_INT32_REF) == "int32_ref");
  CHECK(DataTypeString(tf::DT_BFLOAT16) == "bfloat16");
  // Any int32 can arrive as a dtype (a proto3 enum keeps unknown values): named, not
  // recursed on (it once recursed once per 100, overflowing the stack; found by fuzzing).
  CHECK(DataTypeString(static_cast<tf::DataType>(1568000000)) == "unknown dtype 1568000000");
  CHECK(DataTypeString(static_cast<tf::DataType>(-5)) == "unknown dtype -5");
  CHECK(DataTypeString(static_cast<tf::DataType>(250)) == "unknown dtype 250");
}

TEST_CASE("error codes are TensorFlow's numbers and names, and a Status carries each") {
  CHECK(error::OK == 0);
  CHECK(error::CANCELLED == 1);
  CHECK(error::INVALID_ARGUMENT == 3);
  CHECK(error::NOT_FOUND == 5);
  CHECK(error::RESOURCE_EXHAUSTED == 8);
  CHECK(error::INTERNAL == 13);
  CHECK(error::DATA_LOSS == 15);
  CHECK(error::UNAUTHENTICATED == 16);
  const auto* codes = error::Code_descriptor();
  for (int i = 0; i < codes->value_count(); ++i) {
    auto code = static_cast<error::Code>(codes->value(i)->number());
    INFO(codes->value(i)->name());
    error::Code parsed;
    REQUIRE(error::Code_Parse(codes->value(i)->name(), &parsed));
    CHECK(parsed == code);
    CHECK(ErrorCodeName(code) == codes->value(i)->name());
    Status s(code, "what went wrong");
    CHECK(s.code() == code);
    if (code != error::OK) CHECK(s.ToString() == codes->value(i)->name() + ": what went wrong");
  }
}

TEST_CASE("TensorShapeProto with named, unknown (-1) and zero dims round-trips") {
  RequireRoundTrips(NamedPartialShape());
}

TEST_CASE("TensorShapeProto of unknown rank round-trips") { RequireRoundTrips(UnknownRankShape()); }

TEST_CASE("TensorProto round-trips with each typed value field and with tensor_content") {
  for (const auto& [what, tensor] : TypedTensors()) {
    DYNAMIC_SECTION(what) { RequireRoundTrips(tensor); }
  }
}

TEST_CASE("tensor_content keeps non-printable bytes exactly, through text too") {
  tf::TensorProto t;
  t.set_dtype(tf::DT_UINT8);
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte += static_cast<char>(b);
  t.set_tensor_content(every_byte);
  *t.mutable_tensor_shape() = Shape({256});
  tf::TensorProto back;
  REQUIRE(ParseTextProto(ToTextProto(t), &back).ok());
  CHECK(back.tensor_content() == every_byte);
}

TEST_CASE("ResourceHandleProto round-trips with dtypes and shapes") { RequireRoundTrips(Handle()); }

TEST_CASE("AttrValue round-trips in each of its oneof cases") {
  for (const auto& [what, attr] : Attrs()) {
    DYNAMIC_SECTION(what) { RequireRoundTrips(attr); }
  }
}

TEST_CASE("an AttrValue of false or 0 keeps which case it is") {
  tf::AttrValue b;
  b.set_b(false);
  tf::AttrValue back;
  REQUIRE(ParseBinaryProto(b.SerializeAsString(), &back).ok());
  CHECK(back.value_case() == tf::AttrValue::kB);
  tf::AttrValue empty_list;
  empty_list.mutable_list();
  REQUIRE(ParseTextProto(ToTextProto(empty_list), &back).ok());
  CHECK(back.value_case() == tf::AttrValue::kList);
}

TEST_CASE("NameAttrList round-trips with nested functions in its attrs") { RequireRoundTrips(Func()); }

TEST_CASE("FullTypeDef round-trips with nested args and both attr cases") { RequireRoundTrips(FullType()); }

TEST_CASE("NodeDef round-trips with device, debug info and experimental type") { RequireRoundTrips(Node()); }

TEST_CASE("VersionDef round-trips with bad consumers") { RequireRoundTrips(Versions()); }

TEST_CASE("FunctionDef round-trips with signature, attrs, arg attrs, nodes, ret and control ret") {
  RequireRoundTrips(Function());
}

TEST_CASE("GraphDef round-trips with versions, a function library and debug info") {
  RequireRoundTrips(Graph());
}

TEST_CASE("OpDef round-trips with every ArgDef and AttrDef field, deprecation and all flags") {
  RequireRoundTrips(FancyOp());
}

TEST_CASE("every other message round-trips: OpList, DeviceAttributes, GraphDebugInfo, ...") {
  for (const auto& [what, m] : AllFixtures()) {
    DYNAMIC_SECTION(what) { RequireRoundTrips(*m); }
  }
}

TEST_CASE("truncated bytes or garbage text are an InvalidArgument naming the message type") {
  for (const auto& [what, m] : AllFixtures()) {
    if (m->ByteSizeLong() < 2) continue;
    DYNAMIC_SECTION(what) { RequireDamagedFormsFail(*m); }
  }
}

TEST_CASE("a truncated GraphDef is an error naming tensorflow.GraphDef") {
  std::string bytes = Graph().SerializeAsString();
  tf::GraphDef g;
  Status s = ParseBinaryProto(bytes.substr(0, bytes.size() / 2), &g);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("tensorflow.GraphDef"));
}

TEST_CASE("bytes that are no protobuf at all are an error naming the message type") {
  tf::NodeDef n;
  Status s = ParseBinaryProto("\xff\xff\xff\xff", &n);  // field 0 is never valid
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("tensorflow.NodeDef"));
}

TEST_CASE("a text GraphDef with an unknown field is an error naming the type, line and column") {
  tf::GraphDef g;
  Status s = ParseTextProto("node {\n  name: \"a\"\n  opp: \"Const\"\n}\n", &g);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("tensorflow.GraphDef"));
  CHECK_THAT(s.message(), Contains("line 3"));
  CHECK_THAT(s.message(), Contains("opp"));
}

TEST_CASE("a GraphDef written by hand in TensorFlow's pbtxt style parses") {
  const char* text = R"pb(
    # A constant and its identity, as tf.io.write_graph writes them.
    node {
      name: "a"
      op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 2 } }
            float_val: 1
            float_val: 2
          }
        }
      }
    }
    node {
      name: "packed"
      op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 2 } }
            tensor_content: "\000\000\200?\000\000\000@"
          }
        }
      }
    }
    node {
      name: "b"
      op: "Identity"
      input: "a"
      input: "^packed"
      device: "/device:CPU:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    versions { producer: 27 }
  )pb";
  tf::GraphDef g;
  Status s = ParseTextProto(text, &g);
  INFO(s);
  REQUIRE(s.ok());
  REQUIRE(g.node_size() == 3);
  CHECK(g.node(0).name() == "a");
  CHECK(g.node(0).op() == "Const");
  CHECK(g.node(0).attr().at("dtype").type() == tf::DT_FLOAT);
  const tf::TensorProto& value = g.node(0).attr().at("value").tensor();
  CHECK(value.dtype() == tf::DT_FLOAT);
  REQUIRE(value.tensor_shape().dim_size() == 1);
  CHECK(value.tensor_shape().dim(0).size() == 2);
  REQUIRE(value.float_val_size() == 2);
  CHECK(value.float_val(0) == 1.0f);
  CHECK(value.float_val(1) == 2.0f);
  CHECK(g.node(1).attr().at("value").tensor().tensor_content() ==
        std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8));  // 1.0f, 2.0f little-endian
  CHECK(g.node(2).input_size() == 2);
  CHECK(g.node(2).input(1) == "^packed");
  CHECK(g.node(2).device() == "/device:CPU:0");
  CHECK(g.versions().producer() == 27);
}

TEST_CASE("a GraphDef written to .pb and .pbtxt files reads back equal through ReadProto") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("tensoract_round_trip_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const tf::GraphDef original = Graph();
  for (const char* name : {"graph.pb", "graph.pbtxt"}) {
    std::string path = (dir / name).string();
    INFO(path);
    bool text = fs::path(path).extension() == ".pbtxt";
    Status written = text ? WriteTextProto(path, original) : WriteBinaryProto(path, original);
    REQUIRE(written.ok());
    tf::GraphDef back;
    Status read = ReadProto(path, &back);
    INFO(read);
    REQUIRE(read.ok());
    CHECK(MessageDifferencer::Equals(original, back));
    // The other reader on the same file fails, naming the file.
    tf::GraphDef wrong;
    Status mismatched = text ? ReadBinaryProto(path, &wrong) : ReadTextProto(path, &wrong);
    CHECK_FALSE(mismatched.ok());
    CHECK_THAT(mismatched.message(), Contains(path));
  }
  fs::remove_all(dir);
}

TEST_CASE("reading a file that does not exist is NotFound naming the path") {
  tf::GraphDef g;
  Status s = ReadProto("/nonexistent/tensoract/graph.pb", &g);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Contains("/nonexistent/tensoract/graph.pb"));
}

TEST_CASE("the fixtures here set every field of every message in messages/*.proto") {
  std::set<std::string> seen;
  for (const auto& [what, m] : AllFixtures()) CollectSetFields(*m, &seen);
  std::vector<std::string> declared;
  for (const char* file : kProtoFiles) {
    const auto* fd = google::protobuf::DescriptorPool::generated_pool()->FindFileByName(file);
    INFO(file);
    REQUIRE(fd != nullptr);
    for (int i = 0; i < fd->message_type_count(); ++i) CollectDeclaredFields(fd->message_type(i), &declared);
  }
  std::string missing;
  for (const std::string& field : declared) {
    if (!seen.count(field)) missing += field + " ";
  }
  INFO("fields no fixture sets: " << missing);
  CHECK(missing.empty());
}

}  // namespace
}  // namespace tensoract
