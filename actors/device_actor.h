// The device actor: the one door to a Device.
//
// Executors send it the expensive kernels of their steps; it runs each on the device's
// threads and answers the executor with kernel_done (through the caller's unit the
// executor ran on, if any: actors/caller_unit.h). It also reports the device's memory.
// The kernel runs on a pool thread, not in the actor, so the device actor is never
// blocked by a long kernel and keeps launching.
//
// Protocol: (launch_atom, KernelLaunch) -> nothing (the executor gets kernel_done);
//           (inspect_atom) -> std::string.
#ifndef TENSORACT_ACTORS_DEVICE_ACTOR_H_
#define TENSORACT_ACTORS_DEVICE_ACTOR_H_

#include <chrono>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/caller_unit.h"
#include "actors/executor_plan.h"

namespace tensoract {

struct KernelLaunch {
  std::shared_ptr<const ExecutorPlan> plan;  // keeps the kernel alive while it runs
  int node = 0;
  NodeInputs inputs;
  int64_t step_id = 0;
  bool timed = false;
  caf::actor executor;
  // The unit of the caller whose thread ran the executor (actors/caller_unit.h), or null:
  // kernel_done goes back through it.
  CallerUnit* home = nullptr;
  // When the executor sent it (steady clock): the pool thread records how long it waited
  // (ExecutorPlan::RecordHandoffNanos).
  std::chrono::steady_clock::time_point sent;
};

caf::actor SpawnDeviceActor(caf::actor_system& system, std::shared_ptr<Device> device);

}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::KernelLaunch)

#endif  // TENSORACT_ACTORS_DEVICE_ACTOR_H_
