// DataPlaneServer: serves RecvTensor requests from other processes over TCP.
//
// The data plane carries tensors between processes (RecvTensor, feeds, fetches) on a
// dedicated TCP stream instead of CAF's serializer: a Cap'n Proto header
// (messages/tensor_frame.capnp) followed by the raw element bytes, written with one
// gathered sendmsg straight from the tensor's buffer. Payloads go out in 4 MiB pieces
// interleaved across requests, so a 64 MB tensor does not hold up a 4-byte one. A
// DT_FLOAT payload is truncated to the upper 16 bits of each element when the request
// asks for lossy16 (the client widens it back).
//
// Where the tensors come from is the provider's business: it is called once per request
// and must call `reply` exactly once, at once or later, from any thread (the runtime plugs
// in its rendezvous actor, which answers when the value is sent). An error passed to
// `reply` travels to the client as a status. Only fixed-size dtypes travel; a string or
// resource tensor is answered with Unimplemented.
//
// Threads: one accepting thread; per connection a reader thread (decodes requests, calls
// the provider) and a writer thread (sends queued replies piece by piece). A small reply
// found with nothing queued ahead of it is written by the thread calling `reply` itself,
// saving a thread wake-up on the round trip. Stop() (or the destructor) shuts every
// socket down and joins every thread; a `reply` called after that is dropped.
// Thread-safety: port() and Stop() may be called from any thread.
#ifndef TENSORACT_ACTORS_DATA_PLANE_SERVER_H_
#define TENSORACT_ACTORS_DATA_PLANE_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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
  };

  // Listens and starts serving; Unavailable when the address cannot be bound.
  static StatusOr<std::unique_ptr<DataPlaneServer>> Start(Provider provider, Options options);
  static StatusOr<std::unique_ptr<DataPlaneServer>> Start(Provider provider) {
    return Start(std::move(provider), Options());
  }

  ~DataPlaneServer();
  DataPlaneServer(const DataPlaneServer&) = delete;
  DataPlaneServer& operator=(const DataPlaneServer&) = delete;

  int port() const { return port_; }
  // Closes the listening socket and every connection, and joins every thread. Idempotent.
  void Stop();

  struct Connection;  // one accepted client (data_plane_server.cc)

 private:
  DataPlaneServer(Provider provider, int listen_fd, int port);
  void AcceptLoop();

  Provider provider_;
  int listen_fd_;
  int port_;
  std::thread acceptor_;
  std::mutex mu_;
  bool stopped_ = false;
  std::vector<std::shared_ptr<Connection>> connections_;
};

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_DATA_PLANE_SERVER_H_
