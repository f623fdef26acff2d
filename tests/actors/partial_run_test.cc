// Partial runs (TensorFlow's PRunSetup/PRun): one step whose feeds arrive and fetches leave
// a part at a time, with TensorFlow's errors.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Values;

// r: random, drawn once per step; c = a + r; d = c * b; "bump" adds 1 to v after d.
tensorflow::GraphDef Chain() {
  return testing::BuildGraph([](const Scope& s) {
    auto a = ops::Placeholder(s.WithOpName("a"), tensorflow::DT_FLOAT);
    auto b = ops::Placeholder(s.WithOpName("b"), tensorflow::DT_FLOAT);
    auto r = ops::RandomUniform(s.WithOpName("r"), ops::Const(s.WithOpName("shape"), {2}), tensorflow::DT_FLOAT);
    auto c = ops::Add(s.WithOpName("c"), a, r);
    auto d = ops::Mul(s.WithOpName("d"), c, b);
    auto v = ops::VarHandleOp(s.WithOpName("v"), tensorflow::DT_FLOAT, PartialTensorShape(std::vector<int64_t>{}));
    ops::AssignVariableOp(s.WithOpName("init"), v, ops::Const(s.WithOpName("zero"), 0.f));
    ops::AssignAddVariableOp(s.WithOpName("bump").WithControlDependencies({d}), v,
                             ops::Const(s.WithOpName("one"), 1.f));
    ops::ReadVariableOp(s.WithOpName("read"), v, tensorflow::DT_FLOAT);
  });
}

// A session of Chain(), its variable initialised when asked.
std::unique_ptr<Session> ChainSession(caf::actor_system& system, bool initialised = true) {
  auto session = Session::New(system).value();
  REQUIRE(session->Create(Chain()).ok());
  if (initialised) REQUIRE(session->Run({}, {}, {"init"}, nullptr).ok());
  return session;
}

TEST_CASE("a partial run feeds and fetches a part at a time, in one step") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto session = ChainSession(system);

  std::string handle;
  Status setup = session->PRunSetup({"a", "b:0"}, {"r", "c:0", "d"}, {"bump"}, &handle);
  INFO(setup.ToString());
  REQUIRE(setup.ok());
  std::vector<Tensor> first, second, third;
  // r needs no feed: it can be fetched before anything is fed.
  REQUIRE(session->PRun(handle, {}, {"r"}, &first).ok());
  REQUIRE(session->PRun(handle, {{"a:0", Tensor::FromVector<float>({10, 20})}}, {"c"}, &second).ok());
  // The same draw of r: the step ran once.
  CHECK(Values(second[0]) == std::vector<float>{10 + Values(first[0])[0], 20 + Values(first[0])[1]});
  REQUIRE(session->PRun(handle, {{"b", Tensor::FromVector<float>({2, 3})}}, {"d:0"}, &third).ok());
  CHECK(Values(third[0]) == std::vector<float>{2 * Values(second[0])[0], 3 * Values(second[0])[1]});
  // The last PRun returned after the target ran.
  std::vector<Tensor> read;
  REQUIRE(session->Run({}, {"read"}, {}, &read).ok());
  CHECK(Values(read[0]) == std::vector<float>{1});

  SECTION("the run is over once everything was fed and fetched") {
    Status s = session->PRun(handle, {}, {"r"}, &first);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Contains("Must run 'setup' before performing partial runs!"));
  }
  SECTION("two partial runs of one signature are two steps") {
    std::string other;
    REQUIRE(session->PRunSetup({"a", "b:0"}, {"r", "c:0", "d"}, {"bump"}, &other).ok());
    CHECK(other != handle);
    std::vector<Tensor> again;
    REQUIRE(session->PRun(other, {{"a", Tensor::FromVector<float>({0, 0})}, {"b", Tensor::FromVector<float>({1, 1})}},
                          {"d", "c", "r"}, &again).ok());
    REQUIRE(again.size() == 3);
    CHECK(Values(again[0]) == Values(again[2]));
    CHECK(Values(again[0]) != Values(first[0]));  // a new draw
  }
}

TEST_CASE("a partial run refuses, in TensorFlow's words, what its setup did not declare or what was given already") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto session = ChainSession(system);
  std::string handle;
  REQUIRE(session->PRunSetup({"a", "b"}, {"c", "d"}, {}, &handle).ok());
  std::vector<Tensor> out;
  auto a = Tensor::FromVector<float>({1, 2});
  auto expect = [&](const Status& s, const std::string& words) {
    INFO(s.ToString());
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Contains(words));
  };
  expect(session->PRun(handle, {{"r", a}}, {}, &out), "The feed r was not specified in partial_run_setup.");
  expect(session->PRun(handle, {}, {"r"}, &out), "The fetch r was not specified in partial_run_setup.");
  expect(session->PRun(handle, {}, {"c"}, &out), "Fetch c can't be computed from the feeds that have been fed so far.");
  expect(session->PRun(handle, {{"a", Tensor::FromVector<int32_t>({1, 2})}}, {}, &out), "int32");
  REQUIRE(session->PRun(handle, {{"a", a}}, {"c"}, &out).ok());
  expect(session->PRun(handle, {{"a", a}}, {}, &out), "The feed a has already been fed.");
  expect(session->PRun(handle, {{"b", a}}, {"c"}, &out), "The fetch c has already been fetched.");
  // Refused requests changed nothing: b is still to feed, d to fetch.
  REQUIRE(session->PRun(handle, {{"b", a}}, {"d"}, &out).ok());
  CHECK(out.size() == 1);
  expect(session->PRun("no such handle", {}, {"c"}, &out), "Must run 'setup' before performing partial runs!");
  Status missing = session->PRunSetup({"a"}, {"nope"}, {}, &handle);
  CHECK(missing.code() == error::NOT_FOUND);
}

TEST_CASE("closing a session ends its partial runs") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto session = ChainSession(system, /*initialised=*/false);
  std::string handle;
  REQUIRE(session->PRunSetup({"a", "b"}, {"d"}, {}, &handle).ok());
  std::vector<Tensor> out;
  REQUIRE(session->PRun(handle, {{"a", Tensor::FromVector<float>({1})}}, {}, &out).ok());
  REQUIRE(session->Close().ok());
  CHECK(session->PRun(handle, {{"b", Tensor::FromVector<float>({1})}}, {"d"}, &out).code() == error::CANCELLED);
}

}  // namespace
}  // namespace tensoract
