// TensorFlow's MasterService over gRPC: the routes of a GrpcFront (bootstrap/grpc_front.h)
// that hand each request's bytes to a node service (actors/node_service.h) as the control
// protocol's RPC, so that TensorFlow's own client drives this node's master:
//
//   with tf.compat.v1.Session("grpc://127.0.0.1:8470") as sess: sess.run(...)
//
// The methods are TensorFlow's, named as its GrpcSession calls them
// ("/tensorflow.MasterService/RunStep"): CreateSession, ExtendSession, PartialRunSetup,
// RunStep, CloseSession, ListDevices, Reset, MakeCallable, RunCallable, ReleaseCallable.
// Nothing else of the node service (its worker's methods) is reachable this way.
//
// Trust: TensorFlow's client presents no credentials, so whoever reaches the address runs
// graphs with this process's rights (files, network). tensoract-node serves it only when
// asked (--grpc-master) and on loopback unless told otherwise.
#ifndef TENSORACT_BOOTSTRAP_GRPC_MASTER_H_
#define TENSORACT_BOOTSTRAP_GRPC_MASTER_H_

#include <map>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "bootstrap/grpc_front.h"

namespace tensoract {

std::map<std::string, GrpcFront::Handler> MasterServiceRoutes(caf::actor_system& system, caf::actor node_service);

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_GRPC_MASTER_H_
