#include "actors/data_plane/stream.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "actors/cluster_credentials.h"
#include "actors/data_plane/wire.h"
#include "actors/sigpipe_block.h"

namespace tensoract {
namespace data_plane {
namespace {

Status Closed() { return errors::Unavailable("connection closed by the peer"); }

// Milliseconds left until `deadline_ms` (-1 stays -1: no deadline).
int64_t Left(int64_t deadline_ms) {
  if (deadline_ms < 0) return -1;
  return std::max<int64_t>(0, deadline_ms - SteadyNowMs());
}

int64_t DeadlineIn(int64_t ms) { return ms < 0 ? -1 : SteadyNowMs() + ms; }

}  // namespace

Status WaitForSocket(int fd, short events, int64_t wait_ms, const char* what) {
  const int64_t deadline = DeadlineIn(wait_ms);
  for (;;) {
    const int64_t left = Left(deadline);
    pollfd p{fd, events, 0};
    int rc = poll(&p, 1, left < 0 ? -1 : static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    if (rc > 0) return Status::OK();
    if (rc == 0) return errors::DeadlineExceeded(what, " for ", wait_ms, " ms");
    if (errno != EINTR) return errors::Unavailable("poll failed: ", std::strerror(errno));
  }
}

Stream::Stream(int fd) : fd_(fd) {}

Stream::Stream(int fd, SSL_CTX* tls, bool server) : fd_(fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  ssl_ = SSL_new(tls);
  if (ssl_ == nullptr) {
    ssl_failed_ = true;  // Handshake says so
    return;
  }
  SSL_set_fd(ssl_, fd);
  // A write may go out in parts, and be continued from a buffer that moved: the server
  // continues a reply where the socket stopped taking it.
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (server) {
    SSL_set_accept_state(ssl_);
  } else {
    SSL_set_connect_state(ssl_);
  }
}

Stream::~Stream() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

void Stream::SetSendTimeout(int64_t ms) {
  send_timeout_ms_ = ms;
  if (ssl_ == nullptr && ms > 0) {
    // A plain stream writes blocking: the kernel gives up after this long.
    timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  }
}

Status Stream::Handshake(int64_t deadline_ms, const std::string& peer) {
  if (ssl_failed_) return errors::Internal("data plane: cannot make a TLS session: ", SslErrorText());
  if (ssl_ == nullptr) return Status::OK();
  for (;;) {
    int rc, err;
    long verified;
    {
      std::lock_guard<std::mutex> lock(ssl_mu_);
      SigpipeBlock no_sigpipe;
      ERR_clear_error();  // a stale error of this thread would be taken for this call's
      rc = SSL_do_handshake(ssl_);
      err = SSL_get_error(ssl_, rc);
      verified = SSL_get_verify_result(ssl_);
    }
    if (rc == 1) return Status::OK();
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      const int64_t left = deadline_ms - SteadyNowMs();
      if (left <= 0) return errors::DeadlineExceeded("data plane peer ", peer, ": TLS handshake: no answer in time");
      Status ready = WaitForSocket(fd_, err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, left, "TLS handshake: no answer");
      if (ready.code() == error::DEADLINE_EXCEEDED) {
        return errors::DeadlineExceeded("data plane peer ", peer, ": TLS handshake: no answer in time");
      }
      TA_RETURN_IF_ERROR(ready);
      continue;
    }
    if (verified != X509_V_OK) {
      return errors::PermissionDenied("data plane peer ", peer, ": its certificate is not from the cluster CA (",
                                      X509_verify_cert_error_string(verified), ")");
    }
    if (err == SSL_ERROR_SSL) {
      return errors::PermissionDenied("data plane peer ", peer, ": TLS handshake refused: ", SslErrorText());
    }
    return errors::Unavailable("data plane peer ", peer, ": connection closed during the TLS handshake");
  }
}

StatusOr<size_t> Stream::SslRead(void* buf, size_t n, short* wait_events) {
  std::lock_guard<std::mutex> lock(ssl_mu_);
  SigpipeBlock no_sigpipe;  // a read may write (an alert, a key update)
  ERR_clear_error();
  const int rc = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(n, INT_MAX)));
  if (rc > 0) return static_cast<size_t>(rc);
  const int err = SSL_get_error(ssl_, rc);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    *wait_events = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
    return size_t{0};
  }
  if (err == SSL_ERROR_ZERO_RETURN) return Closed();
  if (err == SSL_ERROR_SYSCALL) {
    return errno == 0 ? Closed() : errors::Unavailable("receive failed: ", std::strerror(errno));
  }
  return errors::Unavailable("TLS: ", SslErrorText());
}

StatusOr<size_t> Stream::SslWrite(const void* buf, size_t n, short* wait_events) {
  std::lock_guard<std::mutex> lock(ssl_mu_);
  SigpipeBlock no_sigpipe;
  ERR_clear_error();
  const int rc = SSL_write(ssl_, buf, static_cast<int>(std::min<size_t>(n, INT_MAX)));
  if (rc > 0) return static_cast<size_t>(rc);
  const int err = SSL_get_error(ssl_, rc);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    *wait_events = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
    return size_t{0};
  }
  if (err == SSL_ERROR_SYSCALL && errno != 0) return errors::Unavailable("send failed: ", std::strerror(errno));
  if (err == SSL_ERROR_SYSCALL || err == SSL_ERROR_ZERO_RETURN) return Closed();
  return errors::Unavailable("TLS: ", SslErrorText());
}

StatusOr<size_t> Stream::ReadSome(void* buf, size_t n, int64_t wait_ms, bool all) {
  const int64_t deadline = DeadlineIn(wait_ms);
  for (;;) {
    if (ssl_ != nullptr) {
      short events = 0;
      TA_ASSIGN_OR_RETURN(size_t got, SslRead(buf, n, &events));
      if (got > 0) return got;
      TA_RETURN_IF_ERROR(WaitForSocket(fd_, events, Left(deadline), "nothing came"));
      continue;
    }
    if (wait_ms >= 0) TA_RETURN_IF_ERROR(WaitForSocket(fd_, POLLIN, Left(deadline), "nothing came"));
    const ssize_t got = recv(fd_, buf, n, all ? MSG_WAITALL : 0);
    if (got > 0) return static_cast<size_t>(got);
    if (got == 0) return Closed();
    if (errno != EINTR && errno != EAGAIN) return errors::Unavailable("receive failed: ", std::strerror(errno));
  }
}

StatusOr<size_t> Stream::WriteNow(const struct iovec* iov, int iovcnt) {
  if (ssl_ == nullptr) {
    msghdr msg{};
    msg.msg_iov = const_cast<iovec*>(iov);
    msg.msg_iovlen = static_cast<size_t>(std::min(iovcnt, IOV_MAX));
    for (;;) {
      const ssize_t n = sendmsg(fd_, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EAGAIN || errno == EWOULDBLOCK) return size_t{0};
      if (errno != EINTR) return errors::Unavailable("send failed: ", std::strerror(errno));
    }
  }
  size_t total = 0;
  for (int i = 0; i < iovcnt; ++i) {
    size_t done = 0;
    while (done < iov[i].iov_len) {
      short events = 0;
      TA_ASSIGN_OR_RETURN(size_t put, SslWrite(static_cast<const char*>(iov[i].iov_base) + done,
                                               iov[i].iov_len - done, &events));
      if (put == 0) return total + done;
      done += put;
    }
    total += done;
  }
  return total;
}

Status Stream::WaitWritable() {
  Status ready = WaitForSocket(fd_, POLLOUT, send_timeout_ms_, "the peer took nothing");
  if (ready.code() == error::DEADLINE_EXCEEDED) return errors::Unavailable("the peer stopped reading");
  return ready;
}

Status Stream::WriteAll(struct iovec* iov, int iovcnt) {
  while (iovcnt > 0) {
    size_t put = 0;
    if (ssl_ != nullptr) {
      short events = 0;
      TA_ASSIGN_OR_RETURN(put, SslWrite(iov->iov_base, iov->iov_len, &events));
      if (put == 0) {
        Status ready = WaitForSocket(fd_, events, send_timeout_ms_, "the peer took nothing");
        if (ready.code() == error::DEADLINE_EXCEEDED) return errors::Unavailable("the peer stopped reading");
        TA_RETURN_IF_ERROR(ready);
        continue;
      }
    } else {
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = static_cast<size_t>(std::min(iovcnt, IOV_MAX));
      const ssize_t n = sendmsg(fd_, &msg, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        // Blocking: EAGAIN means the send timeout passed with the peer taking nothing.
        if (errno == EAGAIN || errno == EWOULDBLOCK) return errors::Unavailable("the peer stopped reading");
        return errors::Unavailable("send failed: ", std::strerror(errno));
      }
      put = static_cast<size_t>(n);
    }
    while (iovcnt > 0 && put >= iov->iov_len) {
      put -= iov->iov_len;
      ++iov;
      --iovcnt;
    }
    if (iovcnt > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + put;
      iov->iov_len -= put;
    }
  }
  return Status::OK();
}

}  // namespace data_plane
}  // namespace tensoract
