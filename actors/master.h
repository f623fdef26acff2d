// The master actor: owns sessions and turns each RunStep into work for the workers.
//
// A session is a GraphDef (validated when created). For each distinct (feeds, fetches,
// targets) signature the master rewrites the graph for that call (feeds become _Arg,
// fetches _Retval), prunes it to what the call needs, registers it with the worker once
// and caches the handle; every later step with that signature only checks the feeds and
// sends RunGraph. Step ids are the master's.
//
// Protocol: (create_session_atom, CreateSessionRequest) -> CreateSessionResponse
//           (run_step_atom, RunStepRequest) -> RunStepResponse
//           (close_session_atom, std::string handle) -> Status
//           (inspect_atom) -> std::string
#ifndef TENSORACT_ACTORS_MASTER_H_
#define TENSORACT_ACTORS_MASTER_H_

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

namespace tensoract {

struct MasterOptions {
  int64_t default_step_timeout_ms = 10 * 60 * 1000;
  int64_t register_timeout_ms = 60 * 1000;
};

caf::actor SpawnMaster(caf::actor_system& system, caf::actor worker, const MasterOptions& options);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_MASTER_H_
