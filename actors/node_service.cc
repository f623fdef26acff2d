#include "actors/node_service.h"

#include <chrono>
#include <functional>
#include <set>

#include <caf/all.hpp>

#include "actors/messages.h"
#include "actors/observe.h"
#include "actors/remote_node.h"
#include "actors/rpc.h"
#include "actors/rpc_requests.h"
#include "messages/master.pb.h"
#include "messages/tensoract_worker.pb.h"
#include "messages/worker.pb.h"

namespace tensoract {
namespace {


using NodeServiceSelf = caf::event_based_actor;

void Reply(caf::response_promise& rp, const Status& status, const std::string& bytes) {
  rp.deliver(static_cast<int32_t>(status.code()), status.message(), bytes);
}

// Sends `args` to `to` and answers `rp` with what `convert` makes of the reply.
template <class LocalReply, class... Args>
void Forward(NodeServiceSelf* self, const caf::actor& to, caf::response_promise rp, const std::string& method,
             std::function<Status(LocalReply&, std::string*)> convert, Args&&... args) {
  // No timeout: the master and the worker are local and always answer (CAF answers for an
  // actor that stopped), and the caller has its own deadline. A CAF 0.17 request timeout
  // would stay in the clock until it fired, ~190 bytes per request for as long as it is.
  self->request(to, caf::infinite, std::forward<Args>(args)...)
      .then(
          [rp, convert](LocalReply& reply) mutable {
            std::string bytes;
            Status s = convert(reply, &bytes);
            Reply(rp, s, bytes);
          },
          [rp, method](caf::error& e) mutable { Reply(rp, FromCafError(e, method), ""); });
}

// The converter of a method whose reply is only a status: the empty response proto.
template <class ResponseProto>
std::function<Status(Status&, std::string*)> StatusReply() {
  return [](Status& s, std::string* out) {
    *out = ProtoBytes(ResponseProto());
    return s;
  };
}

Status ToRunStepResponse(RunStepResponse& r, const std::vector<std::string>& fetches, std::string* out) {
  tensorflow::RunStepResponse proto;
  if (r.status.ok()) {
    for (size_t i = 0; i < r.fetched.size(); ++i) {
      tensorflow::NamedTensorProto* t = proto.add_tensor();
      t->set_name(i < fetches.size() ? fetches[i] : "");
      r.fetched[i].AsProtoTensorContent(t->mutable_tensor());
    }
    if (r.step_stats) *proto.mutable_metadata()->mutable_step_stats() = *r.step_stats;
    for (const auto& g : r.partition_graphs) *proto.mutable_metadata()->add_partition_graphs() = *g;
  }
  proto.set_status_code(static_cast<tensorflow::error::Code>(r.status.code()));
  proto.set_status_error_message(r.status.message());
  *out = ProtoBytes(proto);
  return r.status;
}

// Answers `rp` with why `decoded` failed, or hands its value to `use`.
template <class T, class Use>
void IfDecoded(caf::response_promise& rp, StatusOr<T> decoded, Use&& use) {
  if (!decoded.ok()) return Reply(rp, decoded.status(), "");
  use(std::move(decoded).value());
}

// The master's methods. False when `method` is not one. `owner` names the remote client
// that sent the request ("" for a local one): its sessions close when it goes away.
bool ServeMaster(NodeServiceSelf* self, const caf::actor& master, const std::string& method, const std::string& bytes,
                 caf::response_promise& rp, const std::string& owner) {
  if (method == "CreateSession") {
    IfDecoded(rp, rpc::DecodeCreateSession(bytes, owner), [&](CreateSessionRequest local) {
      Forward<CreateSessionResponse>(
          self, master, rp, method,
          [](CreateSessionResponse& r, std::string* out) {
            tensorflow::CreateSessionResponse proto;
            proto.set_session_handle(r.session_handle);
            *out = ProtoBytes(proto);
            return r.status;
          },
          create_session_atom::value, std::move(local));
    });
  } else if (method == "ExtendSession") {
    IfDecoded(rp, rpc::DecodeExtendSession(bytes), [&](ExtendSessionRequest local) {
      Forward<ExtendSessionResponse>(
          self, master, rp, method,
          [](ExtendSessionResponse& r, std::string* out) {
            tensorflow::ExtendSessionResponse proto;
            proto.set_new_graph_version(r.new_graph_version);
            *out = ProtoBytes(proto);
            return r.status;
          },
          extend_session_atom::value, std::move(local));
    });
  } else if (method == "RunStep") {
    IfDecoded(rp, rpc::DecodeRunStep(bytes), [&](RunStepRequest local) {
      std::vector<std::string> fetches = local.fetches;
      const bool in_body = local.store_errors_in_response_body;
      Forward<RunStepResponse>(
          self, master, rp, method,
          [fetches, in_body](RunStepResponse& r, std::string* out) {
            Status s = ToRunStepResponse(r, fetches, out);
            return in_body ? Status::OK() : s;
          },
          run_step_atom::value, std::move(local));
    });
  } else if (method == "PartialRunSetup") {
    IfDecoded(rp, rpc::DecodePartialRunSetup(bytes), [&](PartialRunSetupRequest local) {
      Forward<PartialRunSetupResponse>(
          self, master, rp, method,
          [](PartialRunSetupResponse& r, std::string* out) {
            tensorflow::PartialRunSetupResponse proto;
            proto.set_partial_run_handle(r.partial_run_handle);
            *out = ProtoBytes(proto);
            return r.status;
          },
          partial_setup_atom::value, std::move(local));
    });
  } else if (method == "MakeCallable") {
    IfDecoded(rp, rpc::DecodeMakeCallable(bytes), [&](MakeCallableRequest local) {
      Forward<MakeCallableResponse>(
          self, master, rp, method,
          [](MakeCallableResponse& r, std::string* out) {
            tensorflow::MakeCallableResponse proto;
            proto.set_handle(r.handle);
            *out = ProtoBytes(proto);
            return r.status;
          },
          make_callable_atom::value, std::move(local));
    });
  } else if (method == "RunCallable") {
    IfDecoded(rp, rpc::DecodeRunCallable(bytes), [&](RunCallableRequest local) {
      Forward<RunStepResponse>(
          self, master, rp, method,
          [](RunStepResponse& r, std::string* out) {
            tensorflow::RunCallableResponse proto;
            for (const Tensor& t : r.fetched) t.AsProtoTensorContent(proto.add_fetch());
            if (r.step_stats) *proto.mutable_metadata()->mutable_step_stats() = *r.step_stats;
            *out = ProtoBytes(proto);
            return r.status;
          },
          run_callable_atom::value, std::move(local));
    });
  } else if (method == "ReleaseCallable") {
    IfDecoded(rp, rpc::DecodeReleaseCallable(bytes), [&](rpc::ReleaseCallable release) {
      Forward<Status>(self, master, rp, method, StatusReply<tensorflow::ReleaseCallableResponse>(),
                      release_callable_atom::value, std::move(release.session_handle), release.handle);
    });
  } else if (method == "ListDevices") {
    Status decoded = rpc::DecodeListDevices(bytes);
    if (!decoded.ok()) {
      Reply(rp, decoded, "");
      return true;
    }
    Forward<ListDevicesResponse>(
        self, master, rp, method,
        [](ListDevicesResponse& r, std::string* out) {
          tensorflow::ListDevicesResponse proto;
          for (const auto& d : r.local) *proto.add_local_device() = d;
          for (const auto& d : r.remote) *proto.add_remote_device() = d;
          *out = ProtoBytes(proto);
          return r.status;
        },
        list_devices_atom::value);
  } else if (method == "CloseSession") {
    IfDecoded(rp, rpc::DecodeCloseSession(bytes), [&](std::string handle) {
      Forward<Status>(self, master, rp, method, StatusReply<tensorflow::CloseSessionResponse>(),
                      close_session_atom::value, std::move(handle));
    });
  } else if (method == "CancelStep") {
    IfDecoded(rp, rpc::DecodeCancelStep(bytes), [&](rpc::CancelStep cancel) {
      Forward<Status>(self, master, rp, method, StatusReply<tensoract::CancelStepResponse>(), cancel_step_atom::value,
                      std::move(cancel.session_handle), cancel.request_id);
    });
  } else if (method == "Reset") {
    IfDecoded(rp, rpc::DecodeReset(bytes), [&](std::vector<std::string> containers) {
      Forward<Status>(self, master, rp, method, StatusReply<tensorflow::ResetResponse>(), reset_atom::value,
                      std::move(containers));
    });
  } else {
    return false;
  }
  return true;
}

tensoract::HeartbeatResponse ToHeartbeat(const WorkerInfo& info) {
  tensoract::HeartbeatResponse proto;
  proto.set_task(info.task);
  proto.set_worker_incarnation(info.incarnation);
  proto.set_data_plane_address(info.data_plane);
  for (const auto& d : info.devices) *proto.add_device_attributes() = d;
  for (int64_t s : info.running_steps) proto.add_running_step_id(s);
  return proto;
}

// The worker's methods. False when `method` is not one. `owner` names the remote master
// that sent the request ("" for a local one): its graphs and steps go when it does. A
// client's heartbeat (its calls wait) renews its lease at `master` (null: none here).
bool ServeWorker(NodeServiceSelf* self, const caf::actor& worker, const caf::actor& master, const std::string& method,
                 const std::string& bytes, caf::response_promise& rp, const std::string& owner) {
  if (method == "Heartbeat") {
    IfDecoded(rp, rpc::DecodeHeartbeat(bytes), [&](rpc::Heartbeat heartbeat) {
      if (!owner.empty() && heartbeat.lease_ms > 0) {
        self->send(worker, master_lease_atom::value, owner, heartbeat.lease_ms);
      }
      if (!owner.empty() && heartbeat.client_lease_ms > 0 && master) {
        self->send(master, client_lease_atom::value, owner, heartbeat.client_lease_ms);
      }
      const int64_t sequence = heartbeat.sequence;
      Forward<WorkerInfo>(
          self, worker, rp, method,
          [sequence](WorkerInfo& info, std::string* out) {
            tensoract::HeartbeatResponse proto = ToHeartbeat(info);
            proto.set_sequence(sequence);
            *out = ProtoBytes(proto);
            return Status::OK();
          },
          heartbeat_atom::value);
    });
  } else if (method == "SetPeers") {
    IfDecoded(rp, rpc::DecodeSetPeers(bytes), [&](PeerDirectory local) {
      Forward<Status>(self, worker, rp, method, StatusReply<tensoract::PeerDirectoryResponse>(),
                      set_peers_atom::value, std::move(local));
    });
  } else if (method == "RegisterGraph") {
    IfDecoded(rp, rpc::DecodeRegisterGraph(bytes, owner), [&](RegisterGraphRequest local) {
      Forward<RegisterGraphResponse>(
          self, worker, rp, method,
          [](RegisterGraphResponse& r, std::string* out) {
            tensorflow::RegisterGraphResponse proto;
            proto.set_graph_handle(r.graph_handle);
            *out = ProtoBytes(proto);
            return r.status;
          },
          register_graph_atom::value, std::move(local));
    });
  } else if (method == "RunGraph") {
    IfDecoded(rp, rpc::DecodeRunGraph(bytes, owner), [&](RunGraphRequest local) {
      Forward<RunGraphResponse>(
          self, worker, rp, method,
          [](RunGraphResponse& r, std::string* out) {
            tensorflow::RunGraphResponse proto;
            if (r.step_stats) *proto.mutable_step_stats() = std::move(*r.step_stats);
            proto.set_status_code(static_cast<tensorflow::error::Code>(r.status.code()));
            proto.set_status_error_message(r.status.message());
            *out = ProtoBytes(proto);
            if (r.graph_not_found) {
              tensoract::RunGraphResponseExtras extras;
              extras.set_graph_not_found(true);
              *out += ProtoBytes(extras);  // concatenated protobufs merge: an unknown field to TensorFlow
            }
            return r.status;
          },
          run_graph_atom::value, std::move(local));
    });
  } else if (method == "DeregisterGraph") {
    IfDecoded(rp, rpc::DecodeDeregisterGraph(bytes), [&](std::string handle) {
      Forward<Status>(self, worker, rp, method, StatusReply<tensorflow::DeregisterGraphResponse>(),
                      deregister_graph_atom::value, std::move(handle));
    });
  } else if (method == "CleanupGraph") {
    IfDecoded(rp, rpc::DecodeCleanupGraph(bytes), [&](int64_t step_id) {
      self->send(worker, cleanup_graph_atom::value, step_id);
      Reply(rp, Status::OK(), ProtoBytes(tensorflow::CleanupGraphResponse()));
    });
  } else if (method == "AbortStep") {
    IfDecoded(rp, rpc::DecodeAbortStep(bytes), [&](rpc::AbortStep abort) {
      self->send(worker, abort_step_atom::value, abort.step_id, abort.why);
      Reply(rp, Status::OK(), ProtoBytes(tensoract::AbortStepResponse()));
    });
  } else if (method == "CleanupAll") {
    IfDecoded(rp, rpc::DecodeCleanupAll(bytes), [&](std::vector<std::string> containers) {
      Forward<Status>(self, worker, rp, method, StatusReply<tensorflow::CleanupAllResponse>(), reset_atom::value,
                      std::move(containers));
    });
  } else {
    return false;
  }
  return true;
}

// The remote processes that sent requests, watched: when one goes away (it died, its
// connection broke) the worker drops what a master there registered and ran, and the master
// closes the sessions a client there opened (TensorFlow keeps such leftovers until a restart
// or a timeout). A process is named by its CAF node id; CAF 0.17 cannot monitor a node, so
// every actor of it that sent a request and still lives is monitored: an actor that merely
// exits is not its process going away, and any one of them going down with the link tells
// that the process did. (Watching only one actor per process lost a client whose watched
// actor exited while another ran its step: nothing was watched when the process died.)
struct Peers {
  std::map<std::string, std::set<caf::actor_addr>> watched_by_node;
  std::map<caf::actor_addr, std::string> node_of_watched;
};

std::string OwnerOfSender(NodeServiceSelf* self, Peers& peers) {
  const caf::strong_actor_ptr& sender = self->current_sender();
  if (!sender || sender->node() == self->home_system().node()) return "";
  std::string node = caf::to_string(sender->node());
  if (peers.node_of_watched.emplace(sender->address(), node).second) {
    peers.watched_by_node[node].insert(sender->address());
    self->monitor(caf::actor_cast<caf::actor>(sender));
  }
  return node;
}

caf::behavior NodeService(NodeServiceSelf* self, caf::actor worker, caf::actor master) {
  auto peers = std::make_shared<Peers>();
  self->set_down_handler([self, worker, master, peers](caf::down_msg& down) {
    auto it = peers->node_of_watched.find(down.source);
    if (it == peers->node_of_watched.end()) return;
    const std::string node = it->second;
    peers->node_of_watched.erase(it);
    auto& watched = peers->watched_by_node[node];
    watched.erase(down.source);
    if (down.reason != caf::exit_reason::remote_link_unreachable) {  // an actor, not its process
      if (watched.empty()) peers->watched_by_node.erase(node);
      return;
    }
    // The others' downs follow; they find nothing.
    for (const caf::actor_addr& other : watched) peers->node_of_watched.erase(other);
    peers->watched_by_node.erase(node);
    // The process was a master (sent worker requests) or a client (sent master requests);
    // each side drops what it left and ignores a name it does not know.
    self->send(worker, master_gone_atom::value, node,
               errors::Aborted("the master that ran this step went away (", self->home_system().render(down.reason),
                               ")"));
    if (master) self->send(master, client_gone_atom::value, node);
  });
  // The service is useless without its worker; it goes down with it.
  self->link_to(worker);
  // A peer holding this handle could send it an exit message (by mistake, say from a
  // tool that cleans up its own actors). Only a linked local actor's exit (the worker
  // going down) stops the service; the node stops it with exit_reason::kill, which CAF
  // never hands to an exit handler.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    if (msg.source && msg.source.node() == self->home_system().node()) self->quit(msg.reason);
  });
  return {
      [=](rpc_atom, const std::string& method, const std::string& bytes) {
        // Before the promise: making it takes the sender out of the current message.
        const std::string owner = OwnerOfSender(self, *peers);
        auto rp = self->make_response_promise();
        if (ServeWorker(self, worker, master, method, bytes, rp, owner)) return;
        if (master && ServeMaster(self, master, method, bytes, rp, owner)) return;
        Reply(rp, errors::Unimplemented("this node has no method '", method, "'",
                                        master ? "" : " (it runs no master)"), "");
      },
      [=](watch_atom, const std::string& request) {
        auto rp = self->make_response_promise();
        self->request(worker, std::chrono::seconds(5), watch_atom::value, request)
            .then([=](const Status& s) mutable { rp.deliver(s.ok() ? std::string() : s.ToString()); },
                  [=](caf::error& e) mutable { rp.deliver(FromCafError(e, "asking the worker to watch").ToString()); });
      },
      [=](observe_atom) {
        auto rp = self->make_response_promise();
        observe::NodeSnapshot base;
        base.set_wall_time(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
        std::vector<caf::actor> asked = {worker};
        std::vector<std::string> names = {"the worker"};
        if (master) {
          asked.push_back(master);
          names.push_back("the master");
        }
        GatherSnapshot(self, asked, names, std::move(base), std::chrono::seconds(4),
                       [rp](observe::NodeSnapshot all) mutable { rp.deliver(all.SerializeAsString()); });
      },
      [=](inspect_atom) {
        auto rp = self->make_response_promise();
        auto ask_worker = [=](std::string prefix) mutable {
          self->request(worker, std::chrono::seconds(10), inspect_atom::value)
              .then([=](std::string& w) mutable { rp.deliver(prefix + w); },
                    [=](caf::error& e) mutable {
                      rp.deliver(prefix + FromCafError(e, "inspecting the worker").ToString());
                    });
        };
        if (!master) return ask_worker("");
        self->request(master, std::chrono::seconds(10), inspect_atom::value)
            .then([=](std::string& m) mutable { ask_worker(m + "\n"); },
                  [=](caf::error& e) mutable {
                    ask_worker(FromCafError(e, "inspecting the master").ToString() + "\n");
                  });
      },
  };
}

}  // namespace

caf::actor SpawnNodeService(caf::actor_system& system, caf::actor worker, caf::actor master) {
  return system.spawn(NodeService, std::move(worker), std::move(master));
}

}  // namespace tensoract
