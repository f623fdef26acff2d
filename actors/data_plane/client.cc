#include "actors/data_plane/client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <iterator>

#include <capnp/serialize.h>

#include "actors/data_plane/auth.h"
#include "actors/data_plane/wire.h"
#include "actors/rpc.h"
#include "messages/tensor.pb.h"
#include "messages/tensor_frame.capnp.h"

namespace tensoract {
namespace {

constexpr int64_t kRequestSendTimeoutMs = 30000;
// A connect attempt's TCP connect gives up after this long and a new one starts while
// requests wait: SYNs a congested or briefly cut link dropped cost a second, not the
// kernel's growing retransmission timeouts.
constexpr int64_t kConnectAttemptMs = 1000;
// The handshake after it (the server drops a stranger after its own handshake_timeout_ms).
constexpr int64_t kHandshakeMs = 5000;

// Moves the entries of `from` whose thread has ended into `to`, to be joined.
template <class T>
void TakeFinished(std::vector<std::shared_ptr<T>>& from, std::vector<std::shared_ptr<T>>* to) {
  auto ended = std::stable_partition(from.begin(), from.end(), [](const auto& x) { return !x->finished; });
  std::move(ended, from.end(), std::back_inserter(*to));
  from.erase(ended, from.end());
}

}  // namespace

struct DataPlaneClient::Request {
  uint64_t id = 0;
  std::string key;
  int64_t step_id = 0;
  bool ask_lossy16 = false;
  int64_t deadline_ms = 0;
  Allocator* allocator = nullptr;
  DoneCallback done;
  // Filled from the reply's frame, by the connection's reader thread only.
  std::atomic<bool> header_seen{false};  // read by the timer too
  bool lossy16 = false;
  Tensor value;
  bool encoded = false;  // the payload is a serialized TensorProto of this dtype and shape
  DataType encoded_dtype = tensorflow::DT_INVALID;
  TensorShape encoded_shape;
  std::string encoded_bytes;
  char* destination = nullptr;  // nullptr: the payload is read and discarded
  Status failure;               // set when the payload is discarded for a reason
  uint64_t wire_bytes = 0;
  uint64_t received = 0;
};

struct DataPlaneClient::Connection {
  Connection(DataPlaneClient* client, std::string peer, int fd, std::unique_ptr<data_plane::Stream> stream)
      : client(client), peer(std::move(peer)), fd(fd), stream(std::move(stream)) {}

  // Removes the request from those in flight; nullptr if it has already ended (deadline).
  std::shared_ptr<Request> Take(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = pending.find(id);
    if (it == pending.end()) return nullptr;
    auto request = std::move(it->second);
    pending.erase(it);
    return request;
  }
  std::shared_ptr<Request> Find(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = pending.find(id);
    return it == pending.end() ? nullptr : it->second;
  }

  // Ends a request taken out of `pending`.
  void Finish(const std::shared_ptr<Request>& request, const Status& status, const Tensor& value,
              bool is_dead) {
    {
      std::lock_guard<std::mutex> lock(client->mu_);
      client->deadlines_.erase({request->deadline_ms, request->id});
    }
    request->done(status, value, is_dead);
  }

  Status Describe(const Status& s, const std::string& key) const {
    return Status(s.code(), StrCat("data plane peer ", peer, ", key '", key, "': ", s.message()));
  }

  // The payload is all there: widen a lossy16 payload and hand the tensor over.
  void Complete(const std::shared_ptr<Request>& request) {
    if (request->lossy16 && request->destination != nullptr) {
      // The 2n bytes sit at the front of the 4n-byte buffer; widening from the back never
      // overwrites a 16-bit value before it is read.
      const int64_t n = request->value.NumElements();
      const uint16_t* in = reinterpret_cast<const uint16_t*>(request->destination);
      uint32_t* out = reinterpret_cast<uint32_t*>(request->destination);
      for (int64_t i = n - 1; i >= 0; --i) out[i] = uint32_t{in[i]} << 16;
    }
    if (request->encoded && request->destination != nullptr && request->failure.ok()) {
      request->failure = DecodePayload(request.get());
    }
    auto taken = Take(request->id);
    if (taken == nullptr) return;  // its deadline passed meanwhile
    if (!request->failure.ok()) {
      Finish(taken, Describe(request->failure, request->key), Tensor(), false);
    } else {
      Finish(taken, Status::OK(), request->value, false);
    }
  }

  // An encoded payload's tensor, which must be what its frame announced.
  static Status DecodePayload(Request* request) {
    tensorflow::TensorProto proto;
    if (!proto.ParseFromString(request->encoded_bytes)) {
      return errors::DataLoss("the ", request->encoded_bytes.size(), "-byte TensorProto does not parse");
    }
    request->encoded_bytes = std::string();
    TA_ASSIGN_OR_RETURN(Tensor value, Tensor::FromProto(proto, request->allocator));
    if (value.dtype() != request->encoded_dtype || value.shape() != request->encoded_shape) {
      return errors::DataLoss("the TensorProto holds a ", DataTypeString(value.dtype()), " tensor of shape ",
                              value.shape().DebugString(), ", the frame announced a ",
                              DataTypeString(request->encoded_dtype), " tensor of shape ",
                              request->encoded_shape.DebugString());
    }
    request->value = std::move(value);
    return Status::OK();
  }

  Status OnFrame(data_plane::FrameReader& reader, TensorFrame::Reader frame) {
    // Every field is read before anything changes: Cap'n Proto checks a field when it is
    // read and throws for a malformed one, and a request taken out of `pending` before such
    // a throw would never be answered (found by fuzzing the reply reader).
    const uint64_t id = frame.getRequestId();
    const int32_t status_code = frame.getStatusCode();
    const std::string status_message = status_code != 0 ? frame.getStatusMessage().cStr() : "";
    const uint64_t first_chunk = frame.getFirstChunk();
    std::shared_ptr<Request> request = Find(id);
    const std::string key = request ? request->key : std::string(frame.getKey().cStr());
    if (status_code != 0) {
      if (auto taken = Take(id)) {
        Status s = RpcStatus(status_code, status_message);  // a code out of range is Internal
        Finish(taken, Describe(s, key), Tensor(), false);
      }
      return reader.ReadRaw(nullptr, first_chunk);
    }
    if (frame.getIsDead()) {
      if (auto taken = Take(id)) Finish(taken, Status::OK(), Tensor(), true);
      return reader.ReadRaw(nullptr, first_chunk);
    }
    // Check the header before trusting any size in it.
    const auto dtype = static_cast<DataType>(frame.getDtype());
    const bool encoded = frame.getEncoded();
    // Flat bytes for fixed-size elements, a TensorProto for the others (strings, variants,
    // resource handles).
    if (!tensorflow::DataType_IsValid(static_cast<int>(frame.getDtype())) || dtype == tensorflow::DT_INVALID ||
        IsRefType(dtype) || encoded == DataTypeIsFixedSize(dtype)) {
      return errors::DataLoss("bad reply frame for key '", key, "': dtype ", frame.getDtype(),
                              encoded ? " encoded" : " as flat bytes");
    }
    std::vector<int64_t> dims;
    for (int64_t d : frame.getShape()) dims.push_back(d);
    auto shape = TensorShape::FromDims(dims);
    if (!shape.ok()) return errors::DataLoss("bad reply frame for key '", key, "': ", shape.status().message());
    const bool lossy16 = frame.getLossy16();
    if (lossy16 && dtype != tensorflow::DT_FLOAT) {
      return errors::DataLoss("bad reply frame for key '", key, "': lossy16 on a ", DataTypeString(dtype));
    }
    const uint64_t n = static_cast<uint64_t>(shape->num_elements());
    const uint64_t element_bytes = lossy16 ? 2 : DataTypeSize(dtype);
    const uint64_t expected = encoded ? frame.getByteLength() : n * element_bytes;
    if (n > UINT64_MAX / 8 || frame.getByteLength() != expected || first_chunk > expected ||
        (encoded && expected > MaxExpandedTensorBytes())) {
      return errors::DataLoss("bad reply frame for key '", key, "': ", frame.getByteLength(),
                              encoded ? " encoded" : "", " bytes announced for ", n, " elements of ",
                              DataTypeString(dtype));
    }
    if (request == nullptr || request->header_seen) {
      return reader.ReadRaw(nullptr, first_chunk);  // ended already: drop its bytes
    }
    request->header_seen = true;
    request->lossy16 = lossy16;
    request->encoded = encoded;
    request->wire_bytes = expected;
    if (encoded) {
      // The tensor is built when its bytes are all there (DecodePayload).
      request->encoded_dtype = dtype;
      request->encoded_shape = *shape;
      request->encoded_bytes.resize(expected);
      request->destination = request->encoded_bytes.data();
    } else {
      auto value = Tensor::Allocate(request->allocator, dtype, *shape);
      if (value.ok()) {
        request->value = std::move(value).value();
        request->destination = static_cast<char*>(request->value.data());
      } else {
        request->failure = value.status();
      }
    }
    TA_RETURN_IF_ERROR(reader.ReadRaw(request->destination, first_chunk));
    request->received = first_chunk;
    if (request->received == request->wire_bytes) Complete(request);
    return Status::OK();
  }

  Status OnChunk(data_plane::FrameReader& reader, TensorChunk::Reader chunk) {
    std::shared_ptr<Request> request = Find(chunk.getRequestId());
    if (request == nullptr) return reader.ReadRaw(nullptr, chunk.getLength());
    if (!request->header_seen || chunk.getOffset() != request->received ||
        chunk.getLength() > request->wire_bytes - request->received) {
      return errors::DataLoss("bad chunk for key '", request->key, "': ", chunk.getLength(), " bytes at ",
                              chunk.getOffset(), " of ", request->wire_bytes);
    }
    char* dst = request->destination ? request->destination + chunk.getOffset() : nullptr;
    TA_RETURN_IF_ERROR(reader.ReadRaw(dst, chunk.getLength()));
    request->received += chunk.getLength();
    if (request->received == request->wire_bytes) Complete(request);
    return Status::OK();
  }

  void ReaderLoop() {
    data_plane::FrameReader reader(*stream);
    Status error;
    for (;;) {
      kj::Array<capnp::word> words;
      error = reader.ReadMessage(&words);
      if (!error.ok()) break;
      try {
        capnp::FlatArrayMessageReader message(words);
        auto reply = message.getRoot<DataPlaneReply>();
        error = reply.isFrame() ? OnFrame(reader, reply.getFrame()) : OnChunk(reader, reply.getChunk());
      } catch (const kj::Exception& e) {
        error = errors::DataLoss("bad reply header: ", e.getDescription().cStr());
      }
      if (!error.ok()) break;
    }
    // The stream is over or out of step: every request on it fails.
    std::unordered_map<uint64_t, std::shared_ptr<Request>> failed;
    {
      std::lock_guard<std::mutex> lock(mu);
      broken = true;
      failed.swap(pending);
    }
    bool cancelled = client->Retire(this);
    if (cancelled) error = errors::Cancelled("the data plane client is shutting down");
    for (auto& [id, request] : failed) Finish(request, Describe(error, request->key), Tensor(), false);
    finished = true;
  }

  // Once the reader has ended or been woken (the socket shut down): joins it, closes the socket.
  void JoinAndClose() {
    reader.join();
    std::lock_guard<std::mutex> lock(write_mu);
    close(fd);
    fd = -1;
  }

  DataPlaneClient* const client;
  const std::string peer;
  std::mutex write_mu;  // one request written at a time; guards fd's closing
  int fd;
  std::unique_ptr<data_plane::Stream> stream;  // fd's bytes, plain or in TLS
  std::mutex mu;  // guards pending and broken
  std::unordered_map<uint64_t, std::shared_ptr<Request>> pending;
  bool broken = false;
  std::thread reader;
  std::atomic<bool> finished{false};
};

struct DataPlaneClient::Connector {
  explicit Connector(std::string peer) : peer(std::move(peer)) {}
  const std::string peer;
  std::vector<std::shared_ptr<Request>> waiting;  // guarded by the client's mu_
  int handshaking_fd = -1;  // the socket in its handshake (mu_): the destructor shuts it down
  std::thread thread;
  std::atomic<bool> finished{false};
};

DataPlaneClient::DataPlaneClient(const std::string& token) : DataPlaneClient(ClusterCredentials::FromToken(token)) {}

DataPlaneClient::DataPlaneClient(const ClusterCredentials& credentials)
    : key_(data_plane::HandshakeKey(credentials.token)) {
  if (credentials.tls()) {
    auto tls = MakeSslContext(credentials);
    if (tls.ok()) {
      tls_ = std::move(tls).value();
    } else {
      setup_error_ = tls.status();
    }
  }
  timer_ = std::thread([this] { TimerLoop(); });
}

DataPlaneClient::~DataPlaneClient() {
  std::vector<std::shared_ptr<Connection>> all;
  std::vector<std::shared_ptr<Connector>> connectors;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
    for (auto& [peer, conn] : connections_) all.push_back(conn);
    all.insert(all.end(), retired_.begin(), retired_.end());
    connections_.clear();
    retired_.clear();
    for (auto& [peer, connector] : connectors_) {
      if (connector->handshaking_fd >= 0) shutdown(connector->handshaking_fd, SHUT_RDWR);
      connectors.push_back(connector);
    }
    connectors.insert(connectors.end(), finished_connectors_.begin(), finished_connectors_.end());
    connectors_.clear();
    finished_connectors_.clear();
    timer_cv_.notify_all();
  }
  // Each fails the requests waiting for it with Cancelled, its connect over within a second.
  for (auto& connector : connectors) connector->thread.join();
  for (auto& conn : all) {
    std::lock_guard<std::mutex> lock(conn->write_mu);
    shutdown(conn->fd, SHUT_RDWR);  // the reader wakes and fails what is in flight
  }
  for (auto& conn : all) conn->JoinAndClose();
  timer_.join();
}

bool DataPlaneClient::Retire(Connection* conn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutting_down_) return true;
  auto it = connections_.find(conn->peer);
  if (it != connections_.end() && it->second.get() == conn) {
    retired_.push_back(std::move(it->second));
    connections_.erase(it);
  }
  return false;
}

void DataPlaneClient::RecvTensorAsync(const std::string& peer, int64_t step_id, const std::string& key,
                                      bool lossy16, int64_t deadline_ms, Allocator* allocator,
                                      DoneCallback done) {
  auto request = std::make_shared<Request>();
  request->key = key;
  request->step_id = step_id;
  request->ask_lossy16 = lossy16;
  request->deadline_ms = deadline_ms;
  request->allocator = allocator;
  request->done = std::move(done);
  std::shared_ptr<Connection> conn;
  Status refused;
  {
    std::lock_guard<std::mutex> lock(mu_);
    request->id = next_request_id_++;
    if (shutting_down_) {
      refused = errors::Cancelled("the data plane client is shutting down (receiving key '", key, "')");
    } else if (!setup_error_.ok()) {
      refused = Status(setup_error_.code(), StrCat(setup_error_.message(), " (receiving key '", key, "')"));
    } else if (auto it = connections_.find(peer); it != connections_.end()) {
      conn = it->second;
      if (!AddInFlight(conn, request)) refused = conn->Describe(errors::Unavailable("connection lost"), key);
    } else {
      // No connection yet: the request waits for the peer's connecting thread.
      std::shared_ptr<Connector>& connector = connectors_[peer];
      if (connector == nullptr) {
        connector = std::make_shared<Connector>(peer);
        connector->thread = std::thread([this, c = connector] { ConnectLoop(c); });
      }
      connector->waiting.push_back(request);
      deadlines_.emplace(std::make_pair(deadline_ms, request->id), Waits{{}, peer});
      timer_cv_.notify_one();
      return;
    }
  }
  if (!refused.ok()) {
    request->done(refused, Tensor(), false);
    return;
  }
  WriteRequest(*conn, *request);
}

bool DataPlaneClient::AddInFlight(const std::shared_ptr<Connection>& conn, const std::shared_ptr<Request>& request) {
  {
    std::lock_guard<std::mutex> lock(conn->mu);
    if (conn->broken) return false;
    conn->pending.emplace(request->id, request);
  }
  deadlines_[std::make_pair(request->deadline_ms, request->id)] = Waits{conn, conn->peer};
  timer_cv_.notify_one();
  return true;
}

void DataPlaneClient::WriteRequest(Connection& conn, const Request& request) {
  capnp::MallocMessageBuilder message(64);
  auto req = message.initRoot<RecvTensorRequest>();
  req.setRequestId(request.id);
  req.setStepId(request.step_id);
  req.setKey(request.key);
  req.setLossy16(request.ask_lossy16);
  kj::Array<capnp::word> words = data_plane::Encode(message);
  iovec iov{words.begin(), words.size() * sizeof(capnp::word)};
  std::lock_guard<std::mutex> lock(conn.write_mu);
  if (conn.fd < 0 || !conn.stream->WriteAll(&iov, 1).ok()) {
    // The reader sees the shut-down socket and fails every request on it, this one too.
    if (conn.fd >= 0) shutdown(conn.fd, SHUT_RDWR);
  }
}

void DataPlaneClient::ConnectLoop(const std::shared_ptr<Connector>& connector) {
  for (;;) {
    // Broken connections and ended connecting threads are joined here, off every caller's path.
    std::vector<std::shared_ptr<Connection>> broken;
    std::vector<std::shared_ptr<Connector>> ended;
    int64_t latest_deadline = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      TakeFinished(retired_, &broken);
      TakeFinished(finished_connectors_, &ended);
      if (!shutting_down_) {
        for (const auto& request : connector->waiting) latest_deadline = std::max(latest_deadline, request->deadline_ms);
      }
    }
    for (auto& conn : broken) conn->JoinAndClose();
    for (auto& c : ended) c->thread.join();
    const int64_t now = data_plane::SteadyNowMs();
    // Nothing to connect for when no request waits (their deadlines passed) or the client
    // shuts down (`why` below says so to the requests still waiting).
    StatusOr<std::shared_ptr<Connection>> conn = errors::Cancelled("no request waits for data plane peer ",
                                                                   connector->peer);
    if (latest_deadline > 0) {
      conn = Connect(*connector, std::min(latest_deadline, now + kConnectAttemptMs),
                     std::min(latest_deadline, now + kHandshakeMs));
    }
    std::vector<std::shared_ptr<Request>> ready, failed, lost;
    Status why = conn.status();  // the failed ones'
    bool over = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (shutting_down_) why = errors::Cancelled("the data plane client is shutting down");
      if (conn.ok()) {
        for (auto& request : connector->waiting) (AddInFlight(*conn, request) ? ready : lost).push_back(request);
        connector->waiting.clear();
      } else if (conn.status().code() == error::DEADLINE_EXCEEDED && !shutting_down_ &&
                 std::any_of(connector->waiting.begin(), connector->waiting.end(),
                             [](const auto& r) { return r->deadline_ms > data_plane::SteadyNowMs(); })) {
        over = false;  // try again; the timer fails the requests whose deadlines pass
      } else {
        failed.swap(connector->waiting);
        for (const auto& request : failed) deadlines_.erase(std::make_pair(request->deadline_ms, request->id));
      }
      if (over && !shutting_down_) {
        // Requests made from now on start a connecting thread of their own.
        auto it = connectors_.find(connector->peer);
        if (it != connectors_.end() && it->second == connector) connectors_.erase(it);
        finished_connectors_.push_back(connector);
      }
    }
    for (const auto& request : ready) WriteRequest(**conn, *request);
    for (const auto& request : lost) {
      (*conn)->Finish(request, (*conn)->Describe(errors::Unavailable("connection lost"), request->key), Tensor(),
                      false);
    }
    for (const auto& request : failed) {
      request->done(Status(why.code(), StrCat(why.message(), " (receiving key '", request->key, "')")), Tensor(), false);
    }
    if (over) break;
  }
  connector->finished = true;
}

StatusOr<std::shared_ptr<DataPlaneClient::Connection>> DataPlaneClient::Connect(Connector& connector,
                                                                                int64_t connect_deadline_ms,
                                                                                int64_t handshake_deadline_ms) {
  const std::string& peer = connector.peer;
  TA_ASSIGN_OR_RETURN(int fd, data_plane::ConnectTo(peer, connect_deadline_ms));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_) {
      close(fd);
      return errors::Cancelled("the data plane client is shutting down");
    }
    connector.handshaking_fd = fd;
  }
  // Both ends prove they belong to the cluster before any request goes out: the token's
  // handshake, or TLS with the cluster CA's certificates.
  std::unique_ptr<data_plane::Stream> stream;
  Status proven;
  if (tls_) {
    stream = std::make_unique<data_plane::Stream>(fd, tls_.get(), /*server=*/false);
    proven = stream->Handshake(handshake_deadline_ms, peer);
  } else {
    proven = data_plane::AuthenticateServer(fd, key_, handshake_deadline_ms, peer);
    stream = std::make_unique<data_plane::Stream>(fd);
  }
  // A server that stops reading our requests fails them after this long, not never.
  if (proven.ok()) stream->SetSendTimeout(kRequestSendTimeoutMs);
  std::lock_guard<std::mutex> lock(mu_);
  connector.handshaking_fd = -1;
  if (proven.ok() && shutting_down_) proven = errors::Cancelled("the data plane client is shutting down");
  if (!proven.ok()) {
    stream.reset();
    close(fd);
    return proven;
  }
  auto conn = std::make_shared<Connection>(this, peer, fd, std::move(stream));
  conn->reader = std::thread([c = conn.get()] { c->ReaderLoop(); });
  connections_[peer] = conn;
  return conn;
}

StatusOr<DataPlaneClient::Received> DataPlaneClient::RecvTensor(const std::string& peer, int64_t step_id,
                                                                const std::string& key, bool lossy16,
                                                                int64_t deadline_ms, Allocator* allocator) {
  auto result = std::make_shared<std::promise<StatusOr<Received>>>();
  auto future = result->get_future();
  RecvTensorAsync(peer, step_id, key, lossy16, deadline_ms, allocator,
                  [result](const Status& s, const Tensor& value, bool is_dead) {
                    if (s.ok()) {
                      result->set_value(Received{value, is_dead});
                    } else {
                      result->set_value(s);
                    }
                  });
  // The timer thread answers at the deadline; the margin only guards against a bug there.
  const int64_t wait_ms = std::max<int64_t>(0, deadline_ms - data_plane::SteadyNowMs()) + 5000;
  if (future.wait_for(std::chrono::milliseconds(wait_ms)) != std::future_status::ready) {
    return errors::DeadlineExceeded("data plane peer ", peer, ", key '", key, "': no answer, not even at the deadline");
  }
  return future.get();
}

void DataPlaneClient::TimerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!shutting_down_) {
    if (deadlines_.empty()) {
      timer_cv_.wait(lock);  // until a request comes (or the destructor)
      continue;
    }
    auto first = deadlines_.begin();
    const int64_t now = data_plane::SteadyNowMs();
    if (first->first.first > now) {
      timer_cv_.wait_for(lock, std::chrono::milliseconds(first->first.first - now));
      continue;
    }
    const uint64_t id = first->first.second;
    const Waits waits = first->second;
    deadlines_.erase(first);
    std::shared_ptr<Connection> conn = waits.connection.lock();
    std::shared_ptr<Request> unconnected;  // still waiting for its peer's connection
    if (conn == nullptr) {
      auto connector = connectors_.find(waits.peer);
      if (connector != connectors_.end()) {
        auto& waiting = connector->second->waiting;
        auto it = std::find_if(waiting.begin(), waiting.end(), [id](const auto& r) { return r->id == id; });
        if (it != waiting.end()) {
          unconnected = *it;
          waiting.erase(it);
        }
      }
    }
    lock.unlock();
    if (unconnected != nullptr) {
      unconnected->done(errors::DeadlineExceeded("data plane peer ", waits.peer, ", key '", unconnected->key,
                                                 "': not connected before the deadline"),
                        Tensor(), false);
    } else if (conn != nullptr) {
      if (auto request = conn->Take(id)) {
        if (request->header_seen) {
          // The peer stalled midway through this tensor: the stream is out of step for
          // good. Its reader fails the rest; the next request connects afresh.
          std::lock_guard<std::mutex> write_lock(conn->write_mu);
          if (conn->fd >= 0) shutdown(conn->fd, SHUT_RDWR);
        }
        request->done(errors::DeadlineExceeded("data plane peer ", conn->peer, ", key '", request->key,
                                               "': no reply before the deadline"),
                      Tensor(), false);
      }
    }
    lock.lock();
  }
}

}  // namespace tensoract
