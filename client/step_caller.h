/// @file
/// StepCaller: how a client thread sends RunStep to the master and waits for the reply at a
/// cost that suits a step of a few microseconds.
///
/// A CAF request from a blocking scoped_actor makes an actor per call, puts its timeout in
/// CAF's clock (a thread woken per call) and sleeps on a condition variable that the reply
/// must wake: a 3-node step took 53-87 us, most of it thread wake-ups. Here the reply goes
/// into the caller's ReplySlot: a master in this process fills it itself (the request
/// carries a callback, RunStepRequest::reply_to); a remote master's proxy is asked by one
/// relay actor, made once per server, that fills it (a request without a clock timer: the
/// runtime enforces the step's deadline itself). A local master's step runs on the calling
/// thread as far as it can: the master, worker and executor actors are resumed there, by
/// CAF's rules, while the caller waits (InlineUnit in step_caller.cc), so a small step
/// costs no thread hand-off at all, and a step whose kernels went to the device's pool
/// comes back to the caller's thread when they are done (actors/caller_unit.h) instead of
/// waking a scheduler thread. Such a caller sleeps as soon as nothing is left for it to
/// run; a caller whose step runs elsewhere (a remote master, run_on_caller_thread false)
/// spins on the slot for a short while before it sleeps on it, so a reply that comes
/// within the spin costs no wake-up (unless told not to: a call that will wait anyway
/// should not take a core polling).
/// The caller's own wait still ends at its deadline, with DeadlineExceeded.
///
/// Thread-safety: Call may be made from any number of threads at once.
#ifndef TENSORACT_CLIENT_STEP_CALLER_H_
#define TENSORACT_CLIENT_STEP_CALLER_H_

#include <cstdint>
#include <thread>
#include <unordered_map>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/messages.h"
#include "base/status.h"

namespace tensoract {

class InlineUnit;

/// Sends RunStep requests to a master and waits for their replies cheaply (see
/// step_caller.h); each LocalServer has one, LocalServer::step_caller(), for Session::Run.
class StepCaller {
 public:
  /// A caller for masters in `system` (which must outlive it): spawns its relay actor there.
  explicit StepCaller(caf::actor_system& system);
  ~StepCaller();  ///< stops the relay; calls still waiting end with their deadline
  StepCaller(const StepCaller&) = delete;
  StepCaller& operator=(const StepCaller&) = delete;

  /// Sends `request` to `master` and waits up to `wait_ms` for its reply, which goes to
  /// `response`; a failure of the actor system (the master gone, the wait's deadline) is
  /// the Status, naming RunStep. `master_is_local`: the master runs in this process, and
  /// fills the reply slot itself (RunStepRequest::reply_to), one actor hop fewer than the
  /// relay's request.
  /// `spin`: poll for a reply from other threads before sleeping (RunOptions::spin_for_reply).
  /// `on_this_thread`: a local master's step runs on the calling thread as far as it can
  /// (RunOptions::run_on_caller_thread).
  Status Call(const caf::actor& master, RunStepRequest request, int64_t wait_ms, RunStepResponse* response,
              bool master_is_local = false, bool spin = true, bool on_this_thread = true);

 private:
  // This thread's execution unit for `system_`'s actors (made once per thread).
  InlineUnit& UnitOfThisThread();

  caf::actor_system& system_;
  const uint64_t id_;  // tells this caller's units from those of one that had its address
  caf::actor relay_;
  std::unordered_map<std::thread::id, InlineUnit*> units_;  // under step_caller.cc's units_mu
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_STEP_CALLER_H_
