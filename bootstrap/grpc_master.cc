#include "bootstrap/grpc_master.h"

#include <utility>

#include <caf/all.hpp>

#include "actors/messages.h"
#include "actors/rpc.h"

namespace tensoract {
namespace {

// A gRPC call's answer, carried through the bridge actor.
struct GrpcAnswer {
  GrpcFront::Reply reply;
};

}  // namespace
}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::GrpcAnswer)

namespace tensoract {
namespace {

// Forwards each call to the node service and its answer back to gRPC: gRPC's threads
// only send a message, and no thread waits for a step.
caf::behavior Bridge(caf::event_based_actor* self, caf::actor service) {
  // It goes when the node service goes (the node stops that one).
  self->link_to(service);
  return {
      [=](rpc_atom, std::string& method, std::string& bytes, GrpcAnswer& answer) {
        // No deadline here, as the node service has none for its own master: every step
        // has the master's deadline, and every other method answers at once.
        self->request(service, caf::infinite, rpc_atom::value, method, std::move(bytes))
            .then(
                [answer](int32_t code, std::string& message, std::string& response) {
                  answer.reply(RpcStatus(code, message), std::move(response));
                },
                [answer, method](caf::error& e) { answer.reply(FromCafError(e, method), ""); });
      },
  };
}

}  // namespace

std::map<std::string, GrpcFront::Handler> MasterServiceRoutes(caf::actor_system& system, caf::actor node_service) {
  caf::actor bridge = system.spawn(Bridge, std::move(node_service));
  std::map<std::string, GrpcFront::Handler> routes;
  for (const char* method : {"CreateSession", "ExtendSession", "PartialRunSetup", "RunStep", "CloseSession",
                             "ListDevices", "Reset", "MakeCallable", "RunCallable", "ReleaseCallable"}) {
    routes[std::string("/tensorflow.MasterService/") + method] = [bridge, method](std::string request,
                                                                                  GrpcFront::Reply reply) {
      caf::anon_send(bridge, rpc_atom::value, std::string(method), std::move(request), GrpcAnswer{std::move(reply)});
    };
  }
  return routes;
}

}  // namespace tensoract
