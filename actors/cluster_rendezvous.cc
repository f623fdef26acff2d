#include "actors/cluster_rendezvous.h"

#include "actors/data_plane/client.h"
#include "actors/data_plane/wire.h"

namespace tensoract {

std::string TaskOfDevice(const std::string& device) {
  size_t at = device.find("/device:");
  return at == std::string::npos ? device : device.substr(0, at);
}

ClusterRendezvous::ClusterRendezvous(caf::actor local, std::string task, std::shared_ptr<DataPlaneClient> client,
                                     int64_t recv_timeout_ms)
    : local_(std::move(local)), task_(std::move(task)), client_(std::move(client)), recv_timeout_ms_(recv_timeout_ms) {}

void ClusterRendezvous::Send(int64_t step_id, const std::string& key, const Tensor& value, bool is_dead) {
  local_.Send(step_id, key, value, is_dead);
}

void ClusterRendezvous::RecvAsync(int64_t step_id, const std::string& key, Allocator* allocator, DoneCallback done) {
  // The key's first field is the send device.
  FetchFrom(TaskOfDevice(key.substr(0, key.find(';'))), step_id, key, data_plane::SteadyNowMs() + recv_timeout_ms_,
            allocator, std::move(done));
}

void ClusterRendezvous::FetchFrom(const std::string& task, int64_t step_id, const std::string& key,
                                  int64_t deadline_ms, Allocator* allocator, DoneCallback done) {
  if (client_ == nullptr || task == task_) return local_.RecvAsync(step_id, key, std::move(done));
  std::string peer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = peers_.find(task);
    if (it != peers_.end()) peer = it->second;
  }
  if (peer.empty()) {
    return done(errors::Unavailable("task ", task_, " cannot fetch ", key, ": the master has not said where task ",
                                    task, "'s data plane is"),
                Tensor(), false);
  }
  // A failure names the task it fetched from: the data plane's own words name only an
  // address and a key.
  client_->RecvTensorAsync(peer, step_id, key, /*lossy16=*/false, deadline_ms,
                           allocator != nullptr ? allocator : cpu_allocator(),
                           [task, done = std::move(done)](const Status& s, const Tensor& value, bool is_dead) {
                             if (s.ok()) return done(s, value, is_dead);
                             done(s.WithContext(StrCat("fetching from task ", task)), value, is_dead);
                           });
}

void ClusterRendezvous::SetPeers(std::map<std::string, std::string> data_plane_by_task) {
  std::lock_guard<std::mutex> lock(mu_);
  // Merged, not replaced: every node's master tells every worker what it knows, and one
  // that has heard from only some tasks yet must not make this worker forget the others.
  for (auto& [task, address] : data_plane_by_task) peers_[task] = std::move(address);
}

}  // namespace tensoract
