// DataPlaneServer: serves RecvTensor requests from other processes over TCP.
//
// The data plane carries tensors between processes (RecvTensor, feeds, fetches) on a
// dedicated TCP stream instead of CAF's serializer: a Cap'n Proto header
// (messages/tensor_frame.capnp) followed by the raw element bytes, written with one
// gathered sendmsg straight from the tensor's buffer. Payloads go out in 4 MiB pieces
// interleaved across requests, so a 64 MB tensor does not hold up a 4-byte one. Across
// connections, replies of 512 KB and more leave oldest first (actors/data_plane/
// egress_order.h: several peers pulling from one node each get theirs sooner). A
// DT_FLOAT payload is truncated to the upper 16 bits of each element when the request
// asks for lossy16 (the client widens it back).
//
// Where the tensors come from is the provider's business: it is called once per request
// and must call `reply` exactly once, at once or later, from any thread (the runtime plugs
// in its rendezvous actor, which answers when the value is sent). An error passed to
// `reply` travels to the client as a status. Only fixed-size dtypes travel; a string or
// resource tensor is answered with Unimplemented.
//
// Trust and bounds: a connection first completes the data plane handshake within
// `handshake_timeout_ms` (token mode, actors/data_plane/auth.h: both ends prove they hold
// the cluster token; TLS mode: a mutual TLS handshake, both ends presenting certificates
// from the cluster CA, and every byte after it in TLS: actors/data_plane/stream.h); nothing
// it sends before reaches the provider. At most
// `max_connections` connections live at once (at accept, a new one closes the oldest that
// has not finished its handshake, or is closed itself when all are proven), at most
// `max_unproven_per_address` of them from one address in their handshake (a new one closes
// that address's oldest, so one address cannot take every slot), each with at
// most `max_pending_replies` requests unanswered (more are answered ResourceExhausted).
// A connection idle for `idle_timeout_ms`, one that stops midway through a request for
// `frame_timeout_ms`, or one whose client stops reading for `send_timeout_ms`, is closed.
// Closed connections' threads are joined and their sockets closed within 200 ms.
// Out of descriptors, the acceptor sheds connections and carries on.
//
// Threads: one accepting thread; per connection a reader thread (authenticates, decodes
// requests, calls the provider) and, once the peer has proved itself, a writer thread
// (sends queued replies piece by piece). A small reply found with nothing queued ahead of it is written by the thread
// calling `reply` itself, without blocking (the caller is the rendezvous actor): what the
// socket does not take at once is left to the writer, saving a thread wake-up on the
// round trip. Stop() (or the destructor) shuts every socket down and joins every thread;
// a `reply` called after that is dropped.
// Thread-safety: port() and Stop() may be called from any thread.
#ifndef TENSORACT_ACTORS_DATA_PLANE_SERVER_H_
#define TENSORACT_ACTORS_DATA_PLANE_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "actors/cluster_credentials.h"
#include "actors/data_plane/egress_order.h"
#include "base/status.h"
#include "kernels/tensor.h"

namespace tensoract {

class DataPlaneServer {
 public:
  using Reply = std::function<void(const Status& status, const Tensor& value, bool is_dead)>;
  using Provider = std::function<void(int64_t step_id, const std::string& key, Reply reply)>;

  struct Options {
    std::string host = "127.0.0.1";  // IPv4 address to listen on
    int port = 0;                    // 0: any free port, see port()
    // What clients must prove: the cluster token (token mode: the HMAC handshake, then
    // plain bytes), or a certificate from the cluster CA (TLS mode: every byte in TLS).
    ClusterCredentials credentials;
    int max_connections = 256;
    int max_unproven_per_address = 64;    // connections still in their handshake, per peer address
    int max_pending_replies = 4096;       // per connection
    int64_t handshake_timeout_ms = 5000;  // a stranger until then
    int64_t idle_timeout_ms = 600000;     // no request at all for this long
    int64_t frame_timeout_ms = 30000;     // a request started and not finished
    int64_t send_timeout_ms = 30000;      // a reply the client does not take
  };

  // Listens and starts serving; Unavailable when the address cannot be bound,
  // InvalidArgument without credentials (or with certificates that do not load).
  static StatusOr<std::unique_ptr<DataPlaneServer>> Start(Provider provider, Options options);

  ~DataPlaneServer();
  DataPlaneServer(const DataPlaneServer&) = delete;
  DataPlaneServer& operator=(const DataPlaneServer&) = delete;

  int port() const { return port_; }
  // Connections whose threads still run (for tests and Inspect).
  size_t live_connections();
  // Connections accepted since Start (for tests and Inspect).
  uint64_t accepted_connections();
  // Closes the listening socket and every connection, and joins every thread. Idempotent.
  void Stop();

  struct Connection;  // one accepted client (server.cc)

 private:
  DataPlaneServer(Provider provider, Options options, SslContextPtr tls, int listen_fd, int port);
  void AcceptLoop();
  // Joins and closes connections whose threads ended. Requires mu_ held.
  void ReapLocked();
  // All connections are open: closes the oldest one whose peer has not finished its
  // handshake, to make room (idle strangers cannot keep members out); false when every
  // connection is a proven one. Requires mu_.
  // Closes the oldest connection still in its handshake (from `source` only, if given).
  bool EvictOldestUnprovenLocked(const std::string* source);
  size_t UnprovenFromLocked(const std::string& source) const;
  // Out of descriptors: accept the next connection on the reserve descriptor and close it.
  void Shed();

  // A refusal's log line, once per peer address and line.
  void LogOnce(const std::string& peer, const std::string& line);

  Provider provider_;
  const Options options_;
  const Digest key_;         // token mode: the handshake key derived from the token
  const SslContextPtr tls_;  // TLS mode: certificate, key and the cluster CA
  int reserve_fd_ = -1;
  int listen_fd_;
  int port_;
  std::thread acceptor_;
  // Large replies of all connections leave oldest first; a stalled one holds the others up
  // for 50 ms at most (while others wait, each keeps at most 256 KB unsent and is refilled
  // at half that, every 10 ms at 100 Mbit/s: a shared link that fast keeps the order; a
  // peer behind a slower link of its own does not hold the others).
  const std::shared_ptr<data_plane::EgressOrder> egress_ =
      std::make_shared<data_plane::EgressOrder>(std::chrono::milliseconds(50));
  std::mutex mu_;
  bool stopped_ = false;
  uint64_t accepted_ = 0;
  std::vector<std::shared_ptr<Connection>> connections_;
  std::mutex log_mu_;
  std::set<std::string> logged_;
};

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_DATA_PLANE_SERVER_H_
