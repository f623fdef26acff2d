// RemoteMaster: the master of another process (a tensoract:// target), behind the same
// messages as a local master (actors/master.h).
//
// CreateSession, ExtendSession, RunStep, CloseSession and Reset become TensorFlow's
// master-service requests (messages/master.proto, field for field), sent as the control
// protocol's RPC (actors/rpc.h); feeds and fetches travel inside them as TensorProtos, as
// in TensorFlow's RunStepRequest/RunStepResponse. Inspect returns the node's state
// (master and worker).
#ifndef TENSORACT_ACTORS_REMOTE_MASTER_H_
#define TENSORACT_ACTORS_REMOTE_MASTER_H_

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/remote_node.h"

namespace tensoract {

// The actor system must have CAF's middleman loaded. `default_step_timeout_ms` bounds a
// RunStep that sets no timeout of its own.
caf::actor SpawnRemoteMaster(caf::actor_system& system, RemoteAddress address, int64_t default_step_timeout_ms);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_REMOTE_MASTER_H_
