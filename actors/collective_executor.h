// The collective executor: how the members of a collective group (kernels/collective.h)
// find each other and move their data, as actors.
//
// Groups form at a leader (actors/collective_groups.h). The first op of a group on a
// member device asks the cluster's collective leader (one task, the chief's or worker 0's as in TensorFlow; a process alone
// is its own) to join group_key with group_size members. The leader answers every member
// once group_size devices have asked, with the members in rank order (job, replica, task,
// device type and index, numerically) and a fresh incarnation number. A join travels as a
// data-plane request the leader's data plane hands to its leader actor (keys
// "collective-join;..."), so only peers that proved they belong to the cluster reach it.
//
// Each (task, group) has one group actor. It runs its task's members' ops: the k-th run of
// instance_key on a device meets the k-th run on every other member, as the same graph runs
// step after step. Data moves through the rendezvous and the data plane like _Send/_Recv: a
// member leaves a piece under a key naming sender and receiver, in a step id made from the
// group's incarnation, the instance and the run (negative, never a master's), and the
// receiver fetches it (a pull; every fetch is asked for when the op starts, so pieces
// stream as they are produced).
//   - All-reduce, large tensors: a ring. The buffer is cut into group_size chunks and each
//     chunk into pieces of at most piece_bytes; reduce-scatter then all-gather, so each
//     member sends and receives 2(N-1)/N of the buffer, pieces pipelined along the ring.
//     Each chunk's final value is computed once (by one member) and copied round.
//   - All-reduce, tensors up to small_tensor_bytes: recursive doubling, log2(N) exchanges
//     of the whole tensor (members beyond the largest power of two fold into a partner
//     first and get the result back), instead of the ring's 2(N-1) steps.
//   - Gather: the ring's all-gather of every member's block.
//   - Broadcast: a ring from the sender; every member fetches from its left neighbour and
//     passes on, so receivers need not know who sends (the sender takes back one copy).
// Every member computes merge(a, b) on the same pairs, and merges commute bit-exactly, so
// all members get identical bits.
//
// Faults: a fetch that fails (a member killed: its connection breaks; frozen: the op's
// deadline; its own abort) fails every op of the group on this task with an error naming
// the member, and this task's members leave the group's formation: every fetch of it from
// here, waiting or asked later, fails with the same cause (the rendezvous remembers the
// formation: abort_matching_atom), so the
// other members leave it in turn, even one that had finished its op and only comes back
// for the next. The group's next op joins again, and the leader forms it anew once every
// member (a restarted one included) has asked. PeerDown (the master found a task unavailable or restarted, by its
// heartbeats) does the same for groups with a member there; a cancelled step (Cancel) too.
// Nothing waits beyond the op's deadline (timeout_seconds, else default_timeout_ms).
//
// Thread-safety: CollectiveService's methods may be called from any thread.
#ifndef TENSORACT_ACTORS_COLLECTIVE_EXECUTOR_H_
#define TENSORACT_ACTORS_COLLECTIVE_EXECUTOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/cluster_rendezvous.h"
#include "actors/collective_groups.h"
#include "kernels/collective.h"

namespace tensoract {

struct CollectiveOptions {
  std::string task;                 // this worker's task
  std::string leader_task;          // where groups form; "" or `task`: here
  uint64_t incarnation = 0;         // this worker's: the leader lists each member's
  int64_t default_timeout_ms = 10 * 60 * 1000;
  int64_t piece_bytes = 4 << 20;            // the ring moves pieces of at most this
  int64_t small_tensor_bytes = 256 << 10;   // all-reduces up to this use recursive doubling
};

class CollectiveService : public CollectiveExecutor {
 public:
  CollectiveService(caf::actor_system& system, CollectiveOptions options, std::shared_ptr<ClusterRendezvous> rendezvous,
                    caf::actor leader);
  ~CollectiveService() override;  // stops every group actor

  void Run(const CollectiveParams& params, const Tensor& input, Done done) override;
  void Cancel(const CollectiveParams& params, const Status& why) override;
  // `task`'s worker `incarnation` (0: whichever) is gone or restarted: every group with that
  // member fails its ops with `why`. A group formed with the task's new worker carries on.
  void PeerDown(const std::string& task, uint64_t incarnation, const Status& why);
  // The group actors, for inspection (each answers inspect_atom).
  std::vector<caf::actor> actors();

 private:
  caf::actor GroupActor(int group_key);

  caf::actor_system& system_;
  const CollectiveOptions options_;
  std::shared_ptr<ClusterRendezvous> rendezvous_;
  caf::actor leader_;
  std::mutex mu_;
  std::map<int, caf::actor> groups_;  // guarded by mu_
};

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_COLLECTIVE_EXECUTOR_H_
