// What a master knows of its cluster's tasks, and how it keeps that current.
//
// Task 0 is the master's own (its local worker); the others are remote, each reached through
// a RemoteWorker. Every heartbeat_interval_ms the membership asks each remote task for a
// heartbeat (its name, incarnation, devices and data-plane address). A task that does not
// answer within heartbeat_timeout_ms (frozen) or cannot be reached (killed) is unhealthy;
// one that answers with a new incarnation has restarted. The membership says so through its
// Events (the master fails the steps using the task, and drops a restarted task's
// registrations) and tells every worker where the others' data planes are when one moves.
//
// It lives in the master actor's state and acts through that actor (`self`): its requests'
// replies run in the master's context, like everything else there. Heartbeats start with
// StartHeartbeats (the master's first session: an idle master bothers nobody); the master
// hands every heartbeat_tick_atom it receives to Tick, and every discovery_retry_atom to
// Retry.
#ifndef TENSORACT_ACTORS_CLUSTER_MEMBERSHIP_H_
#define TENSORACT_ACTORS_CLUSTER_MEMBERSHIP_H_

#include <cstdint>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/master.h"
#include "actors/messages.h"

namespace tensoract {

using heartbeat_tick_atom = caf::atom_constant<caf::atom("hbtick")>;
// (discovery_retry_atom, id): the time for a discovery heartbeat's retry has come.
using discovery_retry_atom = caf::atom_constant<caf::atom("discretry")>;
// (heartbeat_deadline_atom): time to fail the heartbeats past their deadlines.
using heartbeat_deadline_atom = caf::atom_constant<caf::atom("hbdue")>;

// What the master knows of one task of the cluster.
struct TaskState {
  std::string name;
  caf::actor worker;  // the local worker, or a RemoteWorker
  bool healthy = false;
  bool heartbeat_in_flight = false;
  uint64_t heartbeat_id = 0;                   // the one in flight (a late answer's is older)
  int64_t heartbeat_timeout_ms = 0;            // its timeout, for the error
  std::chrono::steady_clock::time_point heartbeat_due;  // when it times out
  std::function<void()> heartbeat_then;        // runs when it is answered or due
  uint64_t incarnation = 0;  // 0: never heard from
  std::string data_plane;
  std::vector<tensorflow::DeviceAttributes> devices;
  Status last_error;
  std::string address;  // host:port of its node ("" for the master's own)
  std::chrono::steady_clock::time_point last_heartbeat;  // its last answer (epoch: none yet)
};

class ClusterMembership {
 public:
  struct Events {
    // `task` stopped answering (or answers as another task): its steps fail with `why`.
    std::function<void(int task, const Status& why)> unavailable;
    // `task` answered with a new incarnation: it lost its graphs and its steps.
    std::function<void(int task)> restarted;
  };

  // Spawns a RemoteWorker per MasterOptions::remote_tasks, linked to `self`.
  ClusterMembership(caf::event_based_actor* self, caf::actor local_worker, const MasterOptions& options,
                    Events events);

  const std::vector<TaskState>& tasks() const { return tasks_; }
  const TaskState& task(int t) const { return tasks_[t]; }
  bool cluster() const { return tasks_.size() > 1; }

  // Starts the periodic heartbeats (once; later calls do nothing).
  void StartHeartbeats();
  // A heartbeat_tick_atom arrived: asks every remote task not already asked, and schedules
  // the next tick.
  void Tick();
  // A discovery_retry_atom arrived: asks again (see WithCluster).
  void Retry(uint64_t id);
  // A heartbeat_deadline_atom arrived: fails every heartbeat still out past its deadline,
  // and schedules the check of the next one due.
  void CheckDeadlines();
  // Asks `task` for a heartbeat now unless one is out (it seems to have restarted).
  void CheckNow(int task);
  // Calls `next` once every task is known and healthy (asking those that are not), or with
  // Unavailable naming the tasks that are not.
  void WithCluster(std::function<void(const Status&)> next);

  // The membership's part of the master's inspect text (empty for a lone master).
  std::string Inspect() const;
  // "", or a line on the first steps waiting to learn every task's devices.
  std::string InspectWaiting() const;

 private:
  // Asks `task` for a heartbeat; `then` runs once it is answered, fails or times out.
  // The timeout is no CAF timer per request: one heartbeat_deadline_atom at the earliest
  // deadline checks them all (a round of 1,000 heartbeats: one message).
  void AskHeartbeat(int task, int64_t timeout_ms, std::function<void()> then);
  void EndHeartbeat(int task);  // no longer in flight; runs its `then`
  // Makes sure a deadline check comes by `due`.
  void CheckDeadlinesBy(std::chrono::steady_clock::time_point due);
  // Discovers `task` until it answers, its heartbeat times out, or `deadline` passes; then
  // calls `then`.
  void Discover(int task, std::chrono::steady_clock::time_point deadline, int attempt, std::function<void()> then);
  void OnHeartbeat(int task, WorkerInfo info);
  void MarkUnhealthy(int task, const Status& why);
  // Tells every worker where the tasks' data planes are: the whole directory, or (`moved`
  // >= 0) only that task's new address, while the moved task itself gets the whole.
  void SendPeers(int moved = -1);

  caf::event_based_actor* const self_;
  const MasterOptions options_;
  const Events events_;
  std::vector<TaskState> tasks_;  // [0]: the master's own task
  // Callers waiting for every task to be known and healthy.
  std::vector<std::function<void(const Status&)>> waiting_for_cluster_;
  int discovering_ = 0;  // heartbeats of the discovery round still out
  // Discovery retries waiting for their discovery_retry_atom, by id.
  std::map<uint64_t, std::function<void()>> retries_;
  uint64_t next_retry_ = 0;
  uint64_t next_heartbeat_ = 1;
  // When the next deadline check is scheduled (max: none).
  std::chrono::steady_clock::time_point next_check_ = std::chrono::steady_clock::time_point::max();
  bool heartbeats_started_ = false;
};

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_CLUSTER_MEMBERSHIP_H_
