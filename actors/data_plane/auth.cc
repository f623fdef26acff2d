#include "actors/data_plane/auth.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "actors/data_plane/wire.h"

namespace tensoract {
namespace data_plane {
namespace {

constexpr char kHello[8] = {'T', 'A', 'D', 'P', 1, 0, 0, 0};
constexpr size_t kNonceBytes = 32;
constexpr char kAccepted[2] = {'o', 'k'};

// Waits until fd is ready for `events` or the deadline passes.
Status WaitFor(int fd, short events, int64_t deadline_ms) {
  for (;;) {
    const int64_t left = deadline_ms - SteadyNowMs();
    if (left <= 0) return errors::DeadlineExceeded("data plane handshake: no answer in time");
    pollfd p{fd, events, 0};
    int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    if (rc > 0) return Status::OK();
    if (rc < 0 && errno != EINTR) return errors::Unavailable("data plane handshake: poll: ", std::strerror(errno));
  }
}

std::string Proof(const Digest& key, const char* side, const std::string& client_nonce,
                  const std::string& server_nonce) {
  Digest d = Hmac(key, std::string(side) + client_nonce + server_nonce);
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

bool ProofsEqual(const std::string& a, const std::string& b) {
  Digest x{}, y{};
  if (a.size() != x.size() || b.size() != y.size()) return false;
  std::memcpy(x.data(), a.data(), x.size());
  std::memcpy(y.data(), b.data(), y.size());
  return DigestsEqual(x, y);
}

}  // namespace

Digest HandshakeKey(const std::string& token) { return DeriveKey(token, "data plane"); }

Status ReadExactly(int fd, void* buf, size_t n, int64_t deadline_ms) {
  char* out = static_cast<char*>(buf);
  while (n > 0) {
    TA_RETURN_IF_ERROR(WaitFor(fd, POLLIN, deadline_ms));
    ssize_t got = recv(fd, out, n, MSG_DONTWAIT);
    if (got == 0) return errors::Unavailable("data plane handshake: connection closed by the peer");
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return errors::Unavailable("data plane handshake: receive failed: ", std::strerror(errno));
    }
    out += got;
    n -= static_cast<size_t>(got);
  }
  return Status::OK();
}

Status WriteExactly(int fd, const void* buf, size_t n, int64_t deadline_ms) {
  const char* in = static_cast<const char*>(buf);
  while (n > 0) {
    TA_RETURN_IF_ERROR(WaitFor(fd, POLLOUT, deadline_ms));
    ssize_t put = send(fd, in, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (put < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return errors::Unavailable("data plane handshake: send failed: ", std::strerror(errno));
    }
    in += put;
    n -= static_cast<size_t>(put);
  }
  return Status::OK();
}

Status AuthenticateClient(int fd, const Digest& key, int64_t deadline_ms) {
  char hello[sizeof(kHello)];
  TA_RETURN_IF_ERROR(ReadExactly(fd, hello, sizeof(hello), deadline_ms));
  if (std::memcmp(hello, kHello, sizeof(kHello)) != 0) {
    return errors::PermissionDenied("not a data plane hello (another protocol, or an old tensoract)");
  }
  std::string client_nonce(kNonceBytes, '\0');
  TA_RETURN_IF_ERROR(ReadExactly(fd, client_nonce.data(), kNonceBytes, deadline_ms));
  const std::string server_nonce = RandomBytes(kNonceBytes);
  const std::string challenge = server_nonce + Proof(key, "server", client_nonce, server_nonce);
  TA_RETURN_IF_ERROR(WriteExactly(fd, challenge.data(), challenge.size(), deadline_ms));
  std::string proof(sizeof(Digest), '\0');
  TA_RETURN_IF_ERROR(ReadExactly(fd, proof.data(), proof.size(), deadline_ms));
  if (!ProofsEqual(proof, Proof(key, "client", client_nonce, server_nonce))) {
    return errors::PermissionDenied("the client does not hold the cluster token");
  }
  return WriteExactly(fd, kAccepted, sizeof(kAccepted), deadline_ms);
}

Status AuthenticateServer(int fd, const Digest& key, int64_t deadline_ms, const std::string& peer) {
  const std::string client_nonce = RandomBytes(kNonceBytes);
  const std::string hello = std::string(kHello, sizeof(kHello)) + client_nonce;
  auto named = [&](const Status& s) { return Status(s.code(), StrCat("data plane peer ", peer, ": ", s.message())); };
  Status s = WriteExactly(fd, hello.data(), hello.size(), deadline_ms);
  if (!s.ok()) return named(s);
  std::string challenge(kNonceBytes + sizeof(Digest), '\0');
  s = ReadExactly(fd, challenge.data(), challenge.size(), deadline_ms);
  if (!s.ok()) return named(s);
  const std::string server_nonce = challenge.substr(0, kNonceBytes);
  if (!ProofsEqual(challenge.substr(kNonceBytes), Proof(key, "server", client_nonce, server_nonce))) {
    return errors::PermissionDenied("data plane peer ", peer, " does not hold the cluster token");
  }
  const std::string proof = Proof(key, "client", client_nonce, server_nonce);
  s = WriteExactly(fd, proof.data(), proof.size(), deadline_ms);
  if (!s.ok()) return named(s);
  char accepted[sizeof(kAccepted)];
  s = ReadExactly(fd, accepted, sizeof(accepted), deadline_ms);
  if (s.code() == error::UNAVAILABLE) {
    return errors::PermissionDenied("data plane peer ", peer, " rejected our proof of the cluster token");
  }
  if (!s.ok()) return named(s);
  if (std::memcmp(accepted, kAccepted, sizeof(kAccepted)) != 0) {
    return errors::PermissionDenied("data plane peer ", peer, " answered the handshake with garbage");
  }
  return Status::OK();
}

}  // namespace data_plane
}  // namespace tensoract
