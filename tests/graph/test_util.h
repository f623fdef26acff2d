// Helpers shared by the graph-layer tests (and the actors' tests of loops).
#ifndef TENSORACT_TESTS_GRAPH_TEST_UTIL_H_
#define TENSORACT_TESTS_GRAPH_TEST_UTIL_H_

#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/proto_io.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

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

// The next values of a counted loop's variables from theirs.
using CountedBody = std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>;

// The exits of while (in[0] < n) in = body(in), from `init` (in[0] an int32 counter that the
// body advances), built in `root` as loop `name`.
inline std::vector<Output> CountedLoop(const Scope& root, const Output& n, const std::vector<Output>& init,
                                       const CountedBody& body, const std::string& name = "while",
                                       int64_t parallel_iterations = 10) {
  std::vector<Output> out;
  ops::WhileLoopOptions options;
  options.name = name;
  options.parallel_iterations = parallel_iterations;
  Status s = ops::WhileLoop(
      root, init,
      [&](const Scope& sc, const std::vector<Output>& in, Output* pred) {
        *pred = ops::Less(sc, in[0], n);
        return sc.status();
      },
      [&](const Scope& sc, const std::vector<Output>& in, std::vector<Output>* next) {
        *next = body(sc, in);
        return sc.status();
      },
      &out, options);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return out;
}

// while (i < n) i += 1 from 0, built in `root` as loop `name`; returns the Exit (the
// number of iterations).
inline Output Counter(const Scope& root, const Output& n, const std::string& name = "while",
                      int64_t parallel_iterations = 10) {
  return CountedLoop(
      root, n, {ops::Const(root, 0)},
      [](const Scope& sc, const std::vector<Output>& v) { return std::vector<Output>{ops::Add(sc, v[0], 1)}; }, name,
      parallel_iterations)[0];
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_GRAPH_TEST_UTIL_H_
