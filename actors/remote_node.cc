#include "actors/remote_node.h"

#include <chrono>
#include <set>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/cluster_transport.h"
#include "actors/messages.h"
#include "actors/rpc.h"
#include "messages/tensoract_worker.pb.h"

namespace tensoract {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The text a node put into its error reply (the gatekeeper's refusal), or CAF's rendering.
std::string ErrorText(caf::actor_system& system, const caf::error& e) {
  if (e.context().match_elements<std::string>()) return e.context().get_as<std::string>(0);
  return system.render(e);
}

}  // namespace

Status ParseResponse(const Status& status, const std::string& bytes, google::protobuf::MessageLite* proto,
                     const char* method) {
  if (!status.ok()) return status;
  if (!proto->ParseFromString(bytes)) return errors::DataLoss("cannot parse the ", method, " response");
  return Status::OK();
}

void RemoteNode::Attach(caf::event_based_actor* self, RemoteAddress address) {
  self_ = self;
  address_ = std::move(address);
  self->set_down_handler([this](caf::down_msg& down) {
    if (!service_ || down.source != service_.address()) return;
    service_ = nullptr;
    if (!address_.fail_calls_when_gone) return;
    // CAF 0.17 may never answer a request to a proxy whose node went away (it would wait
    // out its whole deadline): the calls in flight fail now, naming the node.
    FailInFlight(errors::Unavailable(address_.name, " (", address_.host, ":", address_.port,
                                     ") went away: ", ErrorText(self_->home_system(), down.reason)));
  });
}

void RemoteNode::FailInFlight(const Status& why) {
  if (service_) self_->demonitor(service_);
  service_ = nullptr;
  auto lost = std::move(in_flight_);
  in_flight_.clear();
  for (auto& [id, call] : lost) call.done(why, "");
}

void RemoteNode::ScheduleTick() {
  if (tick_scheduled_) return;
  tick_scheduled_ = true;
  self_->delayed_send(self_, std::chrono::milliseconds(kRemoteNodeTickMs), remote_node_tick_atom::value);
}

void RemoteNode::OnTick() {
  tick_scheduled_ = false;
  const int64_t now = NowMs();
  std::vector<std::pair<Done, Status>> expired;
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    if (now < it->second.deadline_ms) {
      ++it;
      continue;
    }
    expired.emplace_back(std::move(it->second.done),
                         errors::DeadlineExceeded(it->second.what, ": no answer within ", it->second.timeout_ms, " ms"));
    it = in_flight_.erase(it);
  }
  for (auto& [done, why] : expired) done(why, "");
  if (in_flight_.empty()) return;
  if (address_.liveness_interval_ms > 0 && service_ && !probe_out_ &&
      now - last_probe_ms_ >= address_.liveness_interval_ms) {
    Probe();
  }
  ScheduleTick();
}

void RemoteNode::Probe() {
  probe_out_ = true;
  last_probe_ms_ = NowMs();
  const int64_t timeout_ms = address_.liveness_timeout_ms;
  caf::actor probed = service_;
  // A heartbeat a second with a short timeout: what CAF's clock keeps for it is small.
  // Its lease: the master may close this client's sessions if no heartbeat renews it while
  // a step of theirs runs (this process froze, died unseen or was cut off).
  tensoract::HeartbeatRequest heartbeat;
  heartbeat.set_client_lease_ms(HeartbeatLeaseMs(address_.liveness_interval_ms, timeout_ms));
  self_->request(service_, std::chrono::milliseconds(timeout_ms), rpc_atom::value, std::string("Heartbeat"),
                 heartbeat.SerializeAsString())
      .then(
          [this](int32_t, std::string&, std::string&) { probe_out_ = false; },
          [this, probed, timeout_ms](caf::error& e) {
            probe_out_ = false;
            if (service_ != probed) return;  // already failed and reconnected
            FailInFlight(errors::Unavailable(
                address_.name, " (", address_.host, ":", address_.port, ") did not answer a heartbeat within ",
                timeout_ms, " ms (frozen, or cut off from here): ",
                e == caf::sec::request_timeout ? "no answer" : ErrorText(self_->home_system(), e)));
          });
}

void RemoteNode::Call(const std::string& method, std::string request, int64_t timeout_ms, Done done) {
  Pending call{method, std::move(request), timeout_ms, std::move(done)};
  if (service_) return Send(std::move(call));
  pending_.push_back(std::move(call));
  if (!connecting_) Connect();
}

void RemoteNode::Tell(const std::string& method, std::string request) {
  Call(method, std::move(request), 60 * 1000, [](const Status&, std::string) {});
}

void RemoteNode::Send(Pending call) {
  const std::string what = StrCat(address_.name, " (", address_.host, ":", address_.port, ") ", call.method);
  // The call's `done` runs once: from its reply, its error, its deadline (OnTick) or the
  // service's down message.
  const uint64_t id = next_call_++;
  if (in_flight_.empty()) last_probe_ms_ = NowMs();  // the first probe an interval from now
  in_flight_.emplace(id, InFlight{std::move(call.done), NowMs() + call.timeout_ms, what, call.timeout_ms});
  Done done = [this, id](const Status& s, std::string response) {
    auto it = in_flight_.find(id);
    if (it == in_flight_.end()) return;  // already failed (deadline, down message)
    Done d = std::move(it->second.done);
    in_flight_.erase(it);
    d(s, std::move(response));
  };
  ScheduleTick();
  auto on_error = [this, done, what](caf::error& e) {
    service_ = nullptr;  // the next call connects again
    done(errors::Unavailable(what, " failed: ", ErrorText(self_->home_system(), e)), "");
  };
  // No CAF timeout: the deadline is OnTick's (see remote_node_tick_atom).
  if (call.method == kInspect) {
    self_->request(service_, caf::infinite, inspect_atom::value)
        .then([done](std::string& text) { done(Status::OK(), std::move(text)); }, on_error);
    return;
  }
  self_->request(service_, caf::infinite, rpc_atom::value, call.method, std::move(call.request))
      .then(
          [done](int32_t code, std::string& message, std::string& response) {
            done(RpcStatus(code, message), std::move(response));
          },
          on_error);
}

void RemoteNode::FailPending(const Status& status) {
  std::vector<Pending> failed = std::move(pending_);
  pending_.clear();
  for (Pending& call : failed) call.done(status, "");
}

void RemoteNode::Connect() {
  connecting_ = true;
  const std::string where = StrCat(address_.name, " (", address_.host, ":", address_.port, ")");
  caf::actor_system& system = self_->home_system();
  if (!HasClusterTransport(system)) {
    connecting_ = false;
    return FailPending(errors::FailedPrecondition("cannot reach ", where, ": this process's actor system was not "
                                                  "configured with ConfigureClusterTransport"));
  }
  // The transport's connect: TLS with the cluster's credentials before any BASP byte, and
  // asynchronous with a deadline, so a peer that never answers blocks nothing.
  self_->request(system.middleman().actor_handle(), std::chrono::milliseconds(address_.connect_timeout_ms),
                 caf::connect_atom::value, address_.host, address_.port)
      .then(
          [this, where](const caf::node_id&, caf::strong_actor_ptr& published, const std::set<std::string>&) {
            connecting_ = false;
            if (!published) return FailPending(errors::Unavailable("cannot reach ", where, ": nothing is published there"));
            service_ = caf::actor_cast<caf::actor>(std::move(published));
            self_->monitor(service_);
            std::vector<Pending> calls = std::move(pending_);
            pending_.clear();
            for (Pending& call : calls) Send(std::move(call));
          },
          [this, where](caf::error& e) {
            connecting_ = false;
            FailPending(DescribeConnectFailure(self_->home_system(), e, address_.host, address_.port, where));
          });
}

}  // namespace tensoract
