// What the server says about its model and about failures (bootstrap/serving_status.h):
// model status, metadata, error bodies and their HTTP status.
#include <catch2/catch.hpp>

#include "bootstrap/serving_status.h"
#include "tests/bootstrap/serving_test_support.h"

namespace tensoract {
namespace serving {
namespace {

using namespace testing;  // NOLINT: the tests' shared vocabulary

TEST_CASE("model status lists each version with its state and error") {
  std::string json = ModelStatusJson({{3, "AVAILABLE", Status::OK()},
                                      {2, "END", errors::NotFound("no saved_model.pb")}});
  Json parsed = JsonOf(json);
  REQUIRE(parsed["model_version_status"].Size() == 2);
  const rapidjson::Value& v3 = parsed["model_version_status"][0];
  CHECK(v3["version"] == "3");
  CHECK(v3["state"] == "AVAILABLE");
  CHECK(v3["status"]["error_code"] == "OK");
  CHECK(v3["status"]["error_message"] == "");
  const rapidjson::Value& v2 = parsed["model_version_status"][1];
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
  Json parsed = JsonOf(*json);
  CHECK(parsed["model_spec"]["name"] == "mlp");
  CHECK(parsed["model_spec"]["version"] == "7");
  CHECK(parsed["model_spec"]["signature_name"] == "");
  const rapidjson::Value& sigs = parsed["metadata"]["signature_def"]["signature_def"];
  CHECK(sigs.MemberCount() == 2);
  const rapidjson::Value& x = sigs["serving_default"]["inputs"]["x"];
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

}  // namespace
}  // namespace serving
}  // namespace tensoract
