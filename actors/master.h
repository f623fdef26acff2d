// The master actor: owns sessions and turns each RunStep into work for the workers.
//
// A session is a GraphDef (validated when created). For each distinct (feeds, fetches,
// targets) signature the master rewrites the graph for that call (feeds become _Arg,
// fetches _Retval), prunes it to what the call needs, registers it with the worker once
// and caches the handle; every later step with that signature only checks the feeds and
// sends RunGraph. Step ids are the master's.
//
// Before registering, the call graph goes through the graph optimizer (CSE, constant
// folding on the CPU kernels) as MasterOptions::optimizer says, then is placed on the
// worker's devices (graph/placer.h, with a cost model that learns from the statistics of
// the steps that collect them) and partitioned by device with _Send/_Recv pairs
// (graph/partition.h).
//
// Protocol: (create_session_atom, CreateSessionRequest) -> CreateSessionResponse
//           (extend_session_atom, ExtendSessionRequest) -> ExtendSessionResponse
//           (run_step_atom, RunStepRequest) -> RunStepResponse
//           (reset_atom, std::vector<std::string> containers) -> Status (closes every session)
//           (close_session_atom, std::string handle) -> Status
//           (inspect_atom) -> std::string
#ifndef TENSORACT_ACTORS_MASTER_H_
#define TENSORACT_ACTORS_MASTER_H_

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "graph/optimizer/graph_optimizer.h"

namespace tensoract {

struct MasterOptions {
  int64_t default_step_timeout_ms = 10 * 60 * 1000;
  int64_t register_timeout_ms = 60 * 1000;
  GraphOptimizerOptions optimizer;  // passes run on every call graph
  bool allow_soft_placement = false;      // see SessionOptions
  bool enable_bfloat16_sendrecv = false;  // see SessionOptions
  bool enable_recv_scheduling = false;    // see SessionOptions
};

caf::actor SpawnMaster(caf::actor_system& system, caf::actor worker, const MasterOptions& options);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_MASTER_H_
