// One data-plane connection's bytes: the socket itself (token mode, after the HMAC
// handshake of actors/data_plane/auth.h) or a TLS session over it (TLS mode: mutual TLS
// with certificates from the cluster CA, actors/cluster_credentials.h).
//
// The server reads and writes one connection from two threads (its reader and whichever
// thread writes a reply). A socket allows that; an OpenSSL session does not, so a TLS
// stream makes its socket non-blocking, calls OpenSSL under a mutex only for as long as
// each call takes, and waits for the socket outside it: a reader waiting for the next
// request never holds up a reply.
//
// Deadlines: reads wait at most the time they are given; WriteAll waits at most the send
// timeout (SetSendTimeout) for the socket to take more; WriteNow never waits.
#ifndef TENSORACT_ACTORS_DATA_PLANE_STREAM_H_
#define TENSORACT_ACTORS_DATA_PLANE_STREAM_H_

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "base/status.h"

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace tensoract {
namespace data_plane {

class Stream {
 public:
  // The socket's bytes as they are. The stream does not own `fd`.
  explicit Stream(int fd);
  // A TLS session over `fd` (the client's or the server's end); Handshake must succeed
  // before anything else.
  Stream(int fd, SSL_CTX* tls, bool server);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  int fd() const { return fd_; }
  bool tls() const { return ssl_ != nullptr; }

  // The TLS handshake by `deadline_ms` (SteadyNowMs); nothing for a plain stream.
  // PermissionDenied naming `peer` when either side refuses the other's certificate,
  // DeadlineExceeded or Unavailable as the socket fails.
  Status Handshake(int64_t deadline_ms, const std::string& peer);

  // Up to `n` (> 0) bytes into `buf`; waits at most `wait_ms` (-1: no limit) for the first.
  // With `all`, a plain stream waits for all n (MSG_WAITALL) when they come without pause.
  // DeadlineExceeded when nothing came in time, Unavailable when the peer closed.
  StatusOr<size_t> ReadSome(void* buf, size_t n, int64_t wait_ms, bool all = false);
  // Everything in `iov` (which it advances), waiting for the socket at most the send
  // timeout each time it is full.
  Status WriteAll(struct iovec* iov, int iovcnt);
  // As much of `iov` as goes without waiting; how much that was.
  StatusOr<size_t> WriteNow(const struct iovec* iov, int iovcnt);
  // Waits, at most the send timeout, for the socket to take more (after WriteNow took
  // less than it was given): Unavailable when the peer took nothing for that long.
  Status WaitWritable();
  // -1 (the default): WriteAll and WaitWritable wait as long as it takes.
  void SetSendTimeout(int64_t ms);

 private:
  // One OpenSSL read or write under the mutex: > 0 bytes, or 0 with `*wait_events` set to
  // what the socket must become (POLLIN, POLLOUT) before the call may succeed.
  StatusOr<size_t> SslRead(void* buf, size_t n, short* wait_events);
  StatusOr<size_t> SslWrite(const void* buf, size_t n, short* wait_events);

  const int fd_;
  SSL* ssl_ = nullptr;
  bool ssl_failed_ = false;  // a TLS stream whose session could not be made
  std::mutex ssl_mu_;  // OpenSSL's session is used by one thread at a time
  int64_t send_timeout_ms_ = -1;
};

// Waits until `fd` is ready for `events`, at most `wait_ms` (-1: no limit).
// DeadlineExceeded naming `what` when it is not.
Status WaitForSocket(int fd, short events, int64_t wait_ms, const char* what);

}  // namespace data_plane
}  // namespace tensoract

#endif  // TENSORACT_ACTORS_DATA_PLANE_STREAM_H_
