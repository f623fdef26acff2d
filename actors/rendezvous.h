// The rendezvous actor: one per worker, the mailbox where _Send leaves tensors and _Recv
// collects them, keyed by (step id, rendezvous key).
//
// A Send never waits: its value is kept until the matching Recv comes, or handed at once
// to a Recv already waiting. A Recv is answered when its value arrives. Aborting a step
// fails every Recv of that step still waiting (and any later one) with the abort's
// status; cleaning a step up forgets all of its entries, so nothing accumulates across
// steps. A value sent to a step already cleaned up is dropped.
//
// Protocol:
//   (rdv_send_atom, int64_t step, std::string key, RendezvousValue)   -> nothing
//   (rdv_recv_atom, int64_t step, std::string key, RecvCallback)      -> nothing (the callback runs)
//   (rdv_recv_atom, int64_t step, std::string key)                    -> RendezvousValue (a response promise)
//   (abort_atom, int64_t step, Status)                                -> nothing
//   (cleanup_step_atom, int64_t step)                                 -> nothing
//   (abort_matching_atom, std::string part, Status)                   -> nothing: in every
//                     step, each Recv waiting for a key containing `part` fails with the
//                     status, and each value sent under such a key is dropped (a collective
//                     group's formation that ended: actors/collective_executor.h); the
//                     part is remembered, so such a Recv or Send arriving later is
//                     answered with the status or dropped too
//   (inspect_atom) -> std::string: for each step, the keys waiting for a Send and those
//                     sent but not yet received.
//
// ActorRendezvous wraps the actor as the kernels' Rendezvous interface.
#ifndef TENSORACT_ACTORS_RENDEZVOUS_H_
#define TENSORACT_ACTORS_RENDEZVOUS_H_

#include <cstdint>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>

#include "actors/messages.h"
#include "kernels/rendezvous.h"

namespace tensoract {

using rdv_send_atom = caf::atom_constant<caf::atom("rdvsend")>;
using rdv_recv_atom = caf::atom_constant<caf::atom("rdvrecv")>;
using cleanup_step_atom = caf::atom_constant<caf::atom("cleanstep")>;
using abort_matching_atom = caf::atom_constant<caf::atom("abortmatch")>;

struct RendezvousValue {
  Status status;  // a Recv's answer: the step's abort status, or OK
  Tensor value;
  bool is_dead = false;
};

// A local receiver: runs on the rendezvous actor's thread, so it must be short.
struct RecvCallback {
  Rendezvous::DoneCallback done;
};

caf::actor SpawnRendezvous(caf::actor_system& system, std::string owner);

class ActorRendezvous : public Rendezvous {
 public:
  explicit ActorRendezvous(caf::actor actor) : actor_(std::move(actor)) {}
  void Send(int64_t step_id, const std::string& key, const Tensor& value, bool is_dead) override;
  using Rendezvous::RecvAsync;
  // Values are this process's: `allocator` is not needed.
  void RecvAsync(int64_t step_id, const std::string& key, Allocator* allocator, DoneCallback done) override;
  const caf::actor& actor() const { return actor_; }

 private:
  caf::actor actor_;
};

}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RendezvousValue)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::RecvCallback)

#endif  // TENSORACT_ACTORS_RENDEZVOUS_H_
