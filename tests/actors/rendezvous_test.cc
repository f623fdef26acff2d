// The rendezvous actor through the kernels' interface: values wait for their receivers and
// receivers for their values, the dead flag travels, aborts fail every waiting receiver,
// and a finished step leaves nothing behind.
#include <chrono>
#include <future>

#include <catch2/catch.hpp>
#include <caf/all.hpp>

#include "actors/rendezvous.h"

namespace tensoract {
namespace {

struct Received {
  Status status;
  Tensor value;
  bool is_dead = false;
};

// Starts a Recv and returns where its answer will arrive.
std::future<Received> Recv(ActorRendezvous& r, int64_t step, const std::string& key) {
  auto p = std::make_shared<std::promise<Received>>();
  r.RecvAsync(step, key, [p](const Status& s, const Tensor& v, bool dead) { p->set_value({s, v, dead}); });
  return p->get_future();
}

Received Get(std::future<Received>& f) {
  REQUIRE(f.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  return f.get();
}

Tensor Scalar(float v) {
  Tensor t(tensorflow::DT_FLOAT, TensorShape({}));
  t.base<float>()[0] = v;
  return t;
}

std::string InspectText(caf::actor_system& system, const caf::actor& a) {
  caf::scoped_actor self{system};
  std::string out;
  self->request(a, std::chrono::seconds(10), inspect_atom::value)
      .receive([&](std::string& s) { out = s; }, [&](caf::error& e) { FAIL(system.render(e)); });
  return out;
}

TEST_CASE("a value sent before its Recv waits for it, and one sent after reaches a waiting Recv", "[rendezvous]") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  ActorRendezvous r(SpawnRendezvous(system, "test"));
  r.Send(1, "a", Scalar(3), false);
  auto first = Recv(r, 1, "a");
  Received got = Get(first);
  REQUIRE(got.status.ok());
  CHECK(got.value.base<float>()[0] == 3);
  CHECK_FALSE(got.is_dead);

  auto waiting = Recv(r, 1, "b");
  CHECK(waiting.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  r.Send(1, "b", Scalar(5), /*is_dead=*/true);
  got = Get(waiting);
  REQUIRE(got.status.ok());
  CHECK(got.value.base<float>()[0] == 5);
  CHECK(got.is_dead);

  // Steps do not see each other's values.
  r.Send(2, "c", Scalar(7), false);
  auto other_step = Recv(r, 3, "c");
  CHECK(other_step.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  caf::anon_send(r.actor(), abort_atom::value, int64_t{3}, errors::Cancelled("test over"));
  CHECK(Get(other_step).status.code() == error::CANCELLED);
  caf::anon_send_exit(r.actor(), caf::exit_reason::user_shutdown);
}

TEST_CASE("aborting a step fails every waiting Recv and every later one with the abort's status", "[rendezvous]") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  ActorRendezvous r(SpawnRendezvous(system, "test"));
  auto a = Recv(r, 9, "x");
  auto b = Recv(r, 9, "y");
  auto unaffected = Recv(r, 10, "x");
  CHECK_THAT(InspectText(system, r.actor()), Catch::Contains("Recv waits for Send of x"));
  caf::anon_send(r.actor(), abort_atom::value, int64_t{9}, errors::Unavailable("device CPU:1 failed"));
  for (auto* f : {&a, &b}) {
    Received got = Get(*f);
    CHECK(got.status.code() == error::UNAVAILABLE);
    CHECK_THAT(got.status.message(), Catch::Contains("device CPU:1 failed"));
  }
  auto late = Recv(r, 9, "z");
  CHECK(Get(late).status.code() == error::UNAVAILABLE);
  r.Send(10, "x", Scalar(1), false);
  CHECK(Get(unaffected).status.ok());
  caf::anon_send_exit(r.actor(), caf::exit_reason::user_shutdown);
}

// A collective formation's end (abort_matching_atom) reaches this actor by one path and a
// member's fetch of that formation by another, in either order: one arriving after the
// abort is answered by it, not parked until its deadline.
TEST_CASE("a key part aborted earlier fails a later Recv of a matching key and drops its Send", "[rendezvous]") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  ActorRendezvous r(SpawnRendezvous(system, "test"));
  auto waiting = Recv(r, -7, "a;0;b;collective/1/42/2/f;0:0");
  caf::anon_send(r.actor(), abort_matching_atom::value, std::string("collective/1/42/"),
                 errors::Aborted("member b left formation 42"));
  CHECK_THAT(Get(waiting).status.message(), Catch::Contains("left formation 42"));
  auto late = Recv(r, -8, "a;0;b;collective/1/42/3/d0;0:0");
  Received got = Get(late);
  CHECK(got.status.code() == error::ABORTED);
  CHECK_THAT(got.status.message(), Catch::Contains("left formation 42"));
  r.Send(-9, "b;0;a;collective/1/42/3/d0;0:0", Scalar(1), false);
  // Another formation of the group, and other keys, go on as before.
  r.Send(-9, "b;0;a;collective/1/43/3/d0;0:0", Scalar(2), false);
  auto next = Recv(r, -9, "b;0;a;collective/1/43/3/d0;0:0");
  got = Get(next);
  REQUIRE(got.status.ok());
  CHECK(got.value.base<float>()[0] == 2);
  CHECK_THAT(InspectText(system, r.actor()), Catch::Contains("0 steps with entries"));
  caf::anon_send_exit(r.actor(), caf::exit_reason::user_shutdown);
}

TEST_CASE("a step's entries are gone when it ends: nothing accumulates over thousands of steps", "[rendezvous]") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  ActorRendezvous r(SpawnRendezvous(system, "test"));
  for (int64_t step = 1; step <= 5000; ++step) {
    r.Send(step, "sent_and_received", Scalar(1), false);
    r.Send(step, "sent_never_received", Scalar(2), false);
    auto got = Recv(r, step, "sent_and_received");
    auto never_sent = Recv(r, step, "received_never_sent");
    REQUIRE(Get(got).status.ok());
    caf::anon_send(r.actor(), cleanup_step_atom::value, step);
    // A Recv still waiting when its step ends is told so instead of hanging.
    Received orphan = Get(never_sent);
    REQUIRE(orphan.status.code() == error::ABORTED);
  }
  // A straggling Send for a finished step does not bring the step back.
  r.Send(4990, "late", Scalar(3), false);
  CHECK_THAT(InspectText(system, r.actor()), Catch::Contains("0 steps with entries"));
  caf::anon_send_exit(r.actor(), caf::exit_reason::user_shutdown);
}

TEST_CASE("a remote-style Recv (a request) is answered by the value or the abort", "[rendezvous]") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  caf::actor rdv = SpawnRendezvous(system, "test");
  caf::scoped_actor self{system};
  caf::anon_send(rdv, rdv_send_atom::value, int64_t{4}, std::string("k"), RendezvousValue{Status::OK(), Scalar(8), false});
  self->request(rdv, std::chrono::seconds(10), rdv_recv_atom::value, int64_t{4}, std::string("k"))
      .receive(
          [&](RendezvousValue& v) {
            REQUIRE(v.status.ok());
            CHECK(v.value.base<float>()[0] == 8);
          },
          [&](caf::error& e) { FAIL(system.render(e)); });
  caf::anon_send_exit(rdv, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace tensoract
