// The executor's hand-offs to the device's threads: a long kernel beside other ready work
// goes there, and the plan records how long it waited to start (ExecutorPlan::HandoffNanos),
// the measure that keeps shorter kernels inline. Its value is a timing: only that it was
// measured is checked.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "actors/device_actor.h"
#include "actors/executor.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

// Steps of `plan` on a device of `threads` threads; each must succeed.
void RunSteps(const std::shared_ptr<const ExecutorPlan>& plan, const std::shared_ptr<Device>& device, int steps) {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  caf::actor device_actor = SpawnDeviceActor(system, device);
  caf::scoped_actor self{system};
  for (int step = 1; step <= steps; ++step) {
    ExecutorArgs args;
    args.plan = plan;
    args.device = device_actor;
    args.step_id = step;
    caf::actor executor = SpawnExecutor(system, std::move(args));
    Status status;
    self->request(executor, std::chrono::seconds(30), start_atom::value)
        .receive([&](RunGraphResponse& reply) { status = reply.status; },
                 [&](caf::error& e) { status = FromCafError(e, "step"); });
    INFO(status.ToString());
    REQUIRE(status.ok());
  }
  self->send_exit(device_actor, caf::exit_reason::user_shutdown);
}

// Two independent products of 256 x 256 matrices (256 KiB inputs, milliseconds each).
tensorflow::GraphDef TwoProducts() {
  return testing::BuildGraph([](const Scope& root) {
    Output a = ops::Fill(root.WithOpName("a"), {256, 256}, 1.f);
    Output b = ops::Fill(root.WithOpName("b"), {256, 256}, 2.f);
    ops::MatMul(root.WithOpName("ab"), a, b);
    ops::MatMul(root.WithOpName("ba"), b, a);
  });
}

TEST_CASE("a long kernel beside other ready work goes to the device's threads, and its wait is measured",
          "[executor]") {
  auto device = std::make_shared<Device>("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 2);
  auto plan = ExecutorPlan::Build(TwoProducts(), device.get());
  INFO(plan.status().ToString());
  REQUIRE(plan.ok());
  CHECK(plan.value()->HandoffNanos() == 0);  // nothing handed off yet
  RunSteps(plan.value(), device, 3);
  CHECK(plan.value()->HandoffNanos() > 0);
}

TEST_CASE("on a device of one thread every kernel runs inline: no hand-off is measured", "[executor]") {
  auto device = std::make_shared<Device>("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1);
  auto plan = ExecutorPlan::Build(TwoProducts(), device.get());
  REQUIRE(plan.ok());
  RunSteps(plan.value(), device, 2);
  CHECK(plan.value()->HandoffNanos() == 0);
}

}  // namespace
}  // namespace tensoract
