// Helpers shared by the runtime tests.
#ifndef TENSORACT_TESTS_ACTORS_TEST_UTIL_H_
#define TENSORACT_TESTS_ACTORS_TEST_UTIL_H_

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "client/session.h"
#include "base/proto_io.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace testing {

// A file under tests/data (ctest sets TENSORACT_TEST_DATA).
inline std::string DataPath(const std::string& name) {
  const char* dir = std::getenv("TENSORACT_TEST_DATA");
  return std::string(dir ? dir : "tests/data") + "/" + name;
}

// A cluster CA and a certificate and key per name in `dir` (bootstrap/make-cluster-certs.sh):
// dir/ca.pem, dir/<name>.pem, dir/<name>.key.
inline void MakeClusterCerts(const std::string& dir, const std::vector<std::string>& names) {
  std::string command = "bash " + DataPath("../../bootstrap/make-cluster-certs.sh") + " " + dir;
  for (const std::string& name : names) command += " " + name;
  INFO(command);
  REQUIRE(std::system((command + " >/dev/null").c_str()) == 0);
}

inline std::vector<float> Values(const Tensor& t) {
  const float* p = t.base<float>();
  return std::vector<float>(p, p + t.NumElements());
}

// The GraphDef `body` builds on a new root scope; a build error fails the test.
inline tensorflow::GraphDef BuildGraph(const std::function<void(const Scope&)>& body) {
  Scope root = Scope::NewRootScope();
  body(root);
  tensorflow::GraphDef def;
  Status s = root.ToGraphDef(&def);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return def;
}

inline std::unique_ptr<Session> NewSessionWith(const tensorflow::GraphDef& graph, SessionOptions options = {}) {
  auto session = Session::New(options);
  REQUIRE(session.ok());
  Status s = (*session)->Create(graph);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return std::move(session).value();
}

// What the loop tests' bodies read: placeholders "n" (an int32 scalar, the iterations) and
// "x" (float [2]), and resource variables w and v, which the target "init" sets to 0.25 and 0.
struct LoopInputs {
  Output n, x, w, v;
};
inline LoopInputs MakeLoopInputs(const Scope& root) {
  LoopInputs in;
  in.n = ops::Placeholder(root.WithOpName("n"), tensorflow::DT_INT32, kScalar);
  in.x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({2}));
  in.w = ops::VarHandleOp(root.WithOpName("w"), tensorflow::DT_FLOAT, kScalar);
  in.v = ops::VarHandleOp(root.WithOpName("v"), tensorflow::DT_FLOAT, kScalar);
  Node* init_w = ops::AssignVariableOp(root, in.w, 0.25f);
  Node* init_v = ops::AssignVariableOp(root, in.v, 0.f);
  ops::NoOp(root.WithOpName("init").WithControlDependencies({init_w, init_v}));
  return in;
}

// A while loop counting from 0 to `bound`, its body (an Add) on `body_device` ("": where
// the placer likes); its result is the node "count".
inline tensorflow::GraphDef CountingLoopGraph(int32_t bound, const std::string& body_device = "") {
  Scope root = Scope::NewRootScope();
  std::vector<Output> r;
  Status built = ops::WhileLoop(
      root, {ops::Const(root, 0)},
      [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
        *pred = ops::Less(s, v[0], bound);
        return s.status();
      },
      [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
        *next = {ops::Add(s.WithDevice(body_device), v[0], 1)};
        return s.status();
      },
      &r);
  REQUIRE(built.ok());
  ops::Identity(root.WithOpName("count"), r[0]);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

// A loop of a billion iterations: a step that runs until something stops it (a deadline, a
// cancel, a fault). `*fetch` is its result.
inline tensorflow::GraphDef EndlessLoopGraph(std::string* fetch) {
  *fetch = "count";
  return CountingLoopGraph(1000000000);
}

// An int32 scalar's value.
inline int32_t Int(const Tensor& t) { return t.base<int32_t>()[0]; }

// Whether `names` holds `name`.
inline bool Has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Fails the test, printing `s`, unless it is OK.
inline void Ok(const Status& s) {
  INFO(s.ToString());
  REQUIRE(s.ok());
}

// The GraphDef of tests/data/`name` (pbtxt).
inline tensorflow::GraphDef Load(const std::string& name) {
  tensorflow::GraphDef graph;
  Ok(ReadTextProto(DataPath(name), &graph));
  return graph;
}

// Runs `fetches` (and `targets`) with `feeds`; fails the test unless the step succeeds.
inline std::vector<Tensor> MustRun(Session* session, const std::vector<std::pair<std::string, Tensor>>& feeds,
                                   const std::vector<std::string>& fetches, const std::vector<std::string>& targets = {}) {
  std::vector<Tensor> out;
  Ok(session->Run(feeds, fetches, targets, &out));
  REQUIRE(out.size() == fetches.size());
  return out;
}
inline void RunTarget(Session& s, const std::string& target) { Ok(s.Run({}, {}, {target}, nullptr)); }

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_ACTORS_TEST_UTIL_H_
