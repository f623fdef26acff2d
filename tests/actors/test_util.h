// Helpers shared by the runtime tests.
#ifndef TENSORACT_TESTS_ACTORS_TEST_UTIL_H_
#define TENSORACT_TESTS_ACTORS_TEST_UTIL_H_

#include <cstdlib>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "actors/session.h"
#include "base/proto_io.h"

namespace tensoract {
namespace testing {

// A file under tests/data (ctest sets TENSORACT_TEST_DATA).
inline std::string DataPath(const std::string& name) {
  const char* dir = std::getenv("TENSORACT_TEST_DATA");
  return std::string(dir ? dir : "tests/data") + "/" + name;
}

inline std::vector<float> Values(const Tensor& t) {
  const float* p = t.base<float>();
  return std::vector<float>(p, p + t.NumElements());
}

inline std::unique_ptr<Session> NewSessionWith(const tensorflow::GraphDef& graph, SessionOptions options = {}) {
  auto session = Session::New(options);
  REQUIRE(session.ok());
  Status s = (*session)->Create(graph);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return std::move(session).value();
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_ACTORS_TEST_UTIL_H_
