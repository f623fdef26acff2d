// The REST paths taken apart as TensorFlow Serving's regular expressions take them
// (bootstrap/serving_routes.h); what each route answers is model_server_test.cc's.
#include <catch2/catch.hpp>

#include "bootstrap/serving_routes.h"

namespace tensoract::serving {
namespace {

TEST_CASE("prediction paths give the model, the version or label and the verb", "[serving][routes]") {
  auto r = ParseRoute("POST", "/v1/models/mnist:predict");
  REQUIRE(r.ok());
  CHECK(r->name == "mnist");
  CHECK(!r->version);
  CHECK(!r->label);
  CHECK(r->verb == "predict");

  r = ParseRoute("POST", "/V1/Models/mnist/Versions/12:Classify");
  REQUIRE(r.ok());
  CHECK(r->version == 12);
  CHECK(r->verb == "Classify");  // as written: only the lower-case verbs are answered

  r = ParseRoute("POST", "/v1/models/mnist/labels/stable:regress");
  REQUIRE(r.ok());
  CHECK(r->label == "stable");
}

TEST_CASE("status paths: the name is optional and metadata a subresource", "[serving][routes]") {
  auto r = ParseRoute("GET", "/v1/models/mnist/versions/3/metadata");
  REQUIRE(r.ok());
  CHECK(r->name == "mnist");
  CHECK(r->version == 3);
  CHECK(r->subresource == "metadata");

  r = ParseRoute("GET", "/v1/models/versions/3");  // no name: version 3 of no model
  REQUIRE(r.ok());
  CHECK(r->name.empty());
  CHECK(r->version == 3);

  r = ParseRoute("GET", "/v1/models/versions");  // "versions" as a name
  REQUIRE(r.ok());
  CHECK(r->name == "versions");
}

TEST_CASE("paths that do not match are refused as TensorFlow Serving refuses them", "[serving][routes]") {
  CHECK(ParseRoute("GET", "/v2/models/m").status().code() == error::NOT_FOUND);
  auto bad = ParseRoute("POST", "/v1/models/m");
  CHECK(bad.status().code() == error::INVALID_ARGUMENT);
  CHECK(bad.status().message() == "Malformed request: POST /v1/models/m");
  CHECK(ParseRoute("POST", "/v1/models/m:explain").status().message() == "Malformed request: POST /v1/models/m:explain");
  CHECK(ParseRoute("DELETE", "/v1/models/m").status().code() == error::INVALID_ARGUMENT);
  CHECK(ParseRoute("GET", "/v1/models/m/versions/99999999999999999999").status().message() ==
        "Failed to convert version: 99999999999999999999 to numeric.");
  // A path of the client's choosing costs linear time (no backtracking regex).
  std::string long_path = "/v1/models/" + std::string(1 << 20, 'a') + ":predict";
  CHECK(ParseRoute("POST", long_path).ok());
}

}  // namespace
}  // namespace tensoract::serving
