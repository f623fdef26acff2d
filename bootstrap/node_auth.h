// The cluster token check: who may talk to a node's master and worker.
//
// CAF 0.17 has no authentication hook (any process that speaks BASP can connect), so a
// node publishes on its port only a gatekeeper actor, never its node service. A peer says
//
//   (hello_atom, std::string token) -> caf::actor
//
// and gets the node service's handle back (actors/node_service.h: the node's master and
// worker behind the control protocol) when the token matches the cluster's (compared in
// constant time); otherwise the error "refused: wrong cluster token", and the node logs the
// refusal on stderr with the peer's node id (its process id and host id). Only CAF's own
// types cross the wire here (an atom, a string, an actor handle, an error), so nothing
// needs a type-ID registration.
//
// What it is and is not: it keeps a peer that does not know the token (another cluster, a
// stale config, a port scanner speaking BASP politely) from getting a handle to the node service.
// It is not encryption, and a hostile peer that forges BASP messages to guessed actor ids
// is not stopped by it; that needs TLS (CAF's openssl module) on a network you do not
// trust. This is also why a node listens on loopback unless told otherwise.
#ifndef TENSORACT_BOOTSTRAP_NODE_AUTH_H_
#define TENSORACT_BOOTSTRAP_NODE_AUTH_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include <caf/actor.hpp>
#include <caf/atom.hpp>

#include "actors/rpc.h"
#include "base/status.h"

namespace caf {
class actor_system;
}  // namespace caf

namespace tensoract {


// The name of the environment variable holding the token when no file is given.
inline constexpr const char* kClusterTokenEnv = "TENSORACT_CLUSTER_TOKEN";

// The token from `token_file` (its contents, surrounding whitespace removed), or from
// $TENSORACT_CLUSTER_TOKEN when `token_file` is empty. FailedPrecondition when there is
// none or it is empty, naming where it looked.
StatusOr<std::string> LoadClusterToken(const std::string& token_file);

// Whether `presented` equals `expected`, taking the same time wherever they first differ
// (so timing tells a guesser nothing about how much of a guess was right).
bool TokensMatch(std::string_view presented, std::string_view expected);

// The gatekeeper of `service` for the task `task_name` (named in its log lines).
caf::actor SpawnGatekeeper(caf::actor_system& system, std::string token, caf::actor service,
                           std::string task_name);

// Client side, blocking (call it from a plain thread, never inside an actor): connects to
// the node at host:port, presents `token` and returns its node service. Each of the two round
// trips waits at most `timeout`. Unavailable when nothing (or no tensoract node) listens
// there, PermissionDenied when the node refuses the token, DeadlineExceeded on a timeout.
StatusOr<caf::actor> ConnectToNode(caf::actor_system& system, const std::string& host, uint16_t port,
                                     const std::string& token, std::chrono::milliseconds timeout);

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_NODE_AUTH_H_
