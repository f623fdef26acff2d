// The control protocol between processes: protobuf messages as bytes in CAF messages.
//
//   (rpc_atom, std::string method, std::string request_bytes)
//       -> (int32_t code, std::string error_message, std::string response_bytes)
//
// A method is named as in TensorFlow's services ("RunStep", "RegisterGraph", ...) and
// its request and response are TensorFlow's messages (messages/master.proto,
// messages/worker.proto) or tensoract's (messages/tensoract_worker.proto). Only CAF's
// own types (an atom, strings, an integer) cross the wire, so nothing depends on CAF's
// serializer beyond what it does for every message, and the bytes are exactly what a
// TensorFlow tool would read. `code` is a tensorflow::error::Code; OK means the response
// bytes hold the response. Tensors of RunGraph steps never travel here: they go over the
// data plane (actors/data_plane/data_plane.h).
//
// The node service (actors/node_service.h) answers these for a process's master and
// worker; RemoteWorker and RemoteMaster (actors/remote_worker.h, actors/remote_master.h)
// send them, so that the master and the Session talk to a remote task through the same
// messages as to a local one.
#ifndef TENSORACT_ACTORS_RPC_H_
#define TENSORACT_ACTORS_RPC_H_

#include <cstdint>
#include <string>

#include <caf/atom.hpp>

#include "base/status.h"

namespace tensoract {

using rpc_atom = caf::atom_constant<caf::atom("rpc")>;

// How long a control call to a remote task (anything but a step) may take.
constexpr int64_t kRpcControlTimeoutMs = 60 * 1000;
// Added to a step's own deadline, which the master enforces: the remote call's backstop.
constexpr int64_t kRpcStepSlackMs = 10 * 1000;

inline Status RpcStatus(int32_t code, const std::string& message) {
  if (code == 0) return Status::OK();
  if (code < 0 || code > 16) return errors::Internal("malformed reply (code ", code, "): ", message);
  return Status(static_cast<error::Code>(code), message);
}

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_RPC_H_
