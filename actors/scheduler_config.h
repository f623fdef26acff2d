// The actor scheduler settings every tensoract process uses (LocalServer's own actor
// system, tensoract-node); a program that spawns its own actor system for a worker should
// call it too.
#ifndef TENSORACT_ACTORS_SCHEDULER_CONFIG_H_
#define TENSORACT_ACTORS_SCHEDULER_CONFIG_H_

namespace caf {
class actor_system_config;
}  // namespace caf

namespace tensoract {

// `requested` threads if positive, else one per core (2 where the core count is unknown).
int ThreadsOrCores(int requested);

// `threads` scheduler threads (CAF's default is 4: more threads than cores only adds
// wake-ups), and idle threads that never sleep on a timer while a message may be waiting.
void ConfigureScheduler(caf::actor_system_config& config, int threads);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_SCHEDULER_CONFIG_H_
