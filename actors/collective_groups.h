// How a collective group forms (actors/collective_executor.h runs its ops): the leader
// that forms groups from joins, the join request and answer as they travel over the data
// plane, and the rank order of a group's devices.
//
// A member joins with a data-plane request whose key is CollectiveJoinKey (group, size,
// its worker's incarnation, its device); the leader's data plane hands such keys to the
// leader actor (ServeCollectiveJoin), which answers every member once group_size devices
// have asked: a DT_UINT8 tensor "<formation incarnation>\n<device> <its worker's
// incarnation>\n..." in rank order (ParseCollectiveFormation reads it). A task that is its
// own leader hands its members' joins to ServeCollectiveJoin directly.
#ifndef TENSORACT_ACTORS_COLLECTIVE_GROUPS_H_
#define TENSORACT_ACTORS_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "base/status.h"
#include "kernels/tensor.h"

namespace tensoract {

// The leader's actor: forms groups from joins. Every worker has one (a task may become the
// leader); only the leader's is asked.
caf::actor SpawnCollectiveLeader(caf::actor_system& system, std::string task);
// True for the data-plane keys the leader answers.
bool IsCollectiveJoinKey(const std::string& key);
// Hands a data-plane request for a join key to `leader`; `reply` gets the group's members.
void ServeCollectiveJoin(const caf::actor& leader, const std::string& key,
                         std::function<void(const Status&, const Tensor&, bool)> reply);

// The join key of `device` (its worker's `incarnation`) for a group of `group_size`.
std::string CollectiveJoinKey(int group_key, int group_size, uint64_t incarnation, const std::string& device);

// A formed group, as the leader's answer says.
struct CollectiveFormation {
  uint64_t incarnation = 0;
  std::vector<std::string> members;             // devices, in rank order
  std::vector<uint64_t> member_incarnations;    // each member's worker's, when it joined
};
// DataLoss when the answer is malformed.
StatusOr<CollectiveFormation> ParseCollectiveFormation(const Tensor& answer);

// "collective/<group>/<formation incarnation>/": the part of every transfer key of that
// formation (rendezvous tensor names), by which a left formation is recognised.
std::string CollectiveFormationPrefix(int group_key, uint64_t incarnation);
// The rendezvous' answer to a fetch of a formation this task's members have left.
Status LeftFormation(int group_key, const Status& why);

// Rank order of a group's devices: by job, replica, task, device type and index (numbers
// compared as numbers).
bool DeviceRankLess(const std::string& a, const std::string& b);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_COLLECTIVE_GROUPS_H_
