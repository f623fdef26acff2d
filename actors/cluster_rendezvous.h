// ClusterRendezvous: a worker's rendezvous as its kernels see it, across tasks.
//
// A _Recv whose key names a send device on this worker's own task waits in the local
// rendezvous actor (actors/rendezvous.h). One whose send device is on another task is
// fetched from that task's data plane (actors/data_plane/client.h), which answers from its
// own rendezvous actor once the _Send there has run. Sends are always local: a value
// waits where it was produced until the task that needs it asks (pull, as TensorFlow's
// RecvTensor).
//
// Where the other tasks' data planes are comes from the masters (SetPeers: each adds what it
// knows, a task's new address replacing its old one); a key naming
// a task missing from that directory fails the Recv with Unavailable naming the task.
// A fetch waits at most `recv_timeout_ms`; a step aborted meanwhile is finished by its
// executors without waiting for it.
// Thread-safety: every method may be called from any thread.
#ifndef TENSORACT_ACTORS_CLUSTER_RENDEZVOUS_H_
#define TENSORACT_ACTORS_CLUSTER_RENDEZVOUS_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "actors/rendezvous.h"

namespace tensoract {

class DataPlaneClient;

class ClusterRendezvous : public Rendezvous {
 public:
  // `client` may be null: then every key is local (a worker outside a cluster).
  ClusterRendezvous(caf::actor local, std::string task, std::shared_ptr<DataPlaneClient> client,
                    int64_t recv_timeout_ms);

  void Send(int64_t step_id, const std::string& key, const Tensor& value, bool is_dead) override;
  using Rendezvous::RecvAsync;
  void RecvAsync(int64_t step_id, const std::string& key, Allocator* allocator, DoneCallback done) override;

  void SetPeers(std::map<std::string, std::string> data_plane_by_task);

  // Fetches `key` of step `step_id` from `task`'s rendezvous, whatever the key says: this
  // task's is the local one (which waits without a deadline: its step's abort ends the
  // wait), another's through its data plane, waiting at most until `deadline_ms`
  // (data_plane::SteadyNowMs() time). The collective executor's transfers use this, and its
  // joins (keys the other task's data plane hands to its collective leader, not its
  // rendezvous).
  void FetchFrom(const std::string& task, int64_t step_id, const std::string& key, int64_t deadline_ms,
                 Allocator* allocator, DoneCallback done);
  const std::string& task() const { return task_; }
  const ActorRendezvous& local() const { return local_; }

 private:
  ActorRendezvous local_;
  const std::string task_;
  std::shared_ptr<DataPlaneClient> client_;
  const int64_t recv_timeout_ms_;
  std::mutex mu_;
  std::map<std::string, std::string> peers_;  // guarded by mu_
};

// The task part of a device name ("/job:ps/replica:0/task:0/device:CPU:0" ->
// "/job:ps/replica:0/task:0"); the name itself when it has no device part.
std::string TaskOfDevice(const std::string& device);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_CLUSTER_RENDEZVOUS_H_
