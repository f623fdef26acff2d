// The control channel between a cluster's processes: CAF's BASP over connections that
// prove membership before a single BASP byte is read.
//
// CAF 0.17 has no authentication hook: any process that speaks BASP to a published port
// can message any actor of the node by id, including exit messages. So a process never
// loads CAF's plain network backend. It loads this one (CAF's default multiplexer whose
// scribes and doormen speak TLS: actors/cluster_credentials.h, TLS 1.3 with the token's
// pre-shared key, or mutual TLS with the cluster CA's certificates), so every connection
// CAF makes or accepts, for BASP or anything else, is authenticated. A peer that cannot complete the handshake never
// reaches BASP, so nothing it sends reaches an actor: not a request, not an exit message,
// not a message to a guessed actor id. Every record after the handshake is authenticated.
//
// Bounds on what a stranger can hold: a handshake must finish within 10 s (a watchdog
// shuts the socket down), at most 128 inbound handshakes run at once (at accept, a new one
// closes the one waiting longest: idle strangers cannot keep members out), and a node
// that runs out of descriptors sheds new connections instead of spinning on them. A member may announce a BASP message of at most 512 MiB
// ($TENSORACT_MAX_CONTROL_MESSAGE_BYTES): a larger one closes its connection before
// anything is allocated for it. Each refusal reason is logged once per peer address.
//
// Thread-safety: the functions below may be called from any thread; the connections run
// on CAF's multiplexer thread.
#ifndef TENSORACT_ACTORS_CLUSTER_TRANSPORT_H_
#define TENSORACT_ACTORS_CLUSTER_TRANSPORT_H_

#include <chrono>
#include <cstdint>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/cluster_credentials.h"
#include "base/status.h"

namespace tensoract {

inline constexpr const char* kMaxControlMessageBytesEnv = "TENSORACT_MAX_CONTROL_MESSAGE_BYTES";

// Makes the actor system built from `config` a member of the cluster: loads CAF's
// middleman with a network backend whose every connection, inbound and outbound, is TLS
// with `credentials`. Publish and connect as usual (`system.middleman().publish`, the
// middleman actor's connect_atom). Call it instead of `config.load<caf::io::middleman>()`.
// `log_name` prefixes the transport's log lines ("tensoract-node worker:0").
// InvalidArgument when the credentials are incomplete or a certificate or key cannot be
// loaded.
Status ConfigureClusterTransport(caf::actor_system_config& config, const ClusterCredentials& credentials,
                                 const std::string& log_name = "tensoract");

// Whether `system` was configured by ConfigureClusterTransport.
bool HasClusterTransport(caf::actor_system& system);

// The Status for a failed connect request to host:port (`where` names it in the message):
// PermissionDenied "refused: wrong cluster token ..." when the peer rejected our handshake
// (another cluster's token or CA, or not a tensoract node), DeadlineExceeded when nothing
// answered in time, Unavailable otherwise (refused, reset, unreachable).
Status DescribeConnectFailure(caf::actor_system& system, const caf::error& error, const std::string& host,
                              uint16_t port, const std::string& where);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_CLUSTER_TRANSPORT_H_
