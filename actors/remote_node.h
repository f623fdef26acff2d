// RemoteNode: the node service of another process, as one actor calls it.
//
// Used inside an event-based actor (RemoteWorker, RemoteMaster). The first call connects
// through the process's cluster transport (actors/cluster_transport.h: the actor system
// must have been configured with ConfigureClusterTransport), asynchronously and with a
// deadline; the node publishes its node service (actors/node_service.h). Calls made meanwhile wait and are sent in order
// once the service is known. The actor monitors the service: when the process goes away, the
// handle is dropped and the next call connects again, reaching a restarted process at the
// same address (a new node, so a new CAF connection).
//
// Every call ends in `done` exactly once, with the response bytes or an error naming the
// node and the method: Unavailable (cannot connect, connection lost), PermissionDenied
// (the node rejected our credentials), DeadlineExceeded (no answer within the call's timeout), or the error the
// remote method returned.
#ifndef TENSORACT_ACTORS_REMOTE_NODE_H_
#define TENSORACT_ACTORS_REMOTE_NODE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/typed_response_promise.hpp>
#include <google/protobuf/message_lite.h>
#include <caf/fwd.hpp>

#include "base/status.h"

namespace tensoract {

struct RemoteAddress {
  std::string host;
  uint16_t port = 0;
  std::string name;  // how errors name the node, e.g. its task
  int64_t connect_timeout_ms = 5000;
  // Fail the calls in flight as soon as the node goes away (CAF 0.17 may never answer a
  // request to a proxy whose node died; the call would wait out its deadline). Set for a
  // client's master and for the master's workers.
  bool fail_calls_when_gone = false;
  // While calls are in flight, ask the node for a heartbeat every liveness_interval_ms;
  // one unanswered within liveness_timeout_ms fails them all with Unavailable naming the
  // node. A frozen process, or one the network cut off without a reset, never sends the
  // "down" a dead one does: without this a call waits out its own deadline (a step's can
  // be hours). 0: off.
  int64_t liveness_interval_ms = 0;
  int64_t liveness_timeout_ms = 0;
};

// How often a RemoteNode with calls in flight checks their deadlines (remote_node_tick_atom).
constexpr int64_t kRemoteNodeTickMs = 100;

// How long the receiver of heartbeats sent every `interval_ms`, each failed when unanswered
// after `timeout_ms`, waits for the next before it gives up on the sender (a lease). A
// sender asks again only once the previous heartbeat is answered (up to timeout_ms after it
// left) and an interval has passed, and that one may take up to timeout_ms to arrive: two
// can reach the receiver interval + 2 x timeout apart while the sender finds it alive all
// along (plus a tick of the sender's timer). A shorter lease let a receiver on a
// loaded machine drop a live sender.
constexpr int64_t HeartbeatLeaseMs(int64_t interval_ms, int64_t timeout_ms) {
  return interval_ms + 2 * timeout_ms + kRemoteNodeTickMs;
}

// The RemoteNode's timer: while calls are in flight it arrives every 100 ms, and the actor
// hands it to RemoteNode::OnTick. Calls' deadlines are kept here rather than as CAF
// request timeouts, which CAF 0.17 keeps in its clock until they fire (~190 bytes each for
// as long as the deadline: a step's calls at hundreds of steps a second add up).
using remote_node_tick_atom = caf::atom_constant<caf::atom("rnodetick")>;

class RemoteNode {
 public:
  using Done = std::function<void(const Status& status, std::string response)>;

  // Must be called once, when the actor starts: installs its down handler.
  void Attach(caf::event_based_actor* self, RemoteAddress address);
  void Call(const std::string& method, std::string request, int64_t timeout_ms, Done done);
  // The node's state (actors/node_service.h's inspect), as text.
  void Inspect(int64_t timeout_ms, Done done) { Call(kInspect, "", timeout_ms, std::move(done)); }
  // Sends without waiting for the answer (cleanups, aborts); errors are dropped.
  void Tell(const std::string& method, std::string request);

  // A remote_node_tick_atom arrived: fails the calls past their deadline and, with
  // RemoteAddress::liveness_interval_ms, probes the node.
  void OnTick();

  const RemoteAddress& address() const { return address_; }
  bool connected() const { return static_cast<bool>(service_); }

 private:
  static constexpr const char* kInspect = "";  // not a method: the inspect message
  struct Pending {
    std::string method, request;
    int64_t timeout_ms;
    Done done;
  };
  void Connect();
  void Send(Pending call);
  void FailPending(const Status& status);
  // Fails every call in flight with `why` and forgets the service (the next call connects).
  void FailInFlight(const Status& why);
  void ScheduleTick();
  void Probe();
  struct InFlight {
    Done done;
    int64_t deadline_ms;  // steady clock
    std::string what;     // "name (host:port) Method", for errors
    int64_t timeout_ms;
  };

  RemoteAddress address_;
  caf::event_based_actor* self_ = nullptr;
  caf::actor service_;
  bool connecting_ = false;
  std::vector<Pending> pending_;                 // waiting for a connection
  std::map<uint64_t, InFlight> in_flight_;       // sent, not answered
  uint64_t next_call_ = 0;
  bool tick_scheduled_ = false;
  bool probe_out_ = false;
  int64_t last_probe_ms_ = 0;
};

// Helpers of the proxies (RemoteWorker, RemoteMaster) and the node service.

// A protobuf message as the bytes of an RPC.
inline std::string ProtoBytes(const google::protobuf::MessageLite& proto) { return proto.SerializeAsString(); }

// `status` if it is an error, else `bytes` parsed into `proto` (DataLoss naming `method`
// when they do not parse).
Status ParseResponse(const Status& status, const std::string& bytes, google::protobuf::MessageLite* proto,
                     const char* method);

// Calls `method` on `node` and answers the actor's current request with what `convert`
// makes of the outcome (on failure `convert` gets the error and empty bytes).
template <class Reply, class Actor>
caf::typed_response_promise<Reply> CallAndConvert(Actor* self, RemoteNode& node, const std::string& method,
                                                   std::string request, int64_t timeout_ms,
                                                   std::function<Reply(const Status&, const std::string&)> convert) {
  auto promise = self->template make_response_promise<Reply>();
  node.Call(method, std::move(request), timeout_ms, [promise, convert](const Status& s, std::string bytes) mutable {
    promise.deliver(convert(s, bytes));
  });
  return promise;
}

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_REMOTE_NODE_H_
