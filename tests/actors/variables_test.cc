// Variables through the Session: reference variables (VariableV2/Assign/AssignAdd),
// resource variables (VarHandleOp/AssignVariableOp/ReadVariableOp), uninitialised reads,
// containers, sharing between sessions of one server, and Reset.
#include <catch2/catch.hpp>

#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::RunTarget;

using testing::Values;

// v = VariableV2 [2] float; init: v = [1, 2]; read = Identity(v);
// inc = AssignAdd(v, [10, 20]); dec = AssignSub(v, [1, 1]); init_check = IsVariableInitialized(v)
tensorflow::GraphDef RefVariableGraph(const std::string& container = "") {
  Scope root = Scope::NewRootScope();
  ops::VariableAttrs attrs;
  attrs.container = container;
  auto v = ops::Variable(root.WithOpName("v"), PartialTensorShape({2}), tensorflow::DT_FLOAT, attrs);
  ops::Assign(root.WithOpName("init"), v, {1.f, 2.f});
  ops::Identity(root.WithOpName("read"), v);
  ops::AssignAdd(root.WithOpName("inc"), v, {10.f, 20.f});
  ops::AssignSub(root.WithOpName("dec"), v, {1.f, 1.f});
  ops::IsVariableInitialized(root.WithOpName("is_init"), v);
  // A value of unknown shape passes shape inference; validate_shape checks it when it runs.
  auto any = ops::Placeholder(root.WithOpName("any"), tensorflow::DT_FLOAT);
  ops::Assign(root.WithOpName("bad_shape"), v, any);
  ops::Assign(root.WithOpName("reshape"), v, {1.f, 2.f, 3.f}, ops::AssignAttrs{false, true});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

std::vector<float> FetchFloats(Session& s, const std::string& name) {
  std::vector<Tensor> out;
  Status st = s.Run({}, {name}, {}, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return Values(out[0]);
}


TEST_CASE("a reference variable is assigned, read, updated in place") {
  auto session = testing::NewSessionWith(RefVariableGraph());
  SECTION("reading before initialisation names the variable") {
    Status st = session->Run({}, {"read"}, {}, nullptr);
    CHECK(st.code() == error::FAILED_PRECONDITION);
    CHECK_THAT(st.message(), Catch::Contains("Attempting to use uninitialized value v"));
    std::vector<Tensor> out;
    REQUIRE(session->Run({}, {"is_init"}, {}, &out).ok());
    CHECK(*out[0].base<bool>() == false);
    // The failed step left nothing behind: initialising now works.
    RunTarget(*session, "init");
    CHECK(FetchFloats(*session, "read") == std::vector<float>{1, 2});
  }
  SECTION("AssignAdd and AssignSub accumulate across steps") {
    RunTarget(*session, "init");
    RunTarget(*session, "inc");
    RunTarget(*session, "inc");
    CHECK(FetchFloats(*session, "read") == std::vector<float>{21, 42});
    RunTarget(*session, "dec");
    CHECK(FetchFloats(*session, "read") == std::vector<float>{20, 41});
    // Fetching the update's output reads the variable after the update.
    CHECK(FetchFloats(*session, "inc") == std::vector<float>{30, 61});
  }
  SECTION("AssignAdd before initialisation fails naming the variable") {
    Status st = session->Run({}, {}, {"inc"}, nullptr);
    CHECK(st.code() == error::FAILED_PRECONDITION);
    CHECK_THAT(st.message(), Catch::Contains("uninitialized value v"));
  }
  SECTION("validate_shape refuses another shape; without it the variable takes it") {
    RunTarget(*session, "init");
    Status st = session->Run({{"any", Tensor::FromVector<float>({1, 2, 3})}}, {}, {"bad_shape"}, nullptr);
    CHECK(st.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(st.message(), Catch::Contains("lhs shape= [2] rhs shape= [3]"));
    RunTarget(*session, "reshape");
    CHECK(FetchFloats(*session, "read") == std::vector<float>{1, 2, 3});
  }
  SECTION("a variable can be fed like any tensor, which leaves it untouched") {
    RunTarget(*session, "init");
    std::vector<Tensor> out;
    // Feeding the Identity's input replaces the read for this step only.
    REQUIRE(session->Run({{"read", Tensor::FromVector<float>({7, 8})}}, {"read"}, {}, &out).ok());
    CHECK(Values(out[0]) == std::vector<float>{7, 8});
    CHECK(FetchFloats(*session, "read") == std::vector<float>{1, 2});
  }
}

tensorflow::GraphDef ResourceVariableGraph() {
  Scope root = Scope::NewRootScope();
  auto h = ops::VarHandleOp(root.WithOpName("h"), tensorflow::DT_FLOAT, PartialTensorShape({2}),
                            ops::VarHandleOpAttrs{"", "rv", "", {}});
  ops::AssignVariableOp(root.WithOpName("init"), h, {1.f, 2.f});
  ops::ReadVariableOp(root.WithOpName("read"), h, tensorflow::DT_FLOAT);
  ops::AssignAddVariableOp(root.WithOpName("inc"), h, {10.f, 20.f});
  ops::AssignSubVariableOp(root.WithOpName("dec"), h, {1.f, 1.f});
  ops::VarIsInitializedOp(root.WithOpName("is_init"), h);
  ops::DestroyResourceOp(root.WithOpName("destroy"), h);
  tensorflow::AttrValue int64;
  int64.set_type(tensorflow::DT_INT64);
  root.AddOp("VariableShape", "shape", {h}, {});
  root.AddOp("VariableShape", "shape64", {h}, {{"out_type", int64}});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

TEST_CASE("a resource variable is assigned, read and updated; values already read never change") {
  auto session = testing::NewSessionWith(ResourceVariableGraph());
  Status st = session->Run({}, {"read"}, {}, nullptr);
  CHECK(st.code() == error::FAILED_PRECONDITION);
  CHECK_THAT(st.message(), Catch::Contains("Could not find variable rv"));
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {"is_init"}, {}, &out).ok());
  CHECK(*out[0].base<bool>() == false);

  RunTarget(*session, "init");
  std::vector<Tensor> before;
  REQUIRE(session->Run({}, {"read"}, {}, &before).ok());
  RunTarget(*session, "inc");
  RunTarget(*session, "dec");
  CHECK(FetchFloats(*session, "read") == std::vector<float>{10, 21});
  CHECK(Values(before[0]) == std::vector<float>{1, 2});  // copy-on-write kept the old value
  REQUIRE(session->Run({}, {"shape", "shape64"}, {}, &out).ok());
  CHECK(out[0].dtype() == tensorflow::DT_INT32);
  CHECK(*out[0].base<int32_t>() == 2);
  CHECK(out[1].dtype() == tensorflow::DT_INT64);
  CHECK(*out[1].base<int64_t>() == 2);

  RunTarget(*session, "destroy");
  st = session->Run({}, {"read"}, {}, nullptr);
  CHECK(st.code() == error::FAILED_PRECONDITION);
}

TEST_CASE("sessions of one server share variables; Reset clears the container and closes sessions") {
  auto server = LocalServer::New();
  REQUIRE(server.ok());
  auto a = Session::New(**server).value();
  auto b = Session::New(**server).value();
  REQUIRE(a->Create(RefVariableGraph()).ok());
  REQUIRE(b->Create(RefVariableGraph()).ok());
  RunTarget(*a, "init");
  RunTarget(*a, "inc");
  CHECK(FetchFloats(*b, "read") == std::vector<float>{11, 22});  // b sees what a wrote

  // A session of another server has its own worker and so its own variables.
  auto other = testing::NewSessionWith(RefVariableGraph());
  CHECK(other->Run({}, {"read"}, {}, nullptr).code() == error::FAILED_PRECONDITION);

  // Handles are random (TensorFlow's 16 hex digits), so a stale client cannot guess one.
  CHECK(a->handle().size() == 16);
  CHECK(a->handle() != b->handle());
  const std::string b_handle = b->handle();
  REQUIRE(a->Reset().ok());
  // Reset closed every session of the server: the master no longer knows b's handle, and
  // says so as TensorFlow does (Aborted, which retry logic keys on).
  Status gone = b->Run({}, {"read"}, {}, nullptr);
  CHECK(gone.code() == error::ABORTED);
  CHECK_THAT(gone.message(), Catch::Contains("Session " + b_handle + " is not found."));
  // ... and the variable is gone: a new session finds it uninitialised.
  auto c = Session::New(**server).value();
  REQUIRE(c->Create(RefVariableGraph()).ok());
  Status st = c->Run({}, {"read"}, {}, nullptr);
  CHECK(st.code() == error::FAILED_PRECONDITION);
  CHECK_THAT(st.message(), Catch::Contains("uninitialized value v"));
}

TEST_CASE("named containers are separate and reset one at a time") {
  auto server = LocalServer::New();
  REQUIRE(server.ok());
  auto a = Session::New(**server).value();
  auto b = Session::New(**server).value();
  REQUIRE(a->Create(RefVariableGraph("experiment_a")).ok());
  REQUIRE(b->Create(RefVariableGraph("experiment_b")).ok());
  RunTarget(*a, "init");
  RunTarget(*a, "inc");
  RunTarget(*b, "init");
  CHECK(FetchFloats(*a, "read") == std::vector<float>{11, 22});
  CHECK(FetchFloats(*b, "read") == std::vector<float>{1, 2});
  CHECK_THAT(a->Inspect(), Catch::Contains("experiment_a/v"));

  REQUIRE(a->Reset({"experiment_a"}).ok());
  auto a2 = Session::New(**server).value();
  auto b2 = Session::New(**server).value();
  REQUIRE(a2->Create(RefVariableGraph("experiment_a")).ok());
  REQUIRE(b2->Create(RefVariableGraph("experiment_b")).ok());
  CHECK(a2->Run({}, {"read"}, {}, nullptr).code() == error::FAILED_PRECONDITION);
  CHECK(FetchFloats(*b2, "read") == std::vector<float>{1, 2});  // the other container kept its value
}

}  // namespace
}  // namespace tensoract
