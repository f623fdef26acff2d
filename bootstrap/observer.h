// The cluster observer behind tensoract-observe: snapshots of every node of a running
// cluster (messages/observer.proto), found from any one node, a text view of them, and
// the explanation of a stuck step, followed across processes to its root.
//
//   Observer observer(system, start, std::chrono::milliseconds(1500));
//   ClusterView view = observer.Poll();
//   std::cout << RenderView(view) << ExplainStep(view, OldestStep(view));
//
// The node asked first names the cluster's tasks when it runs the master; the others are
// asked in parallel, each with its own deadline: a frozen task costs one deadline, and it
// shows as not answering with its master's word on its heartbeat.
// Thread-safety: one thread uses an Observer; the functions are pure.
#ifndef TENSORACT_BOOTSTRAP_OBSERVER_H_
#define TENSORACT_BOOTSTRAP_OBSERVER_H_

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "base/status.h"
#include "bootstrap/cluster_spec.h"
#include "messages/observer.pb.h"

namespace tensoract {

struct ClusterView {
  std::string origin;  // the node asked first, host:port
  std::vector<observe::NodeSnapshot> nodes;  // those that answered; the origin first
  // Tasks (or the origin's address) that did not answer, and why.
  std::map<std::string, std::string> silent;
  // The master's view of the tasks (from the node that runs it); empty without one.
  std::vector<observe::Task> tasks;
};

class Observer {
 public:
  Observer(caf::actor_system& system, TaskAddress start, std::chrono::milliseconds timeout);
  // One round: the start node, then every other task its master knows.
  ClusterView Poll();
  // Asks every node of `view` to watch tensors in its next steps (actors/tensor_watch.h);
  // the reports come with later Polls (NodeSnapshot::watched and nans). The first error.
  Status Watch(const ClusterView& view, const observe::WatchRequest& request);

 private:
  StatusOr<caf::actor> Connection(const std::string& address);
  StatusOr<observe::NodeSnapshot> Ask(const caf::actor& node, const std::string& address);

  caf::actor_system& system_;
  TaskAddress start_;
  std::chrono::milliseconds timeout_;
  std::map<std::string, caf::actor> connections_;  // by host:port; dropped when a call fails
};

// The view as text: tasks and their health, steps in flight, every node's actors (mailbox,
// what each does), executors' running and pending nodes, rendezvous waits.
std::string RenderView(const ClusterView& view);

// The step in flight that has run longest (-1: none).
int64_t OldestStep(const ClusterView& view);

// Why step `step_id` does not finish, in one sentence followed by its evidence, e.g. "step 17
// waits on /job:worker/replica:0/task:1: its executor has `add` pending on Recv `x:0` from
// /job:ps/replica:0/task:0, which does not answer (no heartbeat for 2.3 s)".
std::string ExplainStep(const ClusterView& view, int64_t step_id);

// The master's last traced step (a client's Run with a trace level): its critical path,
// the chain of nodes (across devices and tasks, a _Recv continuing at its _Send) each of
// which waited for the previous one to end, walked back from the node that ended last;
// and per task its busiest nodes. "" when no step was traced.
std::string ExplainSlowStep(const ClusterView& view);

// A watched tensor's statistics, one line; a NaN search's finding, with its inputs.
std::string RenderStats(const observe::TensorStats& stats);
std::string RenderNan(const observe::NanReport& report);

// "/job:ps/replica:0/task:0" from a device name (or a rendezvous key's source device).
std::string TaskOfDevice(const std::string& device);

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_OBSERVER_H_
