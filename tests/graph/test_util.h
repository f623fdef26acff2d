// Helpers shared by the graph-layer tests.
#ifndef TENSORACT_TESTS_GRAPH_TEST_UTIL_H_
#define TENSORACT_TESTS_GRAPH_TEST_UTIL_H_

#include <string>

#include <catch2/catch.hpp>

#include "base/proto_io.h"

namespace tensoract {
namespace testing {

// The message of type M written as `text` (pbtxt); fails the test if it does not parse.
template <class M>
M FromText(const std::string& text) {
  M message;
  Status s = ParseTextProto(text, &message);
  INFO(s);
  REQUIRE(s.ok());
  return message;
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_GRAPH_TEST_UTIL_H_
