#include "actors/device_actor.h"

#include <caf/all.hpp>

namespace tensoract {
namespace {

struct DeviceState {
  std::shared_ptr<Device> device;
  int64_t launched = 0;
  static inline const char* name = "tensoract.device";
};

caf::behavior device_actor(caf::stateful_actor<DeviceState>* self, std::shared_ptr<Device> device) {
  self->state.device = std::move(device);
  return {
      [=](launch_atom, KernelLaunch& launch) {
        ++self->state.launched;
        self->state.device->Schedule([launch = std::move(launch)] {
          KernelDone done;
          launch.plan->RunNode(launch.node, launch.inputs, nullptr, launch.step_id, launch.timed, &done);
          caf::anon_send(launch.executor, kernel_done_atom::value, std::move(done));
        });
      },
      [=](inspect_atom) -> std::string {
        return StrCat("device ", self->state.device->DebugString(), "; ", self->state.launched,
                      " kernels launched");
      },
  };
}

}  // namespace

caf::actor SpawnDeviceActor(caf::actor_system& system, std::shared_ptr<Device> device) {
  return system.spawn(device_actor, std::move(device));
}

}  // namespace tensoract
