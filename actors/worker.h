// The worker actor: one per process (task). Owns the devices, the registered graphs and
// the steps running on them.
//
// A worker has one or more CPU devices (each with its share of the threads), each behind
// its device actor, and one rendezvous actor where its devices' _Send and _Recv meet.
//
// RegisterGraph splits the graph by the device each node names and turns each part into
// an ExecutorPlan (kernels made once), answering with one handle for all of them.
// RunGraph spawns one executor per part for the step and answers once all have finished,
// with the fetches of all and a DeviceStepStats per device. The first error ends the
// step: the other executors are aborted, every Recv still waiting fails, and the reply
// carries that first error (the cause, not the aborts it caused). Either way the step's
// rendezvous entries are dropped when it ends. DeregisterGraph forgets the plans (steps
// still running keep theirs).
//
// Protocol: (register_graph_atom, RegisterGraphRequest) -> RegisterGraphResponse
//           (run_graph_atom, RunGraphRequest) -> RunGraphResponse
//           (deregister_graph_atom, std::string handle) -> Status
//           (reset_atom, std::vector<std::string> containers) -> Status
//           (inspect_atom) -> std::string (with its rendezvous's and devices' state)
//   In a cluster (the master drives several tasks):
//           (heartbeat_atom) -> WorkerInfo (task, incarnation, data-plane address, devices)
//           (set_peers_atom, PeerDirectory) -> Status (where the other tasks' data planes are)
//           (peer_down_atom, std::string task, uint64_t incarnation, Status) -> nothing: the
//               master found that worker of `task` unavailable or restarted; collective
//               groups with it as a member fail
//           (abort_step_atom, int64_t step, Status) -> nothing: the step's executors stop,
//               its Recvs fail with that status
//           (cleanup_graph_atom, int64_t step) -> nothing: drops the step's rendezvous
//               entries (RunGraph with master_cleans_up keeps them until this comes)
//
// With serve_data_plane the worker listens for other tasks' tensor fetches
// (actors/data_plane/server.h) and fetches theirs (actors/cluster_rendezvous.h).
#ifndef TENSORACT_ACTORS_WORKER_H_
#define TENSORACT_ACTORS_WORKER_H_

#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/cluster_credentials.h"
#include "kernels/device.h"

namespace tensoract {

struct WorkerOptions {
  std::string task_name = "/job:localhost/replica:0/task:0";
  int cpu_threads = 1;      // threads of the CPU devices' pools, shared out among them
  int num_cpu_devices = 1;  // /device:CPU:0 ... /device:CPU:<n-1>
  // /device:GPU:0 ... for the visible GPUs, in builds with CUDA (none without a GPU).
  GpuDeviceOptions gpu;
  // Devices made by the caller (a LocalServer shares them with its eager context); empty:
  // the worker makes its own from the options above (actors/local_devices.h).
  std::vector<std::shared_ptr<Device>> devices;
  int64_t default_step_timeout_ms = 10 * 60 * 1000;
  // Serve this task's tensors to other tasks, on data_plane_host (port: any free one).
  bool serve_data_plane = false;
  std::string data_plane_host = "127.0.0.1";
  // The host other tasks are told to fetch from (heartbeats); empty: data_plane_host.
  std::string data_plane_advertise;
  // What both ends of every data-plane connection prove: the cluster token, or
  // certificates from the cluster CA (actors/cluster_credentials.h); required with
  // serve_data_plane.
  ClusterCredentials credentials;
  // The task whose collective leader forms every collective group (TensorFlow's
  // collective_group_leader: the chief, else worker 0); "": this one (a process alone).
  std::string collective_leader;
};

caf::actor SpawnWorker(caf::actor_system& system, const WorkerOptions& options);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_WORKER_H_
