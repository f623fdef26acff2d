// The queue actor: one per queue (FIFO, padding FIFO, random shuffle, priority), the
// runtime's implementation of the kernels' QueueInterface (kernels/queue.h).
//
// The elements and the enqueues and dequeues that wait sit behind a mutex the actor shares
// with the kernels. A waiting operation is a callback, so a blocked enqueue or dequeue
// holds no thread; it is answered, in arrival order, when the queue can serve it, when the
// queue closes, or when its step is cancelled (the kernel registered a cancel message to
// the actor with the step's CancellationManager). An operation that can be served at
// once, with nobody waiting before it, is served by its kernel there and then (a training
// step's dequeue from a filled queue: 2 thread hand-offs fewer per step); one that must
// wait is parked by its kernel, under the same mutex, with no message (a queue runner's
// enqueue into a full queue, every batch); and a kernel whose operation makes room or
// brings elements answers what waited for them itself (the runner's blocked enqueue,
// answered by the training step's dequeue, with no scheduler thread woken for it). The
// actor closes the queue, cancels attempts, fails what waits when the queue is destroyed,
// and reports its state.
//
// Protocol (in-process only: queue ops run on the queue's own task; other tasks reach
// them through Send/Recv like any other node):
//   (queue_close_atom, bool cancel_pending_enqueues, QueueDoneCallback) -> nothing
//   (queue_cancel_atom, int64_t attempt)        -> nothing: fails that attempt with Cancelled
//   (queue_destroy_atom)                        -> fails everything waiting, then quits
//   (inspect_atom)                              -> std::string
//   (observe_atom)                              -> std::string (its part of a node snapshot)
// The actor links to the worker that made it, so it goes down with its task.
#ifndef TENSORACT_ACTORS_QUEUE_ACTOR_H_
#define TENSORACT_ACTORS_QUEUE_ACTOR_H_

#include <mutex>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>

#include "actors/messages.h"
#include "kernels/queue.h"

namespace tensoract {

using queue_close_atom = caf::atom_constant<caf::atom("qclose")>;
using queue_cancel_atom = caf::atom_constant<caf::atom("qcancel")>;
using queue_destroy_atom = caf::atom_constant<caf::atom("qdestroy")>;

struct QueueDoneCallback {
  QueueInterface::DoneCallback done;
};

// The maker a worker installs on its devices (Device::set_queue_maker): each queue is a
// new actor in `system`, linked to `owner` (the worker).
// The queue actors a worker made, for an observer: weak addresses, the live ones on demand.
// Thread-safety: any thread (kernels make queues).
class QueueRegistry {
 public:
  void Add(caf::actor_addr queue);
  std::vector<caf::actor> Live();  // forgets the ones gone

 private:
  std::mutex mu_;
  std::vector<caf::actor_addr> queues_;
};

// `registry` (may be null) learns every queue actor made.
QueueMaker MakeQueueMaker(caf::actor_system& system, caf::actor_addr owner,
                          std::shared_ptr<QueueRegistry> registry = nullptr);

}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::QueueDoneCallback)

#endif  // TENSORACT_ACTORS_QUEUE_ACTOR_H_
