#include "actors/scheduler_config.h"

#include <chrono>
#include <cstddef>
#include <thread>

#include <caf/actor_system_config.hpp>

namespace tensoract {

int ThreadsOrCores(int requested) {
  if (requested > 0) return requested;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 2 : static_cast<int>(cores);
}

void ConfigureScheduler(caf::actor_system_config& config, int threads) {
  config.set("scheduler.max-threads", static_cast<size_t>(threads < 1 ? 1 : threads));
  // CAF 0.17's idle worker polls its queue 100 times, then 500 more with a 50 us sleep
  // between polls, then waits on a condition variable that a message sent to it from
  // outside the scheduler signals. A message arriving in the second phase (the client's
  // next Run, a kernel finished on a device thread) waited for the sleep to end, 50 us
  // plus the kernel's timer slack: Session::Run of a 3-node graph took 131-142 us, of
  // which ~100 were such waits. Polling without the sleeps, then waiting on the condition
  // variable: 24-52 us (tests/bench/step_overhead). The condition variable's timeout is
  // also when an idle worker looks for work queued on a busy one: 1 ms, not 10. With one
  // worker there is no other to steal from, and the timeout only wakes it for nothing: a
  // thousand times a second in each idle process (32 idle lab nodes took a core of the
  // machine's two), so it sleeps until a message comes.
  config.set("work-stealing.moderate-sleep-duration", caf::timespan{0});
  const auto steal_wait = threads > 1 ? std::chrono::milliseconds(1) : std::chrono::milliseconds(1000);
  config.set("work-stealing.relaxed-sleep-duration", caf::timespan{steal_wait});
}

}  // namespace tensoract
