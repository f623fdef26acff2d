// The data plane's handshake: each connection proves, in both directions, that its ends
// hold the cluster token before any request or tensor crosses it. The token never travels;
// each side shows an HMAC-SHA256, under a key derived from the token, of both sides'
// random nonces:
//
//   client -> server   "TADP\x01\0\0\0" + client nonce (32 bytes)
//   server -> client   server nonce (32) + HMAC(key, "server" + client nonce + server nonce)
//   client -> server   HMAC(key, "client" + client nonce + server nonce)
//   server -> client   "ok" (2 bytes), after checking the client's proof
//
// A fresh nonce on each side makes every proof single-use: a recorded handshake replayed
// to either end fails. After the handshake the connection carries raw frames (the point of
// the data plane is raw TCP speed); a network that can rewrite TCP streams needs TLS mode.
// Both functions work on a blocking socket and return by `deadline_ms` (steady clock).
#ifndef TENSORACT_ACTORS_DATA_PLANE_AUTH_H_
#define TENSORACT_ACTORS_DATA_PLANE_AUTH_H_

#include <cstdint>
#include <string>

#include "actors/cluster_credentials.h"
#include "base/status.h"

namespace tensoract {
namespace data_plane {

// The key both ends derive from the cluster token.
Digest HandshakeKey(const std::string& token);

// Server side. PermissionDenied when the client's proof is wrong or its first bytes are not
// a data-plane hello; DeadlineExceeded when it is too slow; Unavailable when it goes away.
Status AuthenticateClient(int fd, const Digest& key, int64_t deadline_ms);
// Client side. PermissionDenied naming `peer` when the server's proof is wrong or it
// rejects ours; DeadlineExceeded, Unavailable as above.
Status AuthenticateServer(int fd, const Digest& key, int64_t deadline_ms, const std::string& peer);

// Reads exactly `n` bytes into `buf` by `deadline_ms`, or fails as above.
Status ReadExactly(int fd, void* buf, size_t n, int64_t deadline_ms);
// Writes exactly `n` bytes by `deadline_ms`.
Status WriteExactly(int fd, const void* buf, size_t n, int64_t deadline_ms);

}  // namespace data_plane
}  // namespace tensoract

#endif  // TENSORACT_ACTORS_DATA_PLANE_AUTH_H_
