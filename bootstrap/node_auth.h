// Joining a cluster from a process: its credentials, and a connection to one of its nodes.
//
// A node publishes its node service (actors/node_service.h) on an actor system configured
// with the cluster transport (actors/cluster_transport.h): a peer must complete a TLS
// handshake with the cluster's credentials (the token's pre-shared key, or a certificate
// from the cluster CA) before any message of its reaches an actor. The token never crosses
// the wire.
#ifndef TENSORACT_BOOTSTRAP_NODE_AUTH_H_
#define TENSORACT_BOOTSTRAP_NODE_AUTH_H_

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <caf/actor.hpp>

#include "actors/cluster_transport.h"
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

// A process's credentials from its flags: TLS mode when `tls_cert_file` is given (then
// `tls_key_file` and `tls_ca_file` are required and must load; no token is read), token
// mode otherwise (LoadClusterToken). The error names the missing or unreadable piece.
StatusOr<ClusterCredentials> LoadClusterCredentials(const std::string& token_file, const std::string& tls_cert_file,
                                                    const std::string& tls_key_file, const std::string& tls_ca_file);

// Client side, blocking (call it from a plain thread, never inside an actor): connects to
// the node at host:port through the cluster transport `system` was configured with
// (actors/cluster_transport.h) and returns its node service, waiting at most `timeout`.
// Unavailable when nothing (or no tensoract node) listens there, PermissionDenied when the
// node rejects our credentials, DeadlineExceeded on a timeout, FailedPrecondition when
// `system` has no cluster transport.
StatusOr<caf::actor> ConnectToNode(caf::actor_system& system, const std::string& host, uint16_t port,
                                   std::chrono::milliseconds timeout);

// The flags of a tool that talks to one node (tensoract-inspect, tensoract-observe):
// HOST:PORT, --token-file PATH or --tls-cert/--tls-key/--tls-ca PATH, --timeout-ms N.
struct NodeClientFlags {
  std::string address;  // host:port, as given
  std::string token_file, tls_cert_file, tls_key_file, tls_ca_file;
  int timeout_ms = 5000;
};
inline constexpr const char* kNodeClientFlagsUsage =
    "  --token-file PATH  the cluster token (default: $TENSORACT_CLUSTER_TOKEN)\n"
    "  --tls-cert, --tls-key, --tls-ca PATH  TLS mode: a certificate and key from the\n"
    "                     cluster CA, and the CA's certificate\n"
    "  --timeout-ms N     deadline of each round trip\n";
// Takes args[*i] (and its value, advancing *i) when it is one of these flags or the
// address: true if it was; an error for a flag without a valid value or a second address.
StatusOr<bool> ParseNodeClientFlag(const std::vector<std::string>& args, size_t* i, NodeClientFlags* flags);

// The main of such a tool (ParseNodeClientFlag's): --help prints `usage` and the client
// flags; `parse` makes the tool's Args (with a NodeClientFlags `flags`) from the arguments,
// exit status 2 when it fails; then the credentials load (1 when they cannot) and `run`
// gives the exit status.
template <class Args>
int NodeClientMain(const char* tool, const char* usage, int argc, char** argv,
                   StatusOr<Args> (*parse)(const std::vector<std::string>&),
                   int (*run)(const Args&, const ClusterCredentials&)) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << usage << kNodeClientFlagsUsage;
      return 0;
    }
  }
  StatusOr<Args> parsed = parse(args);
  if (!parsed.ok()) {
    std::cerr << tool << ": " << parsed.status() << "\n" << usage << kNodeClientFlagsUsage;
    return 2;
  }
  const NodeClientFlags& f = parsed->flags;
  auto credentials = LoadClusterCredentials(f.token_file, f.tls_cert_file, f.tls_key_file, f.tls_ca_file);
  if (!credentials.ok()) {
    std::cerr << tool << ": " << credentials.status() << "\n";
    return 1;
  }
  return run(*parsed, *credentials);
}

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_NODE_AUTH_H_
