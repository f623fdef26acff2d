// TensorFlow Serving's predict over JSON (bootstrap/serving_json.h): what a request turns
// into, what a response looks like, and the error text for each way a request goes wrong,
// as tensorflow_serving/util/json_tensor.cc has them.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "bootstrap/serving_json.h"
#include "tests/bootstrap/serving_test_support.h"

namespace tensoract {
namespace serving {
namespace {

using namespace testing;  // NOLINT: the tests' shared vocabulary

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

TEST_CASE("a key repeated in an instance counts once, the first") {
  auto sig = Signature({{"a", DT_FLOAT, {-1, 2}}});
  auto inputs = Inputs(R"({"instances": [{"a": [1, 2], "a": [5, 6]}, {"a": [3, 4]}]})", sig);
  REQUIRE(inputs.ok());
  CHECK(Values<float>(inputs->tensors[0].second) == std::vector<float>{1, 2, 3, 4});
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
  // Each example's object opens on a line of its own, its values on one line.
  CHECK(*two ==
        "{\n    \"predictions\": [\n        {\n            \"k\": 7,\n            \"y\": [1.0, 2.5]\n        },\n"
        "        {\n            \"k\": 8,\n            \"y\": [3.0, 4.0]\n        }\n    ]\n}");
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
  const rapidjson::Value& first = parsed["predictions"][0];
  CHECK(first["b"] == true);
  CHECK(first["i8"] == -1);
  CHECK(first["s"] == "caf\xc3\xa9");
  CHECK(first["s_bytes"]["b64"] == "AP8=");
  CHECK(first["u64"].GetUint64() == UINT64_MAX);
  CHECK(std::isnan(first["z"].GetDouble()));
  CHECK(parsed["predictions"][1]["s"] == "q\"\n");
  CHECK(parsed["predictions"][1]["z"].GetDouble() == -std::numeric_limits<double>::infinity());

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
  CHECK(Parse(*empty_batch)["predictions"].Empty());
}

}  // namespace
}  // namespace serving
}  // namespace tensoract
