// TensorFlow Serving's classify and regress over JSON (bootstrap/serving_examples.h): examples
// to tf.Examples, the signature checks, the results' bodies, and the error texts.
#include <catch2/catch.hpp>

#include "bootstrap/serving_examples.h"
#include "messages/example.pb.h"
#include "tests/bootstrap/serving_test_support.h"

namespace tensoract {
namespace serving {
namespace {

using namespace testing;  // NOLINT: the tests' shared vocabulary

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

TEST_CASE("a feature repeated in an example is the last one written, as TensorFlow Serving takes it") {
  auto t = ExamplesFromJson(Parse(R"({"examples": [{"f": 1, "g": "x", "f": [2, 3]}]})"));
  REQUIRE(t.ok());
  auto example = ParseExample(t->base<std::string>()[0]);
  CHECK(example.features().feature().at("f").int64_list().value_size() == 2);
  CHECK(example.features().feature().at("f").int64_list().value(0) == 2);
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

}  // namespace
}  // namespace serving
}  // namespace tensoract
