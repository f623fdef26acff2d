#include "actors/data_plane/wire.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <chrono>
#include <cstring>

#include <capnp/serialize.h>

namespace tensoract {
namespace data_plane {
namespace {

Status SplitPeer(const std::string& peer, std::string* host, std::string* port) {
  const size_t colon = peer.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == peer.size()) {
    return errors::InvalidArgument("data plane peer '", peer, "' is not host:port");
  }
  *host = peer.substr(0, colon);
  *port = peer.substr(colon + 1);
  return Status::OK();
}

}  // namespace

int64_t SteadyNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void TuneSocket(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  // The kernel caps these at net.core.{r,w}mem_max; asking is harmless.
  int bytes = 8 << 20;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

StatusOr<int> ConnectTo(const std::string& peer, int64_t deadline_ms) {
  std::string host, port;
  TA_RETURN_IF_ERROR(SplitPeer(peer, &host, &port));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addrs = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &addrs); rc != 0) {
    return errors::Unavailable("data plane peer ", peer, ": cannot resolve: ", gai_strerror(rc));
  }
  Status last = errors::Unavailable("data plane peer ", peer, ": no address");
  for (addrinfo* a = addrs; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      last = errors::Unavailable("data plane peer ", peer, ": socket: ", std::strerror(errno));
      continue;
    }
    // Non-blocking connect, so that an unreachable host costs at most the deadline.
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const int64_t wait_ms = std::max<int64_t>(0, deadline_ms - SteadyNowMs());
      rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(wait_ms, 1 << 30)));
      if (rc == 0) {
        close(fd);
        freeaddrinfo(addrs);
        return errors::DeadlineExceeded("data plane peer ", peer, ": connect timed out");
      }
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc != 0) {
      last = errors::Unavailable("data plane peer ", peer, ": connect: ", std::strerror(errno));
      close(fd);
      continue;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    TuneSocket(fd);
    freeaddrinfo(addrs);
    return fd;
  }
  freeaddrinfo(addrs);
  return last;
}

StatusOr<int> ListenOn(const std::string& host, int port, int* bound_port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return errors::InvalidArgument("data plane: '", host, "' is not an IPv4 address");
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errors::Unavailable("data plane: socket: ", std::strerror(errno));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 64) != 0) {
    Status s = errors::Unavailable("data plane: cannot listen on ", host, ":", port, ": ", std::strerror(errno));
    close(fd);
    return s;
  }
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *bound_port = ntohs(addr.sin_port);
  return fd;
}

kj::Array<capnp::word> Encode(capnp::MessageBuilder& message) {
  return capnp::messageToFlatArray(message);
}

FrameReader::FrameReader(Stream& stream) : stream_(stream), buffer_(64 << 10) {}

Status FrameReader::Explain(const Status& s) const {
  if (s.code() != error::DEADLINE_EXCEEDED) return s;
  return errors::DeadlineExceeded(at_message_start_ ? "no request for " : "nothing more of a message for ", WaitMs(),
                                  " ms");
}

Status FrameReader::Fill() {
  if (begin_ == end_) begin_ = end_ = 0;
  if (end_ == buffer_.size()) {  // compact: move the unread tail to the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  auto got = stream_.ReadSome(buffer_.data() + end_, buffer_.size() - end_, WaitMs());
  if (!got.ok()) return Explain(got.status());
  end_ += *got;
  at_message_start_ = false;  // a message has begun: the rest of it is due soon
  return Status::OK();
}

Status FrameReader::ReadRaw(void* dst, size_t n) {
  char* out = static_cast<char*>(dst);
  const size_t buffered = std::min(n, end_ - begin_);
  if (out != nullptr) std::memcpy(out, buffer_.data() + begin_, buffered);
  begin_ += buffered;
  n -= buffered;
  if (out != nullptr) out += buffered;
  // Large reads go straight into the destination: the payload's one and only copy is the
  // kernel's (or TLS's), out of the socket.
  while (out != nullptr && n >= buffer_.size() / 2) {
    auto got = stream_.ReadSome(out, n, WaitMs(), /*all=*/true);
    if (!got.ok()) return Explain(got.status());
    at_message_start_ = false;
    out += *got;
    n -= *got;
  }
  while (n > 0) {
    TA_RETURN_IF_ERROR(Fill());
    const size_t take = std::min(n, end_ - begin_);
    if (out != nullptr) {
      std::memcpy(out, buffer_.data() + begin_, take);
      out += take;
    }
    begin_ += take;
    n -= take;
  }
  return Status::OK();
}

Status FrameReader::ReadMessage(kj::Array<capnp::word>* words) {
  // Stream framing: u32 (segment count - 1), u32 size in words of each segment, padded to
  // a whole word, then the segments.
  uint32_t first[2];
  at_message_start_ = begin_ == end_;
  Status started = ReadRaw(first, sizeof(first));
  at_message_start_ = false;
  TA_RETURN_IF_ERROR(started);
  const uint64_t segments = uint64_t{first[0]} + 1;
  if (segments > 64) {
    return errors::DataLoss("bad data plane header: ", segments, " segments");
  }
  const size_t table_words = (segments + 2) / 2;  // (4 + 4 * segments) bytes, rounded up
  std::vector<uint32_t> sizes(table_words * 2, 0);
  sizes[0] = first[0];
  sizes[1] = first[1];
  TA_RETURN_IF_ERROR(ReadRaw(sizes.data() + 2, table_words * 8 - 8));
  uint64_t total = 0;
  for (uint64_t i = 0; i < segments; ++i) total += sizes[i + 1];
  if (total * 8 > kMaxHeaderBytes) {
    return errors::DataLoss("bad data plane header: ", total * 8, " bytes");
  }
  *words = kj::heapArray<capnp::word>(table_words + total);
  std::memcpy(static_cast<void*>(words->begin()), sizes.data(), table_words * 8);
  return ReadRaw(static_cast<void*>(words->begin() + table_words), total * 8);
}

}  // namespace data_plane
}  // namespace tensoract
