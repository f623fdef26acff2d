// The rendezvous key: the name under which a _Send's tensor waits for its _Recv.
//
// Both halves of a pair compute it from their own attrs (graph/ops/sendrecv_ops.cc), so
// they meet without talking to each other first. It is TensorFlow's format, so keys read
// the same in logs and inspection as TensorFlow's do:
//
//   "<send_device>;<send_device_incarnation as 16 lowercase hex digits>;<recv_device>;
//    <tensor_name>;<frame_id>:<iter_id>"
//
// e.g. "/job:localhost/replica:0/task:0/device:CPU:0;0000000000000001;
//       /job:localhost/replica:0/task:0/device:CPU:1;edge_3_x;0:0" (one line).
// The incarnation is in the key so that a Send from a restarted device (a new
// incarnation) never satisfies a Recv that waited on the old one. Outside loops the frame
// and iteration are 0.
#ifndef TENSORACT_GRAPH_RENDEZVOUS_KEY_H_
#define TENSORACT_GRAPH_RENDEZVOUS_KEY_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tensoract {

inline std::string RendezvousKey(const std::string& send_device, int64_t send_device_incarnation,
                                 const std::string& recv_device, const std::string& tensor_name,
                                 int64_t frame_id = 0, int64_t iter_id = 0) {
  // The incarnation is printed as the unsigned 64-bit number it is (TensorFlow's uint64).
  char incarnation[17];
  std::snprintf(incarnation, sizeof incarnation, "%016" PRIx64, static_cast<uint64_t>(send_device_incarnation));
  return send_device + ";" + incarnation + ";" + recv_device + ";" + tensor_name + ";" +
         std::to_string(frame_id) + ":" + std::to_string(iter_id);
}

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_RENDEZVOUS_KEY_H_
