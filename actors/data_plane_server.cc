#include "actors/data_plane_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>

#include <capnp/serialize.h>

#include "actors/data_plane_wire.h"
#include "messages/tensor_frame.capnp.h"

namespace tensoract {

using data_plane::kChunkBytes;

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
  const char* payload = nullptr;
  size_t bytes = 0;
  size_t sent = 0;
  bool header_sent = false;

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
  if (!DataTypeIsFixedSize(value.dtype())) {
    out->status = errors::Unimplemented("data plane: key '", key, "' holds a ", DataTypeString(value.dtype()),
                                        " tensor; only fixed-size element types travel");
    return out;
  }
  out->value = value;
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

// Writes the next piece of `item`: its header with the first chunk, or the next chunk.
Status WritePiece(int fd, Outgoing& item) {
  capnp::MallocMessageBuilder message(128);
  size_t offset = item.sent;
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
      frame.setIsDead(item.is_dead);
      frame.setByteLength(item.bytes);
      frame.setFirstChunk(length);
    }
  } else {
    auto chunk = reply.initChunk();
    chunk.setRequestId(item.request_id);
    chunk.setOffset(offset);
    chunk.setLength(length);
  }
  kj::Array<capnp::word> header = data_plane::Encode(message);
  iovec iov[2] = {{header.begin(), header.size() * sizeof(capnp::word)},
                  {const_cast<char*>(item.payload) + offset, length}};
  TA_RETURN_IF_ERROR(data_plane::WriteAll(fd, iov, length > 0 ? 2 : 1));
  item.header_sent = true;
  item.sent += length;
  if (!item.status.ok()) item.sent = item.bytes;
  return Status::OK();
}

}  // namespace

struct DataPlaneServer::Connection {
  explicit Connection(int fd) : fd(fd) {}

  // Marks the connection closed and wakes everyone; the socket is shut down so that a
  // blocked read or write returns. Requires mu held.
  void CloseLocked() {
    if (!closed) shutdown(fd, SHUT_RDWR);
    closed = true;
    cv.notify_all();
  }

  // Writes the piece with the socket owned (`writing`), then gives the socket back.
  void WriteOwned(std::unique_lock<std::mutex>& lock, Outgoing& item) {
    writing = true;
    lock.unlock();
    Status s = WritePiece(fd, item);
    lock.lock();
    writing = false;
    if (!s.ok()) CloseLocked();
    cv.notify_all();
  }

  void Enqueue(std::unique_ptr<Outgoing> item) {
    std::unique_lock<std::mutex> lock(mu);
    if (closed) return;  // the client is gone: nobody to tell
    if (queue.empty() && !writing && item->bytes <= kChunkBytes) {
      WriteOwned(lock, *item);  // the round-trip fast path: no hand-off to the writer
      return;
    }
    queue.push_back(std::move(item));
    cv.notify_all();
  }

  void WriterLoop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return closed || (!queue.empty() && !writing); });
      if (closed) return;
      std::unique_ptr<Outgoing> item = std::move(queue.front());
      queue.pop_front();
      WriteOwned(lock, *item);
      // Round robin: an unfinished reply goes behind the others, one piece at a time.
      if (!item->finished()) queue.push_back(std::move(item));
    }
  }

  void ReaderLoop(const Provider& provider, const std::shared_ptr<Connection>& self) {
    data_plane::FrameReader reader(fd);
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
      provider(step_id, key, [self, request_id, key, lossy16](const Status& s, const Tensor& v, bool dead) {
        self->Enqueue(MakeOutgoing(request_id, key, lossy16, s, v, dead));
      });
    }
    std::lock_guard<std::mutex> lock(mu);
    CloseLocked();
  }

  const int fd;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::unique_ptr<Outgoing>> queue;
  bool writing = false;  // a thread is writing to the socket
  bool closed = false;
  std::thread reader;
  std::thread writer;
};

StatusOr<std::unique_ptr<DataPlaneServer>> DataPlaneServer::Start(Provider provider, Options options) {
  int port = 0;
  TA_ASSIGN_OR_RETURN(int fd, data_plane::ListenOn(options.host, options.port, &port));
  std::unique_ptr<DataPlaneServer> server(new DataPlaneServer(std::move(provider), fd, port));
  server->acceptor_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

DataPlaneServer::DataPlaneServer(Provider provider, int listen_fd, int port)
    : provider_(std::move(provider)), listen_fd_(listen_fd), port_(port) {}

DataPlaneServer::~DataPlaneServer() { Stop(); }

void DataPlaneServer::AcceptLoop() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down by Stop()
    }
    data_plane::TuneSocket(fd);
    auto conn = std::make_shared<Connection>(fd);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) {
      close(fd);
      return;
    }
    conn->reader = std::thread([this, conn] { conn->ReaderLoop(provider_, conn); });
    conn->writer = std::thread([conn] { conn->WriterLoop(); });
    connections_.push_back(std::move(conn));
  }
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
  for (auto& conn : connections_) {
    {
      std::lock_guard<std::mutex> lock(conn->mu);
      conn->CloseLocked();
    }
    conn->reader.join();
    conn->writer.join();
    // A reply being written from the provider's thread fails fast on the shut-down
    // socket; wait for it before the descriptor can be reused.
    std::unique_lock<std::mutex> lock(conn->mu);
    conn->cv.wait(lock, [&] { return !conn->writing; });
    close(conn->fd);
  }
  connections_.clear();
}

}  // namespace tensoract
