// Gathering a node's snapshot for an observer (messages/observer.proto): each actor answers
// observe_atom with its own part, from inside (its mailbox length is only readable there);
// the asker merges the parts. Used by the worker (its devices, rendezvous and executors)
// and the node service (its master and worker).
#ifndef TENSORACT_ACTORS_OBSERVE_H_
#define TENSORACT_ACTORS_OBSERVE_H_

#include <chrono>
#include <functional>
#include <vector>

#include <caf/event_based_actor.hpp>

#include "messages/observer.pb.h"

namespace tensoract {

// Asks every actor of `actors` for its part and calls `done`, in `self`'s context, with
// `base` merged with every part in the order of `actors`. One that does not answer within
// `timeout` (or fails) adds a note naming it instead: an observer must see a stuck actor
// as stuck, not wait for it.
void GatherSnapshot(caf::event_based_actor* self, const std::vector<caf::actor>& actors,
                    const std::vector<std::string>& names, observe::NodeSnapshot base,
                    std::chrono::milliseconds timeout, std::function<void(observe::NodeSnapshot)> done);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_OBSERVE_H_
