// The node service: what one process's master and worker answer to other processes.
//
// It takes the control protocol's messages (actors/rpc.h: protobuf bytes in CAF
// messages), turns each into the local message its master or worker understands, and the
// reply back into bytes. The master's methods are TensorFlow's master service
// (CreateSession, ExtendSession, RunStep, CloseSession, Reset, ListDevices, MakeCallable,
// RunCallable, ReleaseCallable, PartialRunSetup) with its exact messages;
// the worker's are TensorFlow's worker service (RegisterGraph, DeregisterGraph, RunGraph,
// CleanupGraph, CleanupAll) plus tensoract's Heartbeat, SetPeers and AbortStep.
//
//   (rpc_atom, method, bytes) -> (int32_t code, std::string message, std::string bytes)
//   (inspect_atom) -> std::string: the master's state (if any) and the worker's
//   (observe_atom) -> std::string: a serialized observe::NodeSnapshot of the whole node
//                    (messages/observer.proto), for tensoract-observe
//   (watch_atom, std::string) -> std::string: the worker watches tensors in its next steps
//                    (a serialized observe::WatchRequest); "" or the error
//
// A request the service cannot parse gets InvalidArgument naming the method; an unknown
// method gets Unimplemented.
#ifndef TENSORACT_ACTORS_NODE_SERVICE_H_
#define TENSORACT_ACTORS_NODE_SERVICE_H_

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

namespace tensoract {

// `master` may be invalid (a task that runs no master): master methods then fail with
// Unimplemented naming the task.
caf::actor SpawnNodeService(caf::actor_system& system, caf::actor worker, caf::actor master);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_NODE_SERVICE_H_
