// The control RPCs' requests (actors/rpc.h), from the bytes a peer sent to what the
// master's and the worker's actors take (actors/messages.h).
//
// Each decoder parses the method's protobuf (protobuf's own limits apply: nesting 100 deep)
// and checks what it can before anything runs: a feed's tensor against the bytes it came in
// and the expansion limit (Tensor::FromProto), a timeout against kMaxTimeoutMs. A request
// that fails is InvalidArgument naming the method. They are pure functions: the node service
// (actors/node_service.cc) calls them for every request, and the fuzz targets and their
// corpus replay (tests/fuzz/) call the same ones, so what is fuzzed is what a peer reaches.
#ifndef TENSORACT_ACTORS_RPC_REQUESTS_H_
#define TENSORACT_ACTORS_RPC_REQUESTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "actors/messages.h"
#include "base/status.h"

namespace tensoract {
namespace rpc {

// The master's methods (TensorFlow's MasterService). `owner` names the remote client that
// sent the request ("" for a local one).
StatusOr<CreateSessionRequest> DecodeCreateSession(const std::string& bytes, const std::string& owner);
StatusOr<ExtendSessionRequest> DecodeExtendSession(const std::string& bytes);
StatusOr<RunStepRequest> DecodeRunStep(const std::string& bytes);
StatusOr<std::string> DecodeCloseSession(const std::string& bytes);  // the session handle
StatusOr<std::vector<std::string>> DecodeReset(const std::string& bytes);  // the containers
struct CancelStep {
  std::string session_handle;
  int64_t request_id = 0;
};
StatusOr<CancelStep> DecodeCancelStep(const std::string& bytes);
StatusOr<PartialRunSetupRequest> DecodePartialRunSetup(const std::string& bytes);
StatusOr<MakeCallableRequest> DecodeMakeCallable(const std::string& bytes);
StatusOr<RunCallableRequest> DecodeRunCallable(const std::string& bytes);
struct ReleaseCallable {
  std::string session_handle;
  int64_t handle = 0;
};
StatusOr<ReleaseCallable> DecodeReleaseCallable(const std::string& bytes);
Status DecodeListDevices(const std::string& bytes);  // nothing in it is used

// The worker's methods (TensorFlow's WorkerService and tensoract's own). `owner` names the
// remote master that sent the request ("" for a local one).
struct Heartbeat {
  int64_t sequence = 0;
  int64_t lease_ms = 0;  // the sending master's lease on its steps; 0: none
  int64_t client_lease_ms = 0;  // the sending client's lease on its running steps; 0: none
};
StatusOr<Heartbeat> DecodeHeartbeat(const std::string& bytes);
StatusOr<PeerDirectory> DecodeSetPeers(const std::string& bytes);
StatusOr<RegisterGraphRequest> DecodeRegisterGraph(const std::string& bytes, const std::string& owner);
StatusOr<RunGraphRequest> DecodeRunGraph(const std::string& bytes, const std::string& owner);
StatusOr<std::string> DecodeDeregisterGraph(const std::string& bytes);  // the graph handle
StatusOr<int64_t> DecodeCleanupGraph(const std::string& bytes);         // the step id
struct AbortStep {
  int64_t step_id = 0;
  Status why;  // never OK
};
StatusOr<AbortStep> DecodeAbortStep(const std::string& bytes);
StatusOr<std::vector<std::string>> DecodeCleanupAll(const std::string& bytes);  // the containers

// Every method above, by name ("RunStep", ...), in a fixed order.
const std::vector<std::string>& Methods();
// Decodes `bytes` as `method`'s request and drops the result (for the fuzz targets);
// Unimplemented for a method not in Methods().
Status Decode(const std::string& method, const std::string& bytes);

}  // namespace rpc
}  // namespace tensoract

#endif  // TENSORACT_ACTORS_RPC_REQUESTS_H_
