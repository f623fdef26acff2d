// The worker actor: one per process (task). Owns the devices, the registered graphs and
// the steps running on them.
//
// RegisterGraph turns a partition GraphDef into an ExecutorPlan (kernels made once) and
// answers with a handle; RunGraph spawns an executor for (handle, step) and answers with
// its fetches; DeregisterGraph forgets a plan (steps still running keep theirs).
//
// Protocol: (register_graph_atom, RegisterGraphRequest) -> RegisterGraphResponse
//           (run_graph_atom, RunGraphRequest) -> RunGraphResponse
//           (deregister_graph_atom, std::string handle) -> Status
//           (inspect_atom) -> std::string
#ifndef TENSORACT_ACTORS_WORKER_H_
#define TENSORACT_ACTORS_WORKER_H_

#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "kernels/device.h"

namespace tensoract {

struct WorkerOptions {
  std::string task_name = "/job:localhost/replica:0/task:0";
  int cpu_threads = 1;  // threads of the CPU device's pool
  int64_t default_step_timeout_ms = 10 * 60 * 1000;
};

caf::actor SpawnWorker(caf::actor_system& system, const WorkerOptions& options);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_WORKER_H_
