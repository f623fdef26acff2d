// CallerUnit: a thread outside CAF that serves the actors of its own call while it waits.
//
// A client's thread that sends a step to a master in its process waits for the reply; the
// client's InlineUnit (client/step_caller.cc) makes that thread a CAF execution unit, so
// the master, worker and executor of the step are resumed there instead of waking
// scheduler threads. A message to the step's executor from another thread (a kernel the
// executor handed to the device's pool is done, an asynchronous kernel is answered) would
// otherwise make the executor ready through CAF's scheduler: a scheduler thread is woken
// and the rest of the step runs there while the caller's thread sleeps. Sent through the
// caller's unit instead (SendVia), the executor goes back to the waiting caller's thread;
// once the call has returned, the unit hands it to the scheduler as anon_send would.
//
// The executor learns its unit from its context() when it launches a kernel (CallerUnitOf);
// units are never freed, so the pointer stays valid however late the kernel finishes.
#ifndef TENSORACT_ACTORS_CALLER_UNIT_H_
#define TENSORACT_ACTORS_CALLER_UNIT_H_

#include <utility>

#include <caf/actor.hpp>
#include <caf/execution_unit.hpp>
#include <caf/local_actor.hpp>
#include <caf/mailbox_element.hpp>

namespace tensoract {

class CallerUnit : public caf::execution_unit {
 public:
  using caf::execution_unit::execution_unit;
};

// The caller's unit `self` is running on, or null (a scheduler thread).
inline CallerUnit* CallerUnitOf(caf::local_actor* self) { return dynamic_cast<CallerUnit*>(self->context()); }

// anon_send, except that an actor this makes ready is scheduled through `home` (which may
// be null: then as anon_send).
template <class... Ts>
void SendVia(CallerUnit* home, const caf::actor& to, Ts&&... xs) {
  if (!to) return;
  caf::actor_cast<caf::abstract_actor*>(to)->enqueue(
      caf::make_mailbox_element(nullptr, caf::make_message_id(), {}, std::forward<Ts>(xs)...), home);
}

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_CALLER_UNIT_H_
