#include "actors/device_actor.h"

#include <caf/all.hpp>

#include "kernels/resource_mgr.h"
#include "messages/observer.pb.h"

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
        self->state.device->Schedule([launch = std::move(launch)]() mutable {
          launch.plan->RecordHandoffNanos(
              std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - launch.sent)
                  .count());
          KernelDone done;
          launch.plan->RunNode(launch.node, launch.inputs, nullptr, launch.step_id, launch.timed, &done);
          // The inputs go before the executor hears: an output that took over an input's
          // buffer then has one holder when its consumer runs, and may be taken over in turn
          // (a variable adopts an optimizer's update instead of copying it).
          launch.inputs = NodeInputs();
          SendVia(launch.home, launch.executor, kernel_done_atom::value, std::move(done));
        });
      },
      [=](inspect_atom) -> std::string {
        return StrCat("device ", self->state.device->DebugString(), "; ", self->state.launched,
                      " kernels launched");
      },
      [=](observe_atom) -> std::string {
        observe::NodeSnapshot part;
        observe::Actor* actor = part.add_actors();
        Device& device = *self->state.device;
        actor->set_name("device " + device.name());
        actor->set_kind("device");
        actor->set_mailbox(static_cast<int64_t>(self->mailbox().size()));
        const AllocatorStats stats = device.allocator()->GetStats();
        actor->set_doing(StrCat(self->state.launched, " kernels launched, ", stats.bytes_in_use, " bytes in use (peak ",
                                stats.peak_bytes_in_use, ")"));
        // Its resources (variables, queues, readers), one line each.
        const std::string resources = device.resource_manager()->DebugString();
        size_t start = 0;
        while (start < resources.size()) {
          size_t end = resources.find('\n', start);
          if (end == std::string::npos) end = resources.size();
          if (end > start) part.add_resources(StrCat(device.name(), ": ", resources.substr(start, end - start)));
          start = end + 1;
        }
        return part.SerializeAsString();
      },
  };
}

}  // namespace

caf::actor SpawnDeviceActor(caf::actor_system& system, std::shared_ptr<Device> device) {
  return system.spawn(device_actor, std::move(device));
}

}  // namespace tensoract
