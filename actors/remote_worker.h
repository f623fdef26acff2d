// RemoteWorker: a worker in another process, behind the same messages as a local one.
//
// The master sends it the worker protocol of actors/worker.h (RegisterGraph, RunGraph,
// DeregisterGraph, heartbeat, set_peers, abort_step, cleanup_graph, reset, inspect); it
// turns each into the control protocol's RPC (actors/rpc.h) to the remote node service
// and the answer back. So the master drives local and remote tasks alike.
//
// Differences from a local worker: RunGraph carries no tensors (feeds and fetches of a
// step live on the master's own task; tensors cross tasks over the data plane), so a
// RunGraphRequest with args fails with InvalidArgument; a heartbeat that cannot reach the
// node answers a WorkerInfo whose status says why (the master decides what that means).
#ifndef TENSORACT_ACTORS_REMOTE_WORKER_H_
#define TENSORACT_ACTORS_REMOTE_WORKER_H_

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/remote_node.h"

namespace tensoract {

// The actor system must have CAF's middleman loaded.
// `master_lease_ms`: each heartbeat renews the master's lease on its steps at the worker
// for that long (see master_lease_atom); 0: none.
caf::actor SpawnRemoteWorker(caf::actor_system& system, RemoteAddress address, int64_t master_lease_ms = 0);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_REMOTE_WORKER_H_
