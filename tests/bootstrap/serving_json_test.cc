// TensorFlow Serving's JSON conventions (bootstrap/serving_json.h): what a request turns
// into, what a response looks like, and the error text for each way a request goes wrong,
// as tensorflow_serving/util/json_tensor.cc has them.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "bootstrap/serving_json.h"
#include "messages/example.pb.h"

namespace tensoract {
namespace serving {
namespace {

using tensorflow::DT_BOOL;
using tensorflow::DT_DOUBLE;
using tensorflow::DT_FLOAT;
using tensorflow::DT_HALF;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_INT8;
using tensorflow::DT_INVALID;
using tensorflow::DT_STRING;
using tensorflow::DT_UINT64;
using tensorflow::DT_UINT8;

constexpr int kUnknownRank = -2;

// A signature input: dtype and shape (-1 unknown dimension; {kUnknownRank}: unknown rank).
struct In {
  std::string key;
  DataType dtype;
  std::vector<int64_t> dims;
};

tensorflow::SignatureDef Signature(const std::vector<In>& inputs, const std::vector<In>& outputs = {},
                                   const std::string& method = "tensorflow/serving/predict") {
  tensorflow::SignatureDef sig;
  auto fill = [](const In& in, tensorflow::TensorInfo* info) {
    info->set_name(in.key + ":0");
    info->set_dtype(in.dtype);
    if (in.dims.size() == 1 && in.dims[0] == kUnknownRank) {
      info->mutable_tensor_shape()->set_unknown_rank(true);
    } else {
      for (int64_t d : in.dims) info->mutable_tensor_shape()->add_dim()->set_size(d);
    }
  };
  for (const In& in : inputs) fill(in, &(*sig.mutable_inputs())[in.key]);
  for (const In& out : outputs) fill(out, &(*sig.mutable_outputs())[out.key]);
  sig.set_method_name(method);
  return sig;
}

Json Parse(const std::string& body) {
  auto doc = ParseRequestJson(body);
  INFO(body);
  REQUIRE(doc.ok());
  return *doc;
}

std::string ParseError(const std::string& body) {
  auto doc = ParseRequestJson(body);
  INFO(body);
  REQUIRE_FALSE(doc.ok());
  CHECK(doc.status().code() == error::INVALID_ARGUMENT);
  return doc.status().message();
}

StatusOr<PredictInputs> Inputs(const std::string& body, const tensorflow::SignatureDef& sig,
                               const std::string& name = "") {
  return PredictInputsFromJson(Parse(body), sig, name);
}

std::string InputsError(const std::string& body, const tensorflow::SignatureDef& sig) {
  auto inputs = Inputs(body, sig);
  INFO(body);
  REQUIRE_FALSE(inputs.ok());
  return inputs.status().message();
}

template <class T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.base<T>(), t.base<T>() + t.NumElements());
}

// ---------------------------------------------------------------------------------------
// Reading a body.

TEST_CASE("a request body reads NaN and infinities and ignores what follows the object") {
  Json doc = Parse(R"({"a": [NaN, Infinity, -Infinity, Inf, -Inf, -NaN, 1.5]} trailing garbage)");
  const Json& a = doc["a"];
  CHECK(std::isnan(a[0].get<double>()));
  CHECK(a[1].get<double>() == std::numeric_limits<double>::infinity());
  CHECK(a[2].get<double>() == -std::numeric_limits<double>::infinity());
  CHECK(a[3].get<double>() == std::numeric_limits<double>::infinity());
  CHECK(a[4].get<double>() == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(a[5].get<double>()));
  CHECK(a[6].get<double>() == 1.5);
}

TEST_CASE("integers stay integers, anything with a fraction or exponent is a double") {
  Json doc = Parse(R"({"u": 7, "n": -7, "f": 7.0, "e": 7e0, "big": 18446744073709551615,
                       "bigger": 18446744073709551616, "neg": -9223372036854775808})");
  CHECK(doc["u"].type() == Json::value_t::number_unsigned);
  CHECK(doc["n"].type() == Json::value_t::number_integer);
  CHECK(doc["f"].type() == Json::value_t::number_float);
  CHECK(doc["e"].type() == Json::value_t::number_float);
  CHECK(doc["big"].get<uint64_t>() == UINT64_MAX);
  CHECK(doc["bigger"].type() == Json::value_t::number_float);
  CHECK(doc["neg"].get<int64_t>() == INT64_MIN);
}

TEST_CASE("strings keep their bytes and decode escapes and surrogate pairs") {
  Json doc = Parse("{\"s\": \"a\\n\\t\\\"\\\\\\/\\u00e9\\ud83d\\ude00\xff\"}");
  CHECK(doc["s"].get<std::string>() == "a\n\t\"\\/\xc3\xa9\xf0\x9f\x98\x80\xff");
}

TEST_CASE("a repeated key keeps its first value, and members keep their order") {
  Json doc = Parse(R"({"b": 1, "a": 2, "b": 3})");
  CHECK(doc["b"] == 1);
  CHECK(doc.begin().key() == "b");
  CHECK(doc.size() == 2);
}

TEST_CASE("malformed JSON is reported with RapidJSON's text and offset") {
  CHECK(ParseError("") == "JSON Parse error: The document is empty");
  CHECK(ParseError("   ") == "JSON Parse error: The document is empty. at offset: 3");
  CHECK(ParseError("]") == "JSON Parse error: The document is empty. at offset: 0");
  CHECK(ParseError(R"({"a" 1})") == "JSON Parse error: Missing a colon after a name of object member. at offset: 5");
  CHECK(ParseError(R"({"a":1)") == "JSON Parse error: Missing a comma or '}' after an object member. at offset: 6");
  CHECK(ParseError(R"({"a":1,})") == "JSON Parse error: Missing a name for object member. at offset: 7");
  CHECK(ParseError(R"({1:2})") == "JSON Parse error: Missing a name for object member. at offset: 1");
  CHECK(ParseError(R"({"a":[1,]})") == "JSON Parse error: Invalid value. at offset: 8");
  CHECK(ParseError(R"({"a":[1 2]})") == "JSON Parse error: Missing a comma or ']' after an array element. at offset: 8");
  CHECK(ParseError(R"({"a":tru})") == "JSON Parse error: Invalid value. at offset: 8");
  CHECK(ParseError(R"({"a":x})") == "JSON Parse error: Invalid value. at offset: 5");
  CHECK(ParseError(R"({"a":})") == "JSON Parse error: Invalid value. at offset: 5");
  CHECK(ParseError(R"({"a":"abc)") == "JSON Parse error: Missing a closing quotation mark in string. at offset: 9");
  CHECK(ParseError("{\"a\":\"a\x01\"}") == "JSON Parse error: Invalid encoding in string. at offset: 7");
  CHECK(ParseError(R"({"a":"\x"})") == "JSON Parse error: Invalid escape character in string. at offset: 6");
  CHECK(ParseError(R"({"a":"\u12G4"})") ==
        "JSON Parse error: Incorrect hex digit after \\u escape in string. at offset: 6");
  CHECK(ParseError(R"({"a":"\ud800x"})") == "JSON Parse error: The surrogate pair in string is invalid. at offset: 6");
  CHECK(ParseError(R"({"a":1.})") == "JSON Parse error: Miss fraction part in number. at offset: 7");
  CHECK(ParseError(R"({"a":1e})") == "JSON Parse error: Miss exponent in number. at offset: 7");
  CHECK(ParseError(R"({"a":1e999})") == "JSON Parse error: Number too big to be stored in double. at offset: 5");
  CHECK(ParseError(R"({"a":-})") == "JSON Parse error: Invalid value. at offset: 6");
  CHECK(ParseError(R"({"a":Infinit})") == "JSON Parse error: Invalid value. at offset: 12");
  CHECK(ParseError(std::string("{\"a\":1\0}", 8)) ==
        "JSON Parse error: Missing a comma or '}' after an object member. at offset: 6");
}

TEST_CASE("a body that is not an object is refused, quoted") {
  CHECK(ParseError("[1, 2]") == "JSON Value: [1, 2] Is not object");
  CHECK(ParseError("\"x\"") == "JSON Value: \"x\" Is not object");
}

TEST_CASE("nesting is limited so that a hostile body cannot exhaust the stack") {
  std::string deep = "{\"a\":" + std::string(5000, '[') + std::string(5000, ']') + "}";
  CHECK(ParseError(deep).find("Nesting deeper than 1000 levels") != std::string::npos);
  std::string ok = "{\"a\":" + std::string(900, '[') + std::string(900, ']') + "}";
  Parse(ok);
}

TEST_CASE("values are quoted in errors as RapidJSON's pretty writer prints them, cut near 256 bytes") {
  CHECK(JsonDebugString(Parse(R"({"a": [1, 2.5, "x"], "b": {"c": null, "d": true}})")) ==
        "{\n    \"a\": [1, 2.5, \"x\"],\n    \"b\": {\n        \"c\": null,\n        \"d\": true\n    }\n}");
  CHECK(JsonDebugString(Parse(R"({"a": [1.0, 100.0, 0.001, 1e30, 1.5e-7, -0.0, {}, []]})")["a"]) ==
        "[1.0, 100.0, 0.001, 1e30, 1.5e-7, -0.0, {}, []]");
  Json long_list = Json::array();
  for (int i = 0; i < 1000; ++i) long_list.push_back(i);
  const std::string quoted = JsonDebugString(long_list);
  CHECK(quoted.size() >= 256);
  CHECK(quoted.size() < 270);
  CHECK(quoted.rfind("[0, 1, 2", 0) == 0);
}

TEST_CASE("truncated and mutated bodies are errors or requests, never a crash") {
  const std::vector<std::string> bodies = {
      R"({"signature_name": "s", "instances": [{"a": [1, 2], "b": {"b64": "AAH/"}}, {"a": [3, 4], "b": "x"}]})",
      R"({"inputs": {"a": [[1.5e3, -2, NaN]], "b": ["\u00e9\ud83d\ude00"]}})",
      R"({"context": {"k": 1}, "examples": [{"f": [1.5, 2.5], "g": "s", "h": {"b64": "aGk="}}, {"i": true}]})",
  };
  auto sig = Signature({{"a", DT_FLOAT, {kUnknownRank}}, {"b", DT_STRING, {kUnknownRank}}});
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  const std::string alphabet = "{}[]\",:0123456789.eE-+ abtfnNIu\\\x01\xff";
  int parsed = 0;
  auto exercise = [&](const std::string& body) {
    auto doc = ParseRequestJson(body);
    if (!doc.ok()) return;
    ++parsed;
    (void)RequestSignatureName(*doc);
    auto inputs = PredictInputsFromJson(*doc, sig, "");
    if (inputs.ok()) (void)PredictResponseJson(inputs->tensors, inputs->format);
    (void)ExamplesFromJson(*doc);
    (void)JsonDebugString(*doc);
  };
  for (const std::string& body : bodies) {
    for (size_t n = 0; n <= body.size(); ++n) exercise(body.substr(0, n));
    for (int i = 0; i < 3000; ++i) {
      std::string mutated = body;
      for (int k = 1 + next() % 3; k > 0; --k) {
        const size_t at = next() % mutated.size();
        switch (next() % 3) {
          case 0: mutated[at] = alphabet[next() % alphabet.size()]; break;
          case 1: mutated.erase(at, 1); break;
          default: mutated.insert(at, 1, alphabet[next() % alphabet.size()]);
        }
      }
      exercise(mutated);
    }
  }
  CHECK(parsed > 100);
}

// ---------------------------------------------------------------------------------------
// Predict requests.

TEST_CASE("row format with one input stacks the instances along a new batch dimension") {
  auto sig = Signature({{"x", DT_FLOAT, {-1, 2}}});
  auto inputs = Inputs(R"({"instances": [[1, 2], [3.5, -4e1]]})", sig);
  REQUIRE(inputs.ok());
  CHECK(inputs->format == PredictFormat::kRow);
  REQUIRE(inputs->tensors.size() == 1);
  CHECK(inputs->tensors[0].first == "x");
  const Tensor& x = inputs->tensors[0].second;
  CHECK(x.dtype() == DT_FLOAT);
  CHECK(x.shape() == TensorShape({2, 2}));
  CHECK(Values<float>(x) == std::vector<float>{1, 2, 3.5, -40});
}

TEST_CASE("row format with scalar instances gives a vector") {
  auto inputs = Inputs(R"({"instances": [1, 2, 3]})", Signature({{"n", DT_INT64, {-1}}}));
  REQUIRE(inputs.ok());
  CHECK(inputs->tensors[0].second.shape() == TensorShape({3}));
  CHECK(Values<int64_t>(inputs->tensors[0].second) == std::vector<int64_t>{1, 2, 3});
}

TEST_CASE("row format with several inputs takes one object per instance") {
  auto sig = Signature({{"a", DT_FLOAT, {-1, 2}}, {"b", DT_STRING, {-1}}, {"c", DT_BOOL, {-1, 1}}});
  auto inputs = Inputs(R"({"signature_name": "s", "instances": [
      {"a": [1, 2], "b": "one", "c": [true]},
      {"c": [false], "b": {"b64": "AAH/"}, "a": [3, 4]}]})",
                       sig, "s");
  REQUIRE(inputs.ok());
  REQUIRE(inputs->tensors.size() == 3);
  CHECK(inputs->tensors[0].first == "a");
  CHECK(inputs->tensors[0].second.shape() == TensorShape({2, 2}));
  CHECK(Values<float>(inputs->tensors[0].second) == std::vector<float>{1, 2, 3, 4});
  CHECK(inputs->tensors[1].first == "b");
  CHECK(Values<std::string>(inputs->tensors[1].second) == std::vector<std::string>{"one", std::string("\0\1\xff", 3)});
  CHECK(inputs->tensors[2].second.shape() == TensorShape({2, 1}));
  CHECK(Values<bool>(inputs->tensors[2].second) == std::vector<bool>{true, false});
}

TEST_CASE("a b64 object stands for one string value, in rows and columns") {
  auto sig = Signature({{"s", DT_STRING, {kUnknownRank}}});
  auto rows = Inputs(R"({"instances": [{"b64": "aGk="}, {"b64": "aGk"}]})", sig);
  REQUIRE(rows.ok());
  CHECK(Values<std::string>(rows->tensors[0].second) == std::vector<std::string>{"hi", "hi"});
  auto column = Inputs(R"({"inputs": {"b64": "aGk="}})", sig);
  REQUIRE(column.ok());
  CHECK(column->tensors[0].second.shape() == TensorShape({}));
  CHECK(Values<std::string>(column->tensors[0].second) == std::vector<std::string>{"hi"});
}

TEST_CASE("ragged instances are refused with TensorFlow Serving's texts") {
  auto sig = Signature({{"x", DT_FLOAT, {kUnknownRank}}});
  CHECK(InputsError(R"({"instances": [[1, 2], [3]]})", sig) ==
        "Failed to process element: 1 of 'instances' list. Error: INVALID_ARGUMENT: Expecting tensor size: 2 but "
        "got: 1");
  CHECK(InputsError(R"({"instances": [[1, 2], [[3], [4]]]})", sig) ==
        "Failed to process element: 1 of 'instances' list. Error: INVALID_ARGUMENT: Expecting shape [2] but got: "
        "[2,1]");
  CHECK(InputsError(R"({"instances": [[[1, 2], [3]]]})", sig) ==
        "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: Encountered list at unexpected "
        "size: 1 at level: 1 expected size: 2");
  CHECK(InputsError(R"({"instances": [[1, [2]]]})", sig) ==
        "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: Encountered list at unexpected "
        "level: 1 expected < 1");
  CHECK(InputsError(R"({"instances": [[[1], 2]]})", sig) ==
        "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: 2 found at "
        "incorrect level: 2 in the JSON DOM. Expected at level: 2");
}

TEST_CASE("instances must all be objects or all values, with the signature's keys") {
  auto two = Signature({{"a", DT_FLOAT, {-1}}, {"b", DT_FLOAT, {-1}}});
  CHECK(InputsError(R"({"instances": [1, 2]})", two) ==
        "instances is a plain list, but expecting list of objects as multiple input tensors required as per "
        "tensorinfo_map");
  CHECK(InputsError(R"({"instances": [{"a": 1, "b": 2}, [1]]})", two) ==
        "Expecting object but got list at item 1 of input list");
  CHECK(InputsError(R"({"instances": [{"a": 1}]})", two) ==
        "Failed to process element: 0 of 'instances' list. JSON object: {\n    \"a\": 1\n} keys must be equal to: "
        "a,b");
  CHECK(InputsError(R"({"instances": [{"a": 1, "b": 2, "c": 3}]})", two) ==
        "Failed to process element: 0 key: c of 'instances' list. Error: INVALID_ARGUMENT: JSON object: does not "
        "have named input: c");
  auto one = Signature({{"a", DT_FLOAT, {-1}}});
  CHECK(InputsError(R"({"instances": [1, {"a": 2}]})", one) ==
        "Expecting value/list but got object at item 1 of input list");
}

TEST_CASE("columnar format takes each input whole") {
  auto sig = Signature({{"a", DT_INT32, {2, -1}}, {"b", DT_DOUBLE, {}}});
  auto inputs = Inputs(R"({"inputs": {"a": [[1, 2, 3], [4, 5, 6]], "b": 0.25, "ignored": 1}})", sig);
  REQUIRE(inputs.ok());
  CHECK(inputs->format == PredictFormat::kColumnar);
  CHECK(inputs->tensors[0].second.shape() == TensorShape({2, 3}));
  CHECK(Values<int32_t>(inputs->tensors[0].second) == std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  CHECK(inputs->tensors[1].second.shape() == TensorShape({}));
  CHECK(Values<double>(inputs->tensors[1].second) == std::vector<double>{0.25});

  auto single = Inputs(R"({"inputs": [[1, 2]]})", Signature({{"x", DT_FLOAT, {-1, 2}}}));
  REQUIRE(single.ok());
  CHECK(single->tensors[0].second.shape() == TensorShape({1, 2}));
  // An object naming the one input works as well.
  auto named = Inputs(R"({"inputs": {"x": [[1, 2]]}})", Signature({{"x", DT_FLOAT, {-1, 2}}}));
  REQUIRE(named.ok());
  CHECK(named->tensors[0].second.shape() == TensorShape({1, 2}));
  // An empty list is a tensor with no elements.
  auto empty = Inputs(R"({"inputs": [[], []]})", Signature({{"x", DT_FLOAT, {kUnknownRank}}}));
  REQUIRE(empty.ok());
  CHECK(empty->tensors[0].second.shape() == TensorShape({2, 0}));
}

TEST_CASE("columnar errors") {
  auto two = Signature({{"a", DT_FLOAT, {-1}}, {"b", DT_FLOAT, {-1}}});
  CHECK(InputsError(R"({"inputs": [1, 2]})", two) ==
        "inputs is a plain value/list, but expecting an object as multiple input tensors required as per "
        "tensorinfo_map");
  CHECK(InputsError(R"({"inputs": {"a": [1]}})", two) == "Missing named input: b in 'inputs' object.");
}

TEST_CASE("a request without its tensors, or with both layouts, is refused") {
  auto sig = Signature({{"x", DT_FLOAT, {-1}}});
  CHECK(InputsError(R"({"signature_name": "x"})", sig) == "Missing 'inputs' or 'instances' key");
  CHECK(InputsError(R"({"instances": [1], "inputs": [1]})", sig) ==
        "JSON Value: {\n    \"instances\": [1],\n    \"inputs\": [1]\n} Not formatted correctly expecting only one "
        "of 'inputs' or 'instances' keys to exist ");
  CHECK(InputsError(R"({"instances": 1})", sig) ==
        "JSON Value: {\n    \"instances\": 1\n} Expecting 'instances' to be an list/array");
  CHECK(InputsError(R"({"instances": []})", sig) ==
        "JSON Value: {\n    \"instances\": []\n} No values in 'instances' array");
  auto no_inputs = PredictInputsFromJson(Parse(R"({"instances": [1]})"), Signature({}), "");
  REQUIRE_FALSE(no_inputs.ok());
  CHECK(no_inputs.status().message() == "Failed to get input map for signature: DEFAULT");
}

TEST_CASE("signature_name must be a string") {
  auto name = RequestSignatureName(Parse(R"({"signature_name": 3})"));
  REQUIRE_FALSE(name.ok());
  CHECK(name.status().message() ==
        "JSON Value: {\n    \"signature_name\": 3\n} not formatted correctly. 'signature_name' key must be a string "
        "value.");
  CHECK(*RequestSignatureName(Parse(R"({"signature_name": "mine"})")) == "mine");
  CHECK(*RequestSignatureName(Parse(R"({})")) == "");
}

TEST_CASE("each dtype takes only the JSON values TensorFlow Serving takes for it") {
  auto error_for = [](DataType dtype, const std::string& value) {
    auto inputs = Inputs(R"({"inputs": [)" + value + "]}", Signature({{"x", dtype, {-1}}}));
    return inputs.ok() ? std::string("ok") : inputs.status().message();
  };
  CHECK(error_for(DT_INT32, "1.5") == "JSON Value: 1.5 Type: Number is not of expected type: int32");
  // Integral but written as a double: TensorFlow Serving refuses it too.
  CHECK(error_for(DT_INT32, "1.0") == "JSON Value: 1.0 Type: Number is not of expected type: int32");
  CHECK(error_for(DT_INT32, "2147483648") == "JSON Value: 2147483648 Type: Number is not of expected type: int32");
  CHECK(error_for(DT_INT32, "-2147483648") == "ok");
  CHECK(error_for(DT_INT32, "\"1\"") == "JSON Value: \"1\" Type: String is not of expected type: int32");
  CHECK(error_for(DT_UINT8, "255") == "ok");
  CHECK(error_for(DT_UINT8, "256") == "JSON Value: 256 Type: Number is not of expected type: uint8");
  CHECK(error_for(DT_INT8, "-129") == "JSON Value: -129 Type: Number is not of expected type: int8");
  CHECK(error_for(DT_INT64, "9223372036854775807") == "ok");
  CHECK(error_for(DT_INT64, "9223372036854775808") ==
        "JSON Value: 9223372036854775808 Type: Number is not of expected type: int64");
  CHECK(error_for(DT_UINT64, "18446744073709551615") == "ok");
  CHECK(error_for(DT_UINT64, "-1") == "JSON Value: -1 Type: Number is not of expected type: uint64");
  CHECK(error_for(DT_FLOAT, "true") == "JSON Value: true Type: True is not of expected type: float");
  CHECK(error_for(DT_FLOAT, "null") == "JSON Value: null Type: Null is not of expected type: float");
  CHECK(error_for(DT_FLOAT, "NaN") == "ok");
  CHECK(error_for(DT_FLOAT, "{\"b64\": \"AA==\"}") ==
        "JSON Value: {\n    \"b64\": \"AA==\"\n} Type: Object is not of expected type: float");
  CHECK(error_for(DT_BOOL, "1") == "JSON Value: 1 Type: Number is not of expected type: bool");
  CHECK(error_for(DT_BOOL, "false") == "ok");
  CHECK(error_for(DT_STRING, "1") == "JSON Value: 1 Type: Number is not of expected type: string");
  CHECK(error_for(DT_STRING, "{\"b64\": \"A\"}") == "Unable to base64 decode");
  CHECK(error_for(DT_STRING, "{\"b64\": \"AA==\", \"x\": 1}") ==
        "JSON Value: {\n    \"b64\": \"AA==\",\n    \"x\": 1\n} not formatted correctly for base64 data");
  auto half = Inputs(R"({"inputs": [1]})", Signature({{"x", DT_HALF, {-1}}}));
  REQUIRE_FALSE(half.ok());
  CHECK(half.status().code() == error::UNIMPLEMENTED);
  CHECK(half.status().message() == "Conversion of JSON Value: 1 to type: half");
}

TEST_CASE("numbers convert to the signature's dtype") {
  auto f = Inputs(R"({"inputs": [1, -2, 0.1, 1e-3, 16777217]})", Signature({{"x", DT_FLOAT, {-1}}}));
  REQUIRE(f.ok());
  CHECK(Values<float>(f->tensors[0].second) == std::vector<float>{1, -2, 0.1f, 1e-3f, 16777216.0f});
  auto d = Inputs(R"({"inputs": [0.1, 3]})", Signature({{"x", DT_DOUBLE, {-1}}}));
  REQUIRE(d.ok());
  CHECK(Values<double>(d->tensors[0].second) == std::vector<double>{0.1, 3});
  auto u8 = Inputs(R"({"inputs": [0, 255]})", Signature({{"x", DT_UINT8, {-1}}}));
  REQUIRE(u8.ok());
  CHECK(Values<uint8_t>(u8->tensors[0].second) == std::vector<uint8_t>{0, 255});
  auto i8 = Inputs(R"({"inputs": [-128, 127]})", Signature({{"x", DT_INT8, {-1}}}));
  REQUIRE(i8.ok());
  CHECK(Values<int8_t>(i8->tensors[0].second) == std::vector<int8_t>{-128, 127});
}

TEST_CASE("a tensor whose shape the signature does not accept is refused before anything runs") {
  auto sig = Signature({{"x", DT_FLOAT, {-1, 4}}});
  CHECK(InputsError(R"({"instances": [[1, 2, 3]]})", sig) ==
        "input 'x' has shape [1,3] but signature 'serving_default' wants [?,4]");
  CHECK(InputsError(R"({"inputs": [1, 2, 3, 4]})", sig) ==
        "input 'x' has shape [4] but signature 'serving_default' wants [?,4]");
  auto named = PredictInputsFromJson(Parse(R"({"instances": [[1]]})"), sig, "other");
  REQUIRE_FALSE(named.ok());
  CHECK(named.status().message() == "input 'x' has shape [1,1] but signature 'other' wants [?,4]");
  CHECK(Inputs(R"({"instances": [[1, 2, 3, 4]]})", sig).ok());
}

TEST_CASE("a predict request must give every input the signature has no default for") {
  auto sig = Signature({{"a", DT_FLOAT, {-1}}, {"b", DT_FLOAT, {-1}}});
  Tensor t = Tensor::FromVector<float>({1});
  Status s = CheckPredictInputsCount(sig, {{"a", t}});
  CHECK(s.message() == "input size does not match signature: 1!=2 len({a}) != len({a,b}). Sent extra: {}. Missing "
                       "but required: {b}.");
  CHECK(CheckPredictInputsCount(sig, {{"a", t}, {"b", t}}).ok());
  (*sig.mutable_defaults())["b"].set_dtype(DT_FLOAT);
  CHECK(CheckPredictInputsCount(sig, {{"a", t}}).ok());
}

// ---------------------------------------------------------------------------------------
// Predict responses.

TEST_CASE("floats are written to read back exactly, whole ones with .0, and NaN as TensorFlow Serving does") {
  CHECK(FormatJsonFloat(0.1f) == "0.1");
  CHECK(FormatJsonFloat(3.0f) == "3.0");
  CHECK(FormatJsonFloat(-0.0f) == "-0.0");
  CHECK(FormatJsonFloat(1e-5f) == "1e-05");
  CHECK(FormatJsonFloat(9000000.0f) == "9e+06");
  CHECK(FormatJsonFloat(1.0f / 3.0f) == "0.333333343");
  CHECK(FormatJsonFloat(16777216.0f) == "16777216.0");
  CHECK(FormatJsonFloat(std::numeric_limits<float>::quiet_NaN()) == "NaN");
  CHECK(FormatJsonFloat(std::numeric_limits<float>::infinity()) == "Infinity");
  CHECK(FormatJsonFloat(-std::numeric_limits<float>::infinity()) == "-Infinity");
  CHECK(FormatJsonDouble(0.1) == "0.1");
  CHECK(FormatJsonDouble(1.0 / 3.0) == "0.33333333333333331");
  for (float v : {1.17549435e-38f, 3.40282347e+38f, 1e-45f, 123456.789f, -2.5e-20f}) {
    CHECK(std::strtof(FormatJsonFloat(v).c_str(), nullptr) == v);
  }
}

TEST_CASE("row format responses list each example's values, or an object of them") {
  Tensor y = Tensor::FromVector<float>({1, 2.5f, 3, 4}, TensorShape({2, 2}));
  auto one = PredictResponseJson({{"y", y}}, PredictFormat::kRow);
  REQUIRE(one.ok());
  CHECK(*one == "{\n    \"predictions\": [[1.0, 2.5], [3.0, 4.0]\n    ]\n}");

  Tensor k = Tensor::FromVector<int64_t>({7, 8});
  auto two = PredictResponseJson({{"k", k}, {"y", y}}, PredictFormat::kRow);
  REQUIRE(two.ok());
  Json parsed = Parse(*two);
  CHECK(parsed["predictions"][0]["k"] == 7);
  CHECK(parsed["predictions"][1]["y"][1] == 4.0);
}

TEST_CASE("columnar responses give each output whole") {
  Tensor y = Tensor::FromVector<double>({0.5, 1}, TensorShape({2, 1}));
  auto one = PredictResponseJson({{"y", y}}, PredictFormat::kColumnar);
  REQUIRE(one.ok());
  CHECK(*one ==
        "{\n    \"outputs\": [\n        [\n            0.5\n        ],\n        [\n            1.0\n        ]\n    ]\n}");
  Tensor s = Tensor::Scalar<int32_t>(3);
  auto two = PredictResponseJson({{"s", s}, {"y", y}}, PredictFormat::kColumnar);
  REQUIRE(two.ok());
  Json parsed = Parse(*two);
  CHECK(parsed["outputs"]["s"] == 3);
  CHECK(parsed["outputs"]["y"][1][0] == 1.0);
}

TEST_CASE("every output dtype TensorFlow Serving writes, and its bytes convention") {
  std::vector<std::pair<std::string, Tensor>> outputs = {
      {"b", Tensor::FromVector<bool>({true, false})},
      {"i8", Tensor::FromVector<int8_t>({-1, 2})},
      {"s", Tensor::FromVector<std::string>({"caf\xc3\xa9", "q\"\n"})},
      {"s_bytes", Tensor::FromVector<std::string>({std::string("\0\xff", 2), "hi"})},
      {"u64", Tensor::FromVector<uint64_t>({UINT64_MAX, 0})},
      {"z", Tensor::FromVector<float>({std::nanf(""), -std::numeric_limits<float>::infinity()})},
  };
  auto json = PredictResponseJson(outputs, PredictFormat::kRow);
  REQUIRE(json.ok());
  // Our own reader takes back what we wrote, NaN included.
  Json parsed = Parse(*json);
  const Json& first = parsed["predictions"][0];
  CHECK(first["b"] == true);
  CHECK(first["i8"] == -1);
  CHECK(first["s"] == "caf\xc3\xa9");
  CHECK(first["s_bytes"]["b64"] == "AP8=");
  CHECK(first["u64"].get<uint64_t>() == UINT64_MAX);
  CHECK(std::isnan(first["z"].get<double>()));
  CHECK(parsed["predictions"][1]["s"] == "q\"\n");
  CHECK(parsed["predictions"][1]["z"].get<double>() == -std::numeric_limits<double>::infinity());

  Tensor half(DT_HALF, TensorShape({1}));
  auto unsupported = PredictResponseJson({{"h", half}}, PredictFormat::kRow);
  REQUIRE_FALSE(unsupported.ok());
  CHECK(unsupported.status().message() == "Failed to write JSON value for tensor type: half");
}

TEST_CASE("row format needs a batch dimension that every output shares") {
  auto scalar = PredictResponseJson({{"s", Tensor::Scalar<float>(1)}}, PredictFormat::kRow);
  REQUIRE_FALSE(scalar.ok());
  CHECK(scalar.status().message() == "Tensor name: s has no shape information ");
  auto mixed = PredictResponseJson({{"a", Tensor::FromVector<float>({1, 2})}, {"b", Tensor::FromVector<float>({1})}},
                                   PredictFormat::kRow);
  REQUIRE_FALSE(mixed.ok());
  CHECK(mixed.status().message() == "Tensor name: b has inconsistent batch size: 1 expecting: 2");
  auto none = PredictResponseJson({}, PredictFormat::kRow);
  CHECK(none.status().message() == "Cannot convert empty tensor map to JSON");
  auto empty_batch = PredictResponseJson({{"a", Tensor(DT_FLOAT, TensorShape({0, 3}))}}, PredictFormat::kRow);
  REQUIRE(empty_batch.ok());
  CHECK(Parse(*empty_batch)["predictions"].empty());
}

// ---------------------------------------------------------------------------------------
// Classify and regress.

tensorflow::Example ParseExample(const std::string& bytes) {
  tensorflow::Example e;
  REQUIRE(e.ParseFromString(bytes));
  return e;
}

TEST_CASE("examples become serialized tf.Examples, with the context merged into each") {
  auto t = ExamplesFromJson(Parse(R"({
      "context": {"lang": "en", "weight": 0.5},
      "examples": [{"age": 30, "tags": ["a", {"b64": "Yg=="}], "score": [1.5, 2e0], "ok": true, "lang": "fr"},
                   {"empty": []}]})"));
  REQUIRE(t.ok());
  CHECK(t->dtype() == DT_STRING);
  REQUIRE(t->shape() == TensorShape({2}));
  auto first = ParseExample(t->base<std::string>()[0]);
  const auto& f = first.features().feature();
  CHECK(f.at("age").int64_list().value(0) == 30);
  CHECK(f.at("tags").bytes_list().value(0) == "a");
  CHECK(f.at("tags").bytes_list().value(1) == "b");
  CHECK(f.at("score").float_list().value(1) == 2.0f);
  CHECK(f.at("ok").int64_list().value(0) == 1);
  CHECK(f.at("lang").bytes_list().value(0) == "fr");  // the example's own value wins
  CHECK(f.at("weight").float_list().value(0) == 0.5f);
  auto second = ParseExample(t->base<std::string>()[1]);
  CHECK(second.features().feature().at("lang").bytes_list().value(0) == "en");
  CHECK(second.features().feature().at("empty").kind_case() == tensorflow::Feature::KIND_NOT_SET);
}

TEST_CASE("bad examples are refused with TensorFlow Serving's texts") {
  auto error_of = [](const std::string& body) {
    auto t = ExamplesFromJson(Parse(body));
    return t.ok() ? std::string("ok") : t.status().message();
  };
  CHECK(error_of(R"({"x": 1})") ==
        "JSON Value: {\n    \"x\": 1\n} When method is classify, key 'examples' is expected and was not found");
  CHECK(error_of(R"({"examples": {}})") ==
        "JSON Value: {\n    \"examples\": {}\n} Expecting 'examples' value to be an list/array");
  CHECK(error_of(R"({"examples": []})") == "JSON Value: {\n    \"examples\": []\n} 'examples' value is an empty array");
  CHECK(error_of(R"({"examples": [1]})") == "Example must be JSON object but got JSON Number");
  CHECK(error_of(R"({"examples": [{"f": null}]})") == "Feature: f has element with unexpected JSON type: Null");
  CHECK(error_of(R"({"examples": [{"f": [[1]]}]})") == "Feature: f has element with unexpected JSON type: Array");
  CHECK(error_of(R"({"examples": [{"f": {"x": 1}}]})") == "Feature: f has element with unexpected JSON type: Object");
  CHECK(error_of(R"({"examples": [{"f": [1.5, 2]}]})") == "Unexpected element type in feature: f expecting type: float");
  CHECK(error_of(R"({"examples": [{"f": ["a", 2]}]})") == "Unexpected element type in feature: f expecting type: bytes");
  CHECK(error_of(R"({"examples": [{"f": 18446744073709551615}]})") ==
        "Feature: f has uint64_t element. Only int64_t is supported.");
  CHECK(error_of(R"({"context": [1], "examples": [{}]})") == "Example must be JSON object but got JSON Array");
}

TEST_CASE("classification and regression signatures are checked as TensorFlow Serving checks them") {
  auto classify = Signature({{"inputs", DT_STRING, {-1}}}, {{"classes", DT_STRING, {-1, 3}}, {"scores", DT_FLOAT, {-1, 3}}},
                            "tensorflow/serving/classify");
  CHECK(CheckClassifySignature(classify, true).ok());
  auto predict = Signature({{"x", DT_FLOAT, {-1}}}, {{"y", DT_FLOAT, {-1}}});
  CHECK(CheckClassifySignature(predict, true).message() ==
        "Expected classification signature method_name to be tensorflow/serving/classify. Was: "
        "tensorflow/serving/predict");
  CHECK(CheckRegressSignature(predict, true).message() ==
        "Expected regression signature method_name to be tensorflow/serving/regress. Was: tensorflow/serving/predict");
  // Without the method name check (TensorFlow Serving's default), the shape decides.
  CHECK(CheckClassifySignature(predict, false).message().rfind("No classification inputs found in SignatureDef: ", 0) ==
        0);
  CHECK(CheckRegressSignature(predict, false).message().rfind("No regression inputs found in SignatureDef: ", 0) == 0);
  auto two_inputs = Signature({{"a", DT_FLOAT, {-1}}, {"b", DT_FLOAT, {-1}}}, {{"y", DT_FLOAT, {-1}}});
  CHECK(CheckClassifySignature(two_inputs, false).message() == "Expected one input Tensor.");
  auto no_outputs = Signature({{"inputs", DT_STRING, {-1}}}, {{"y", DT_FLOAT, {-1}}});
  CHECK(CheckClassifySignature(no_outputs, false).message().rfind(
            "Expected classification signature outputs to contain at least one of \"classes\" or \"scores\".", 0) ==
        0);
  CHECK(CheckRegressSignature(no_outputs, false).message().rfind("No regression outputs found in SignatureDef: ", 0) ==
        0);
  auto regress = Signature({{"inputs", DT_STRING, {-1}}}, {{"outputs", DT_FLOAT, {-1}}}, "tensorflow/serving/regress");
  CHECK(CheckRegressSignature(regress, true).ok());
  CHECK(CheckRegressSignature(classify, false).message() == "Expected one output Tensor.");
}

TEST_CASE("classification results pair each label with its score") {
  Tensor classes = Tensor::FromVector<std::string>({"cat", "dog", "cat", "dog"}, TensorShape({2, 2}));
  Tensor scores = Tensor::FromVector<float>({0.75f, 0.25f, 0.1f, 0.9f}, TensorShape({2, 2}));
  auto json = ClassifyResponseJson(&classes, &scores, 2);
  REQUIRE(json.ok());
  CHECK(*json ==
        "{\n    \"results\": [[[\"cat\", 0.75], [\"dog\", 0.25]], [[\"cat\", 0.1], [\"dog\", 0.9]]\n    ]\n}");
  auto scores_only = ClassifyResponseJson(nullptr, &scores, 2);
  REQUIRE(scores_only.ok());
  CHECK(Parse(*scores_only)["results"][1][1][0] == "");

  CHECK(ClassifyResponseJson(&classes, &scores, 3).status().message() ==
        "Expected classes output batch size of 3. Got: 2");
  Tensor flat = Tensor::FromVector<float>({1, 2});
  CHECK(ClassifyResponseJson(nullptr, &flat, 2).status().message() ==
        "Expected Tensor shape: [batch_size num_classes] but got [2]");
  CHECK(ClassifyResponseJson(&scores, nullptr, 2).status().message() ==
        "Expected classes Tensor of DT_STRING. Got: DT_FLOAT");
  Tensor three = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  CHECK(ClassifyResponseJson(&classes, &three, 2).status().message() ==
        "Tensors class and score should match in dim_size(1). Got 2 vs. 3");
}

TEST_CASE("regression results are one value per example") {
  Tensor values = Tensor::FromVector<float>({1.5f, -2}, TensorShape({2, 1}));
  auto json = RegressResponseJson(values, 2);
  REQUIRE(json.ok());
  CHECK(*json == "{\n    \"results\": [1.5, -2.0]\n}");
  CHECK(RegressResponseJson(Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})), 2).status().message() ==
        "Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but got [2,2]");
  CHECK(RegressResponseJson(values, 3).status().message() == "Input batch size did not match output batch size: 3 vs. 2");
  CHECK(RegressResponseJson(Tensor::FromVector<double>({1, 2}), 2).status().message() ==
        "Expected output Tensor of DT_FLOAT.  Got: DT_DOUBLE");
}

// ---------------------------------------------------------------------------------------
// Status, metadata, errors.

TEST_CASE("model status lists each version with its state and error") {
  std::string json = ModelStatusJson({{3, "AVAILABLE", Status::OK()},
                                      {2, "END", errors::NotFound("no saved_model.pb")}});
  Json parsed = Json::parse(json);
  REQUIRE(parsed["model_version_status"].size() == 2);
  const Json& v3 = parsed["model_version_status"][0];
  CHECK(v3["version"] == "3");
  CHECK(v3["state"] == "AVAILABLE");
  CHECK(v3["status"]["error_code"] == "OK");
  CHECK(v3["status"]["error_message"] == "");
  const Json& v2 = parsed["model_version_status"][1];
  CHECK(v2["state"] == "END");
  CHECK(v2["status"]["error_code"] == "NOT_FOUND");
  CHECK(v2["status"]["error_message"] == "no saved_model.pb");
}

TEST_CASE("model metadata gives every signature as protobuf's JSON with TensorFlow's field names") {
  tensorflow::MetaGraphDef meta;
  (*meta.mutable_signature_def())["serving_default"] =
      Signature({{"x", DT_FLOAT, {-1, 4}}}, {{"y", DT_INT64, {kUnknownRank}}});
  (*meta.mutable_signature_def())["__saved_model_init_op"] = Signature({}, {{"__saved_model_init_op", DT_INVALID, {}}});
  auto json = ModelMetadataJson("mlp", 7, meta);
  REQUIRE(json.ok());
  Json parsed = Json::parse(*json);
  CHECK(parsed["model_spec"]["name"] == "mlp");
  CHECK(parsed["model_spec"]["version"] == "7");
  CHECK(parsed["model_spec"]["signature_name"] == "");
  const Json& sigs = parsed["metadata"]["signature_def"]["signature_def"];
  CHECK(sigs.size() == 2);
  const Json& x = sigs["serving_default"]["inputs"]["x"];
  CHECK(x["dtype"] == "DT_FLOAT");
  CHECK(x["name"] == "x:0");
  CHECK(x["tensor_shape"]["dim"][0]["size"] == "-1");
  CHECK(x["tensor_shape"]["dim"][1]["size"] == "4");
  CHECK(x["tensor_shape"]["unknown_rank"] == false);
  CHECK(sigs["serving_default"]["outputs"]["y"]["tensor_shape"]["unknown_rank"] == true);
  CHECK(sigs["serving_default"]["method_name"] == "tensorflow/serving/predict");
}

TEST_CASE("errors are {\"error\": message} with TensorFlow Serving's HTTP status for the code") {
  CHECK(ErrorJson(errors::InvalidArgument("bad \"x\"")) == "{\n    \"error\": \"bad \\\"x\\\"\"\n}");
  CHECK(HttpStatusFor(Status::OK()) == 200);
  CHECK(HttpStatusFor(errors::InvalidArgument("")) == 400);
  CHECK(HttpStatusFor(errors::FailedPrecondition("")) == 400);
  CHECK(HttpStatusFor(errors::OutOfRange("")) == 400);
  CHECK(HttpStatusFor(errors::NotFound("")) == 404);
  CHECK(HttpStatusFor(errors::DeadlineExceeded("")) == 504);
  CHECK(HttpStatusFor(errors::ResourceExhausted("")) == 429);
  CHECK(HttpStatusFor(errors::Unimplemented("")) == 501);
  CHECK(HttpStatusFor(errors::Unavailable("")) == 503);
  CHECK(HttpStatusFor(errors::Internal("")) == 500);
  CHECK(HttpStatusFor(errors::Cancelled("")) == 499);
  CHECK(HttpStatusFor(errors::Aborted("")) == 409);
  CHECK(HttpStatusFor(errors::Unauthenticated("")) == 401);
  CHECK(HttpStatusFor(errors::PermissionDenied("")) == 403);
}

TEST_CASE("base64 both ways, padding optional and whitespace skipped as absl does") {
  CHECK(Base64Encode("") == "");
  CHECK(Base64Encode("f") == "Zg==");
  CHECK(Base64Encode("fo") == "Zm8=");
  CHECK(Base64Encode("foo") == "Zm9v");
  CHECK(Base64Encode(std::string("\0\xff\xfe", 3)) == "AP/+");
  std::string out;
  CHECK(Base64Decode("Zm9vYg==", &out));
  CHECK(out == "foob");
  CHECK(Base64Decode("Zm9vYg", &out));
  CHECK(out == "foob");
  CHECK(Base64Decode("Zm9v\nYmE=", &out));
  CHECK(out == "fooba");
  CHECK_FALSE(Base64Decode("Zm9vY", &out));
  CHECK_FALSE(Base64Decode("Zm9v*", &out));
  CHECK_FALSE(Base64Decode("Zg==Zg==", &out));
  CHECK_FALSE(Base64Decode("Zg=", &out));
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  CHECK(Base64Decode(Base64Encode(all), &out));
  CHECK(out == all);
}

}  // namespace
}  // namespace serving
}  // namespace tensoract
