// What a process shows to prove it belongs to a cluster, and the OpenSSL pieces built
// from it. Both channels between processes use them: the control channel
// (actors/cluster_transport.h) and the data plane (actors/data_plane_*.h).
//
// Two modes:
// - token mode (the default): every process holds the same secret token. The control
//   channel is TLS 1.3 with a pre-shared key derived from the token (both ends prove they
//   hold it, every record is authenticated and encrypted, and the token itself never
//   crosses the wire); the data plane authenticates each connection with an HMAC
//   challenge-response in both directions and then carries raw bytes.
// - TLS mode (`tls_cert_file` set): mutual TLS with certificates signed by the cluster's CA,
//   on both channels. A peer without a certificate from that CA is refused.
#ifndef TENSORACT_ACTORS_CLUSTER_CREDENTIALS_H_
#define TENSORACT_ACTORS_CLUSTER_CREDENTIALS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace tensoract {

struct ClusterCredentials {
  std::string token;          // token mode: the cluster's shared secret
  std::string tls_cert_file;  // TLS mode: this task's certificate chain (PEM)
  std::string tls_key_file;   // and its private key (PEM)
  std::string tls_ca_file;    // the cluster CA that signed every task's certificate

  static ClusterCredentials FromToken(std::string token) {
    ClusterCredentials c;
    c.token = std::move(token);
    return c;
  }
  bool tls() const { return !tls_cert_file.empty(); }
  // InvalidArgument naming what is missing (no token; a certificate without key or CA).
  Status Validate() const;
  // Equal for equal credentials; safe to log (a hash, never the secret).
  std::string Fingerprint() const;
};

// An SSL_CTX for the control channel or the data plane, shared by every connection of
// the process (OpenSSL allows that once it is configured). Token mode: TLS 1.3 with the
// token's pre-shared key; TLS mode: certificate, key and CA loaded, peers verified.
struct SslContextDeleter {
  void operator()(SSL_CTX* ctx) const;
};
using SslContextPtr = std::unique_ptr<SSL_CTX, SslContextDeleter>;
StatusOr<SslContextPtr> MakeSslContext(const ClusterCredentials& credentials);

// A key derived from the token for one `purpose` (HMAC-SHA256 of a label), so that the
// same token gives unrelated keys to the control channel and the data plane.
using Digest = std::array<uint8_t, 32>;
Digest DeriveKey(const std::string& token, const std::string& purpose);
// HMAC-SHA256 of `message` under `key`.
Digest Hmac(const Digest& key, const std::string& message);
bool DigestsEqual(const Digest& a, const Digest& b);  // constant time
// `n` bytes from OpenSSL's CSPRNG.
std::string RandomBytes(size_t n);
// A random 64-bit value (never 0), for handles a stale client must not guess.
uint64_t RandomId();
// RandomId() as 16 hex digits, as TensorFlow writes its session handles.
std::string RandomHandle();

// OpenSSL's queued errors as text (and clears them), for messages.
std::string SslErrorText();

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_CLUSTER_CREDENTIALS_H_
