/// @file
/// Leaves an application thread's CAF state as the thread had it before a client call.
///
/// CAF 0.17 keeps, per thread, a reference to the logger of the last actor system that
/// thread created an actor system, spawned or made a scoped_actor in, and ~actor_system
/// waits until every such reference is gone. A Session (or SavedModelBundle) made or called
/// on one thread and destroyed on another would wait there forever for the first thread's
/// reference. Client calls that touch an actor system from the caller's thread hold one of
/// these for their duration.
#ifndef TENSORACT_CLIENT_CAF_THREAD_STATE_H_
#define TENSORACT_CLIENT_CAF_THREAD_STATE_H_

#include <caf/logger.hpp>

namespace tensoract {

/// A scope guard that leaves no CAF logger reference on the calling thread unless the thread
/// had one when the guard was made (see caf_thread_state.h). Neither copyable nor movable.
class KeepCafThreadState {
 public:
  /// Notes whether this thread holds a reference to an actor system's logger now.
  KeepCafThreadState() : had_logger_(caf::logger::current_logger() != nullptr) {}
  /// Drops the reference the thread took meanwhile (caf::logger::set_current_actor_system
  /// with null), unless it held one when the guard was made.
  ~KeepCafThreadState() {
    if (!had_logger_) caf::logger::set_current_actor_system(nullptr);
  }
  KeepCafThreadState(const KeepCafThreadState&) = delete;
  KeepCafThreadState& operator=(const KeepCafThreadState&) = delete;

 private:
  bool had_logger_;
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_CAF_THREAD_STATE_H_
