// DataPlaneClient: fetches tensors from other processes' DataPlaneServers.
//
// One TCP connection per peer ("host:port"), opened by the first request to it and reused
// by every later one; many requests may be in flight on it at once and their replies come
// back in any order, matched by request id. A reply's payload is read straight from the
// socket into a Tensor allocated from the request's allocator (a lossy16 payload is read
// into the same buffer and widened in place).
//
// Every request ends, exactly once, in `done`:
//   - OK with the tensor (and its dead flag);
//   - the error the server's provider gave (the message names the key and the peer);
//   - DeadlineExceeded naming the peer and key when `deadline_ms` passes first;
//   - Unavailable naming the peer when it cannot be reached or the connection breaks;
//   - PermissionDenied naming the peer when it fails the token handshake either way;
//   - DataLoss when the reply is not a well-formed frame (the connection is then dropped);
//   - ResourceExhausted when the allocator cannot hold the tensor.
// `deadline_ms` is an absolute time on the steady clock in milliseconds
// (data_plane::SteadyNowMs() + timeout).
//
// Threads: a reader thread per connection, which decodes replies and runs `done`; a timer
// thread that fails requests past their deadline (running their `done`); a connecting
// thread per peer while its connection is being made (it connects and proves itself, in
// attempts of at most a second for the TCP connect and kHandshakeMs for the handshake,
// again while requests wait, and then writes the requests that waited for it, or fails
// them with what refused it); and the caller, which writes its request under the
// connection's write lock when the connection is there. The caller never waits for a
// connection: callers are actors, and a node's actors share a few scheduler threads that
// a connect through a congested link (SYNs dropped: seconds) would stall, heartbeats and
// all. `done` may run on any of these threads, including the caller's (a client shutting
// down); it must not block for long, as it holds up the connection's other replies.
// Thread-safety: every method may be called from any thread. The destructor fails the
// requests still in flight with Cancelled and joins every thread; it must not run inside
// a `done`.
#ifndef TENSORACT_ACTORS_DATA_PLANE_CLIENT_H_
#define TENSORACT_ACTORS_DATA_PLANE_CLIENT_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "actors/cluster_credentials.h"
#include "base/status.h"
#include "kernels/allocator.h"
#include "kernels/tensor.h"

namespace tensoract {

class DataPlaneClient {
 public:
  using DoneCallback = std::function<void(const Status& status, const Tensor& value, bool is_dead)>;

  struct Received {
    Tensor value;
    bool is_dead = false;
  };

  // `token`: the cluster's; each connection proves it to the server and checks the
  // server's proof (actors/data_plane/auth.h) before any request.
  // Token mode: the HMAC handshake with the cluster token, then plain bytes.
  explicit DataPlaneClient(const std::string& token);
  // Token or TLS mode (actors/cluster_credentials.h). Certificates that do not load fail
  // every request with the reason.
  explicit DataPlaneClient(const ClusterCredentials& credentials);
  ~DataPlaneClient();
  DataPlaneClient(const DataPlaneClient&) = delete;
  DataPlaneClient& operator=(const DataPlaneClient&) = delete;

  // Asks `peer` for the value of `key` in step `step_id`; `lossy16` asks for a DT_FLOAT
  // payload truncated to 16 bits per element on the wire.
  void RecvTensorAsync(const std::string& peer, int64_t step_id, const std::string& key, bool lossy16,
                       int64_t deadline_ms, Allocator* allocator, DoneCallback done);

  // Blocks until RecvTensorAsync's `done` has run; waits at most until the deadline (plus
  // a margin for the timer thread). For tests and tools.
  StatusOr<Received> RecvTensor(const std::string& peer, int64_t step_id, const std::string& key,
                                bool lossy16, int64_t deadline_ms, Allocator* allocator = cpu_allocator());

  struct Connection;  // one peer's socket and its requests in flight (client.cc)
  struct Request;     // one request in flight
  struct Connector;   // one peer's connecting thread and the requests waiting for it

 private:
  // Connects to `peer` while requests wait for it (the connecting thread's body).
  void ConnectLoop(const std::shared_ptr<Connector>& connector);
  // One attempt: the TCP connect by `connect_deadline_ms`, then the handshake by
  // `handshake_deadline_ms`; on success the connection is the peer's live one.
  StatusOr<std::shared_ptr<Connection>> Connect(Connector& connector, int64_t connect_deadline_ms,
                                                int64_t handshake_deadline_ms);
  // Puts `request` among `conn`'s requests in flight, under its deadline; mu_ held. False
  // when the connection is broken already.
  bool AddInFlight(const std::shared_ptr<Connection>& conn, const std::shared_ptr<Request>& request);
  // Writes `request` on `conn` (AddInFlight first).
  static void WriteRequest(Connection& conn, const Request& request);
  // A connection's reader calls this when its stream ends; true if the client is
  // shutting down (its requests are then Cancelled rather than Unavailable).
  bool Retire(Connection* conn);
  void TimerLoop();

  const Digest key_;    // token mode: the handshake key derived from the token
  SslContextPtr tls_;   // TLS mode: certificate, key and the cluster CA
  Status setup_error_;  // TLS mode: why the certificates did not load
  std::mutex mu_;  // guards everything below
  std::condition_variable timer_cv_;
  bool shutting_down_ = false;
  uint64_t next_request_id_ = 1;
  std::unordered_map<std::string, std::shared_ptr<Connection>> connections_;
  // Peers being connected to, each by one thread, with the requests that wait for it: a
  // burst of first requests to a new peer is one handshake, not a burst of them past the
  // server's bound of unfinished ones per address. An attempt's TCP connect lasts at most
  // a second: one stuck on a peer that dropped packets must not hold back the requests
  // made once it answers again.
  std::unordered_map<std::string, std::shared_ptr<Connector>> connectors_;
  // Connecting threads that ended, to be joined; broken connections likewise.
  std::vector<std::shared_ptr<Connector>> finished_connectors_;
  std::vector<std::shared_ptr<Connection>> retired_;
  // Deadlines of the requests, (deadline_ms, request id) -> where the request waits: its
  // connection, or (none yet) its peer's connector.
  struct Waits {
    std::weak_ptr<Connection> connection;
    std::string peer;
  };
  std::map<std::pair<int64_t, uint64_t>, Waits> deadlines_;
  std::thread timer_;
};

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_DATA_PLANE_CLIENT_H_
