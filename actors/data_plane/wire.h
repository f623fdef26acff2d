// The data plane's byte stream: sockets, Cap'n Proto framing and raw payloads.
//
// Shared by DataPlaneServer and DataPlaneClient (actors/data_plane/server.h,
// actors/data_plane/client.h); the message layout is messages/tensor_frame.capnp. A
// message is a small Cap'n Proto header in standard stream framing; a tensor's bytes
// follow it raw, so they are written straight from the tensor (one gathered sendmsg) and
// read straight into the destination tensor, never through a message arena.
//
// Raw bytes are in host order: both ends must be little-endian (x86-64, AArch64).
//
// Thread-safety: FrameReader belongs to one reading thread; the free functions are
// thread-safe, but concurrent writers on one socket must serialise themselves.
#ifndef TENSORACT_ACTORS_DATA_PLANE_WIRE_H_
#define TENSORACT_ACTORS_DATA_PLANE_WIRE_H_

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <capnp/message.h>
#include <kj/array.h>

#include "actors/data_plane/stream.h"
#include "base/status.h"

namespace tensoract {
namespace data_plane {

// Payloads go out in pieces of this size, so that one big tensor delays another
// request's reply on the same connection by at most one piece.
constexpr size_t kChunkBytes = size_t{4} << 20;
// A header larger than this is a corrupt stream, not a header (keys are short).
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;

// TCP_NODELAY (a 4-byte reply must not wait for Nagle) and large socket buffers.
void TuneSocket(int fd);

// "host:port" -> a connected socket, or Unavailable naming the peer. Waits at most
// until `deadline_ms` (milliseconds on the steady clock, see SteadyNowMs).
StatusOr<int> ConnectTo(const std::string& peer, int64_t deadline_ms);
// A listening socket on host:port (port 0: any free port); `*bound_port` tells which.
StatusOr<int> ListenOn(const std::string& host, int port, int* bound_port);

int64_t SteadyNowMs();

// The message in stream framing (segment table + segments), ready to write.
kj::Array<capnp::word> Encode(capnp::MessageBuilder& message);


// Reads a stream: whole Cap'n Proto messages, and raw bytes straight into a destination.
// Small reads are served from a buffer; large ones bypass it.
class FrameReader {
 public:
  explicit FrameReader(Stream& stream);

  // One message in stream framing into `*words` (for capnp::FlatArrayMessageReader).
  // Unavailable when the peer closed or the socket failed, DataLoss for a segment table
  // that cannot be a header.
  Status ReadMessage(kj::Array<capnp::word>* words);
  // Exactly `n` bytes into `dst`; `dst` nullptr discards them.
  Status ReadRaw(void* dst, size_t n);
  // Deadlines (milliseconds; -1, the default: none): waiting for the first byte of a
  // message at most `idle_ms`, for each later byte of it at most `frame_ms`. A read that
  // waits longer fails with DeadlineExceeded (a peer that went silent or stalled midway).
  void SetTimeouts(int64_t idle_ms, int64_t frame_ms) {
    idle_ms_ = idle_ms;
    frame_ms_ = frame_ms;
  }

 private:
  // At least one more byte into the buffer.
  Status Fill();
  // How long a read may wait now: the idle or the frame deadline.
  int64_t WaitMs() const { return at_message_start_ ? idle_ms_ : frame_ms_; }
  // DeadlineExceeded in the words of the deadline that passed; other errors as they are.
  Status Explain(const Status& s) const;

  Stream& stream_;
  std::vector<char> buffer_;
  size_t begin_ = 0;  // unread bytes are buffer_[begin_, end_)
  size_t end_ = 0;
  int64_t idle_ms_ = -1;
  int64_t frame_ms_ = -1;
  bool at_message_start_ = false;  // the next byte begins a message: the idle deadline
};

}  // namespace data_plane
}  // namespace tensoract

#endif  // TENSORACT_ACTORS_DATA_PLANE_WIRE_H_
