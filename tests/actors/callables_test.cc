// Callables (a step signature compiled once, run by handle) and ListDevices, through the
// C++ Session and through the master's own messages, which the wire protocol uses.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "actors/messages.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Values;

// y = x * 2 + v, where the target "bump" adds 1 to the variable v (initialised by "init").
tensorflow::GraphDef Counter() {
  return testing::BuildGraph([](const Scope& s) {
    auto x = ops::Placeholder(s.WithOpName("x"), tensorflow::DT_FLOAT);
    auto v = ops::VarHandleOp(s.WithOpName("v"), tensorflow::DT_FLOAT, PartialTensorShape(std::vector<int64_t>{}));
    ops::AssignVariableOp(s.WithOpName("init"), v, ops::Const(s.WithOpName("zero"), 0.f));
    ops::AssignAddVariableOp(s.WithOpName("bump"), v, ops::Const(s.WithOpName("one"), 1.f));
    auto read = ops::ReadVariableOp(s.WithOpName("read"), v, tensorflow::DT_FLOAT);
    ops::Add(s.WithOpName("y"), ops::Mul(s.WithOpName("twice"), x, 2.f), read);
  });
}

tensorflow::CallableOptions CallableOpts(std::vector<std::string> feeds, std::vector<std::string> fetches,
                                    std::vector<std::string> targets = {}) {
  tensorflow::CallableOptions options;
  for (const auto& f : feeds) options.add_feed(f);
  for (const auto& f : fetches) options.add_fetch(f);
  for (const auto& t : targets) options.add_target(t);
  return options;
}

TEST_CASE("a callable runs its signature by handle, feeds and fetches by position, sharing the session's state") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto session = Session::New(system).value();
  REQUIRE(session->Create(Counter()).ok());
  REQUIRE(session->Run({}, {}, {"init"}, nullptr).ok());

  Session::CallableHandle bump = -1, read = -1;
  REQUIRE(session->MakeCallable(CallableOpts({}, {}, {"bump"}), &bump).ok());
  Status made = session->MakeCallable(CallableOpts({"x"}, {"y", "twice:0"}), &read);
  INFO(made.ToString());
  REQUIRE(made.ok());
  CHECK(bump != read);

  std::vector<Tensor> out;
  REQUIRE(session->RunCallable(bump, {}, &out).ok());
  REQUIRE(session->RunCallable(bump, {}, &out).ok());
  REQUIRE(session->RunCallable(read, {Tensor::FromVector<float>({1, 3})}, &out).ok());
  REQUIRE(out.size() == 2);
  CHECK(Values(out[0]) == std::vector<float>{4, 8});  // 2x + 2 bumps
  CHECK(Values(out[1]) == std::vector<float>{2, 6});
  // A Run of the same signature sees the same variable.
  REQUIRE(session->Run({{"x", Tensor::FromVector<float>({0})}}, {"y"}, {}, &out).ok());
  CHECK(Values(out[0]) == std::vector<float>{2});

  SECTION("errors name what was wrong; a released handle is gone") {
    Status s = session->RunCallable(read, {}, &out);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Contains("expected 1 but got 0"));
    Session::CallableHandle bad = -1;
    s = session->MakeCallable(CallableOpts({"x"}, {"nope"}), &bad);
    CHECK(s.code() == error::NOT_FOUND);
    CHECK_THAT(s.message(), Catch::Contains("nope"));
    auto with_devices = CallableOpts({"x"}, {"y"});
    (*with_devices.mutable_feed_devices())["x"] = "/device:CPU:0";
    CHECK(session->MakeCallable(with_devices, &bad).code() == error::UNIMPLEMENTED);
    REQUIRE(session->ReleaseCallable(read).ok());
    s = session->RunCallable(read, {Tensor::FromVector<float>({1})}, &out);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Contains("No such callable handle"));
    CHECK(session->ReleaseCallable(read).code() == error::INVALID_ARGUMENT);
    // The other callable still runs.
    CHECK(session->RunCallable(bump, {}, &out).ok());
  }
  SECTION("the master's own messages, as the wire protocol sends them") {
    caf::scoped_actor self{system};
    MakeCallableResponse made_reply;
    self->request(session->master(), std::chrono::seconds(10), make_callable_atom::value,
                  MakeCallableRequest{session->handle(), {"x"}, {"twice"}, {}, 0, false})
        .receive([&](MakeCallableResponse& r) { made_reply = r; }, [&](caf::error&) { FAIL("no reply"); });
    REQUIRE(made_reply.status.ok());
    RunStepResponse ran;
    RunCallableRequest run{session->handle(), made_reply.handle, {Tensor::FromVector<float>({5})}, 0};
    self->request(session->master(), std::chrono::seconds(10), run_callable_atom::value, run)
        .receive([&](RunStepResponse& r) { ran = r; }, [&](caf::error&) { FAIL("no reply"); });
    INFO(ran.status.ToString());
    REQUIRE(ran.status.ok());
    REQUIRE(ran.fetched.size() == 1);
    CHECK(Values(ran.fetched[0]) == std::vector<float>{10});
    run.handle = 12345;
    self->request(session->master(), std::chrono::seconds(10), run_callable_atom::value, run)
        .receive([&](RunStepResponse& r) { ran = r; }, [&](caf::error&) { FAIL("no reply"); });
    CHECK(ran.status.code() == error::INVALID_ARGUMENT);
  }
  SECTION("closing the session drops its callables") {
    REQUIRE(session->Close().ok());
    CHECK(session->RunCallable(bump, {}, &out).code() == error::INVALID_ARGUMENT);
  }
}

TEST_CASE("ListDevices names the devices a session can place on") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto session = Session::New(system).value();
  std::vector<tensorflow::DeviceAttributes> devices;
  Status s = session->ListDevices(&devices);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(!devices.empty());
  CHECK(devices[0].name() == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(devices[0].device_type() == "CPU");
  CHECK(devices[0].incarnation() != 0);
}

}  // namespace
}  // namespace tensoract
