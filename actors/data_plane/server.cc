#include "actors/data_plane/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <iostream>
#include <system_error>

#include <capnp/serialize.h>

#include "actors/data_plane/auth.h"
#include "actors/data_plane/wire.h"
#include "messages/tensor.pb.h"
#include "messages/tensor_frame.capnp.h"

namespace tensoract {

using data_plane::kChunkBytes;

// Replies from this size on leave the node oldest first (data_plane::EgressOrder); smaller
// ones go out as they come: they take less of the link than the reordering would save.
constexpr size_t kOrderedBytes = size_t{512} << 10;
constexpr size_t kOrderedUnsentBytes = size_t{256} << 10;
constexpr size_t kAloneUnsentBytes = size_t{1} << 20;

namespace {

// One reply on its way out: the header's fields and the payload still to send.
struct Outgoing {
  uint64_t request_id = 0;
  std::string key;
  Status status;
  Tensor value;  // keeps the payload's buffer alive while it is written
  bool is_dead = false;
  bool lossy16 = false;
  std::vector<uint16_t> truncated;  // the lossy16 payload
  std::string encoded;              // the payload of a tensor without flat bytes: a TensorProto
  const char* payload = nullptr;
  size_t bytes = 0;
  size_t sent = 0;
  bool header_sent = false;
  // The piece on its way: its header, and how much of it and of its payload went out.
  kj::Array<capnp::word> header;
  size_t header_done = 0;
  size_t piece_bytes = 0;
  size_t piece_done = 0;
  bool in_piece = false;
  // A large reply's place in its node's line (EgressOrder); none for a small one.
  std::unique_ptr<data_plane::EgressOrder::Ticket> ticket;

  bool finished() const { return header_sent && sent == bytes; }
};

std::unique_ptr<Outgoing> MakeOutgoing(uint64_t request_id, const std::string& key, bool lossy16,
                                       const Status& status, const Tensor& value, bool is_dead) {
  auto out = std::make_unique<Outgoing>();
  out->request_id = request_id;
  out->key = key;
  out->status = status;
  out->is_dead = is_dead;
  if (!status.ok() || is_dead) return out;
  out->value = value;
  if (!DataTypeIsFixedSize(value.dtype())) {
    // Strings, variants and resource handles have no flat bytes: they travel as a TensorProto.
    tensorflow::TensorProto proto;
    value.AsProtoTensorContent(&proto);
    out->encoded = proto.SerializeAsString();
    out->bytes = out->encoded.size();
    out->payload = out->encoded.data();
    return out;
  }
  out->bytes = value.TotalBytes();
  out->payload = static_cast<const char*>(value.data());
  if (lossy16 && value.dtype() == tensorflow::DT_FLOAT) {
    // Keep the upper 16 bits of each float (sign, exponent, 7 mantissa bits).
    const int64_t n = value.NumElements();
    const uint32_t* bits = static_cast<const uint32_t*>(value.data());
    out->truncated.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out->truncated[i] = static_cast<uint16_t>(bits[i] >> 16);
    out->lossy16 = true;
    out->payload = reinterpret_cast<const char*>(out->truncated.data());
    out->bytes = out->truncated.size() * sizeof(uint16_t);
  }
  return out;
}

// Builds the header of `item`'s next piece: its frame with the first chunk, or the next chunk.
void StartPiece(Outgoing& item) {
  capnp::MallocMessageBuilder message(128);
  size_t length = std::min(kChunkBytes, item.bytes - item.sent);
  auto reply = message.initRoot<DataPlaneReply>();
  if (!item.header_sent) {
    auto frame = reply.initFrame();
    frame.setRequestId(item.request_id);
    frame.setKey(item.key);
    if (!item.status.ok()) {
      frame.setStatusCode(static_cast<int32_t>(item.status.code()));
      frame.setStatusMessage(item.status.message());
      length = 0;
    } else {
      frame.setDtype(static_cast<uint32_t>(item.value.dtype()));
      const TensorShape& shape = item.value.shape();
      auto dims = frame.initShape(static_cast<unsigned>(shape.dims()));
      for (int d = 0; d < shape.dims(); ++d) dims.set(static_cast<unsigned>(d), shape.dim_size(d));
      frame.setLossy16(item.lossy16);
      frame.setEncoded(!item.encoded.empty());
      frame.setIsDead(item.is_dead);
      frame.setByteLength(item.bytes);
      frame.setFirstChunk(length);
    }
  } else {
    auto chunk = reply.initChunk();
    chunk.setRequestId(item.request_id);
    chunk.setOffset(item.sent);
    chunk.setLength(length);
  }
  item.header = data_plane::Encode(message);
  item.header_done = 0;
  item.piece_bytes = length;
  item.piece_done = 0;
  item.in_piece = true;
}

// Writes what it can of `item`'s current piece (starting the next one if none is under
// way): all of it, or with `dontwait` what the stream takes without waiting. `*done`
// tells whether the piece went out whole. Unavailable when the socket fails or, waiting,
// the client took nothing for the send timeout.
Status WritePiece(data_plane::Stream& stream, Outgoing& item, bool dontwait, bool* done) {
  *done = false;
  if (!item.in_piece) StartPiece(item);
  const size_t header_bytes = item.header.size() * sizeof(capnp::word);
  for (;;) {
    iovec iov[2];
    int count = 0;
    if (item.header_done < header_bytes) {
      iov[count++] = {reinterpret_cast<char*>(item.header.begin()) + item.header_done, header_bytes - item.header_done};
    }
    if (item.piece_done < item.piece_bytes) {
      iov[count++] = {const_cast<char*>(item.payload) + item.sent + item.piece_done, item.piece_bytes - item.piece_done};
    }
    if (count == 0) break;
    size_t left;
    if (dontwait) {
      TA_ASSIGN_OR_RETURN(left, stream.WriteNow(iov, count));
      if (left == 0) return Status::OK();  // the socket is full: the writer goes on later
    } else {
      left = (header_bytes - item.header_done) + (item.piece_bytes - item.piece_done);
      TA_RETURN_IF_ERROR(stream.WriteAll(iov, count));
    }
    const size_t from_header = std::min(left, header_bytes - item.header_done);
    item.header_done += from_header;
    item.piece_done += left - from_header;
  }
  item.in_piece = false;
  item.header_sent = true;
  item.sent += item.piece_bytes;
  if (!item.status.ok()) item.sent = item.bytes;
  *done = true;
  return Status::OK();
}

// Writes `item`'s current piece when its turn comes (data_plane::EgressOrder): what the
// socket takes without waiting, then, while the piece lasts, waits for the socket (at most
// the send timeout) and for its turn again. `*done` as WritePiece's. `*unsent_limit`: the
// socket's TCP_NOTSENT_LOWAT as last set (0: never).
Status WriteInTurn(data_plane::Stream& stream, Outgoing& item, int* unsent_limit, bool* done) {
  data_plane::EgressOrder::Ticket& ticket = *item.ticket;
  for (;;) {
    // The socket takes at most this much not yet sent (a send buffer of 8 MB would take a
    // whole reply at once, and the kernel would share the link among every reply it
    // holds): a reply counts as written when its bytes are on their way, and the next
    // one's turn comes then. Less while others wait: the writer comes back sooner (every
    // 128 KB sent), so a link of 100 Mbit/s keeps the order within EgressOrder's stall.
    const int unsent = static_cast<int>(ticket.WaitTurn() ? kOrderedUnsentBytes : kAloneUnsentBytes);
    if (unsent != *unsent_limit) {
      setsockopt(stream.fd(), IPPROTO_TCP, TCP_NOTSENT_LOWAT, &unsent, sizeof(unsent));
      *unsent_limit = unsent;
    }
    Status s = WritePiece(stream, item, /*dontwait=*/true, done);
    if (s.ok() && !*done) {
      ticket.Polling();
      s = stream.WaitWritable();
      if (s.ok()) continue;
    }
    ticket.Idle();
    return s;  // the piece went out whole, or the socket failed (the connection closes)
  }
}

std::string PeerOf(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  char host[INET6_ADDRSTRLEN] = "?";
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    if (addr.ss_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, host, sizeof(host));
    } else if (addr.ss_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, host, sizeof(host));
    }
  }
  return host;
}

}  // namespace

struct DataPlaneServer::Connection {
  Connection(DataPlaneServer* server, int fd, std::string source)
      : server(server), fd(fd), source(std::move(source)), stream(server->tls_ ? data_plane::Stream(fd, server->tls_.get(), /*server=*/true)
                                                    : data_plane::Stream(fd)) {}

  // Marks the connection closed and wakes everyone; the socket is shut down so that a
  // blocked read or write returns. Requires mu held.
  void CloseLocked() {
    if (!closed) shutdown(fd, SHUT_RDWR);
    closed = true;
    cv.notify_all();
  }

  // Writes (part of) the item's piece with the socket owned (`writing`), then gives the
  // socket back. Whether the piece went out whole.
  bool WriteOwned(std::unique_lock<std::mutex>& lock, Outgoing& item, bool dontwait) {
    writing = true;
    lock.unlock();
    bool done = false;
    Status s = item.ticket != nullptr && !dontwait ? WriteInTurn(stream, item, &unsent_limit, &done)
                                                   : WritePiece(stream, item, dontwait, &done);
    lock.lock();
    writing = false;
    if (!s.ok()) CloseLocked();
    cv.notify_all();
    return done;
  }

  // Called from whichever thread answers a request (the rendezvous actor's, often): it
  // never blocks on the socket.
  void Enqueue(std::unique_ptr<Outgoing> item) {
    std::unique_lock<std::mutex> lock(mu);
    --outstanding;
    if (closed) return;  // the client is gone: nobody to tell
    // A large reply takes its place in the node's line (a TLS stream's writes may need
    // reads first: those go out as they come).
    if (item->bytes >= kOrderedBytes && !stream.tls()) item->ticket = server->egress_->Join();
    if (queue.empty() && !writing && item->ticket == nullptr && item->bytes <= kChunkBytes) {
      // The round-trip fast path: no hand-off to the writer unless the socket is full.
      if (WriteOwned(lock, *item, /*dontwait=*/true) && item->finished()) return;
      if (closed) return;
      queue.push_front(std::move(item));  // its piece is under way: it goes on first
      cv.notify_all();
      return;
    }
    queue.push_back(std::move(item));
    cv.notify_all();
  }

  void WriterLoop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return closed || (!queue.empty() && !writing); });
      if (closed) break;
      std::unique_ptr<Outgoing> item = std::move(queue.front());
      queue.pop_front();
      WriteOwned(lock, *item, /*dontwait=*/false);
      // Round robin: an unfinished reply goes behind the others, one piece at a time.
      if (!item->finished() && !closed) queue.push_back(std::move(item));
    }
    --threads_running;
  }

  // False when no thread could be had.
  bool StartWriter(const std::shared_ptr<Connection>& self) {
    std::lock_guard<std::mutex> lock(mu);
    ++threads_running;
    try {
      writer = std::thread([self] { self->WriterLoop(); });
    } catch (const std::system_error&) {
      --threads_running;
      return false;
    }
    return true;
  }

  void ReaderLoop(const std::shared_ptr<Connection>& self) {
    const Options& options = server->options_;
    const std::string& peer = source;
    const int64_t deadline = data_plane::SteadyNowMs() + options.handshake_timeout_ms;
    Status auth = stream.tls() ? stream.Handshake(deadline, peer)
                               : data_plane::AuthenticateClient(fd, server->key_, deadline);
    proven = auth.ok();
    // The writer starts once the peer is proven: a stranger's connection holds one thread,
    // not two, while it lasts.
    if (auth.ok() && !StartWriter(self)) auth = errors::ResourceExhausted("cannot start its writer thread");
    if (!auth.ok()) {
      server->LogOnce(peer, StrCat("refused a data plane connection from ", peer, ": ", auth.message()));
    } else {
      // A writer blocked on a client that stopped reading gives up after this long.
      stream.SetSendTimeout(options.send_timeout_ms);
      data_plane::FrameReader reader(stream);
      reader.SetTimeouts(options.idle_timeout_ms, options.frame_timeout_ms);
      for (;;) {
        kj::Array<capnp::word> words;
        if (!reader.ReadMessage(&words).ok()) break;
        uint64_t request_id;
        int64_t step_id;
        std::string key;
        bool lossy16;
        try {
          capnp::FlatArrayMessageReader message(words);
          auto request = message.getRoot<RecvTensorRequest>();
          request_id = request.getRequestId();
          step_id = request.getStepId();
          key = request.getKey();
          lossy16 = request.getLossy16();
        } catch (const kj::Exception&) {
          break;  // not a request: the stream cannot be trusted any further
        }
        bool too_many;
        {
          std::lock_guard<std::mutex> lock(mu);
          too_many = outstanding >= options.max_pending_replies;
          ++outstanding;
        }
        if (too_many) {
          Enqueue(MakeOutgoing(request_id, key, lossy16,
                               errors::ResourceExhausted("data plane: more than ", options.max_pending_replies,
                                                         " requests of this connection wait for their tensors"),
                               Tensor(), false));
          continue;
        }
        server->provider_(step_id, key, [self, request_id, key, lossy16](const Status& s, const Tensor& v, bool dead) {
          self->Enqueue(MakeOutgoing(request_id, key, lossy16, s, v, dead));
        });
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      CloseLocked();
    }
    --threads_running;
  }

  DataPlaneServer* const server;
  const int fd;
  const std::string source;  // the peer's address
  data_plane::Stream stream;  // the socket's bytes, plain or in TLS
  // The peer finished the handshake (set by the reader; the acceptor reads it to pick a
  // connection to evict).
  std::atomic<bool> proven{false};
  const std::chrono::steady_clock::time_point accepted = std::chrono::steady_clock::now();
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::unique_ptr<Outgoing>> queue;
  int outstanding = 0;     // requests handed to the provider and not yet answered
  bool writing = false;    // a thread is writing to the socket
  int unsent_limit = 0;    // its TCP_NOTSENT_LOWAT (0: the system's), by the thread writing
  bool closed = false;
  bool fd_closed = false;  // reaped: the descriptor is gone
  std::atomic<int> threads_running{0};
  std::thread reader;
  std::thread writer;
};

StatusOr<std::unique_ptr<DataPlaneServer>> DataPlaneServer::Start(Provider provider, Options options) {
  Status valid = options.credentials.Validate();
  if (!valid.ok()) return errors::InvalidArgument("data plane: ", valid.message());
  SslContextPtr tls;
  if (options.credentials.tls()) {
    TA_ASSIGN_OR_RETURN(tls, MakeSslContext(options.credentials));
  }
  int port = 0;
  TA_ASSIGN_OR_RETURN(int fd, data_plane::ListenOn(options.host, options.port, &port));
  std::unique_ptr<DataPlaneServer> server(
      new DataPlaneServer(std::move(provider), std::move(options), std::move(tls), fd, port));
  server->acceptor_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

DataPlaneServer::DataPlaneServer(Provider provider, Options options, SslContextPtr tls, int listen_fd, int port)
    : provider_(std::move(provider)),
      options_(std::move(options)),
      key_(data_plane::HandshakeKey(options_.credentials.token)),
      tls_(std::move(tls)),
      listen_fd_(listen_fd),
      port_(port) {
  reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

DataPlaneServer::~DataPlaneServer() { Stop(); }

void DataPlaneServer::LogOnce(const std::string& peer, const std::string& line) {
  {
    std::lock_guard<std::mutex> lock(log_mu_);
    if (logged_.size() >= 1024) logged_.clear();
    // Each distinct reason once per address: a second, different refusal is news.
    if (!logged_.insert(peer + '\n' + line).second) return;
  }
  std::cerr << ("tensoract data plane :" + std::to_string(port_) + ": " + line + " (logged once per peer and reason)\n")
            << std::flush;
}

void DataPlaneServer::Shed() {
  if (reserve_fd_ >= 0) close(reserve_fd_);
  int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) close(fd);
  reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  LogOnce("", "out of file descriptors: shedding new connections");
  // If even the reserve could not be had, do not spin on the still-readable socket.
  if (reserve_fd_ < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

void DataPlaneServer::ReapLocked() {
  for (size_t i = 0; i < connections_.size();) {
    auto& conn = connections_[i];
    bool done;
    {
      std::lock_guard<std::mutex> lock(conn->mu);
      done = conn->threads_running == 0 && !conn->writing;
    }
    if (!done) {
      ++i;
      continue;
    }
    conn->reader.join();
    if (conn->writer.joinable()) conn->writer.join();  // none when the peer never proved itself
    {
      std::lock_guard<std::mutex> lock(conn->mu);
      close(conn->fd);
      conn->fd_closed = true;
    }
    connections_[i] = std::move(connections_.back());
    connections_.pop_back();
  }
}

size_t DataPlaneServer::live_connections() {
  std::lock_guard<std::mutex> lock(mu_);
  ReapLocked();
  return connections_.size();
}

uint64_t DataPlaneServer::accepted_connections() {
  std::lock_guard<std::mutex> lock(mu_);
  return accepted_;
}

void DataPlaneServer::AcceptLoop() {
  for (;;) {
    // Wake up now and then even without new connections, so that ended ones give back
    // their descriptors and threads promptly.
    pollfd waiting{listen_fd_, POLLIN, 0};
    if (poll(&waiting, 1, 200) == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      ReapLocked();
      continue;
    }
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (stopped_) return;
          ReapLocked();
        }
        Shed();
        continue;
      }
      return;  // shut down by Stop()
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) {
      close(fd);
      return;
    }
    ReapLocked();
    ++accepted_;
    const std::string source = PeerOf(fd);
    if (UnprovenFromLocked(source) >= static_cast<size_t>(options_.max_unproven_per_address)) {
      EvictOldestUnprovenLocked(&source);
    }
    if (connections_.size() >= static_cast<size_t>(options_.max_connections) && !EvictOldestUnprovenLocked(nullptr)) {
      LogOnce(source, StrCat("refused a data plane connection from ", source, ": ", options_.max_connections,
                                 " connections are open"));
      close(fd);
      continue;
    }
    data_plane::TuneSocket(fd);
    auto conn = std::make_shared<Connection>(this, fd, source);
    try {
      conn->threads_running = 1;  // the reader; the writer starts once the peer is proven
      conn->reader = std::thread([conn] { conn->ReaderLoop(conn); });
    } catch (const std::system_error&) {
      // Out of threads: refuse this connection, keep serving the others.
      close(fd);
      LogOnce("", "cannot start a thread: refusing new data plane connections until some end");
      continue;
    }
    connections_.push_back(std::move(conn));
  }
}

size_t DataPlaneServer::UnprovenFromLocked(const std::string& source) const {
  size_t n = 0;
  for (const auto& conn : connections_) n += !conn->proven && conn->source == source;
  return n;
}

bool DataPlaneServer::EvictOldestUnprovenLocked(const std::string* source) {
  std::shared_ptr<Connection> oldest;
  for (const auto& conn : connections_) {
    if (conn->proven || (oldest && conn->accepted >= oldest->accepted)) continue;
    if (source != nullptr && conn->source != *source) continue;
    std::lock_guard<std::mutex> lock(conn->mu);
    if (!conn->closed) oldest = conn;
  }
  if (!oldest) return false;
  {
    std::lock_guard<std::mutex> lock(oldest->mu);
    oldest->CloseLocked();  // its handshake fails; the reaper takes it
  }
  if (source != nullptr) {
    LogOnce(*source, StrCat(options_.max_unproven_per_address, " connections from ", *source, " had not finished "
                            "their handshake: its oldest are closed to make room for its new ones"));
  } else {
    LogOnce("", StrCat(options_.max_connections, " connections were open: the oldest that had not finished its "
                       "handshake are closed to make room for new ones"));
  }
  return true;
}

void DataPlaneServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  if (acceptor_.joinable()) acceptor_.join();
  close(listen_fd_);
  if (reserve_fd_ >= 0) close(reserve_fd_);
  for (auto& conn : connections_) {
    {
      std::lock_guard<std::mutex> lock(conn->mu);
      conn->CloseLocked();
    }
    if (conn->reader.joinable()) conn->reader.join();
    if (conn->writer.joinable()) conn->writer.join();
    // A reply being written from the provider's thread fails fast on the shut-down
    // socket; wait for it before the descriptor can be reused.
    std::unique_lock<std::mutex> lock(conn->mu);
    conn->cv.wait(lock, [&] { return !conn->writing; });
    if (!conn->fd_closed) close(conn->fd);
    conn->fd_closed = true;
  }
  connections_.clear();
}

}  // namespace tensoract
