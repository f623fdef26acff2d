// The queue actor: one per queue (FIFO, padding FIFO, random shuffle, priority), the
// runtime's implementation of the kernels' QueueInterface (kernels/queue.h).
//
// The actor takes in the enqueues that must wait for room and the dequeues that must wait
// for elements. A waiting operation is a callback, so a blocked enqueue or dequeue holds
// no thread; it is answered, in arrival order, when the queue can serve it, when the queue
// closes, or when its step is cancelled (the kernel registered a cancel message with the
// step's CancellationManager). The elements and the waiting operations sit behind a mutex
// the actor shares with the kernels: an operation that can be served at once, with nobody
// waiting before it, is served by its kernel there and then, without a round trip through
// the actor (a training step's dequeue from a filled queue: 2 thread hand-offs fewer per
// step), and a kernel whose operation makes room or brings elements answers what waited
// for them itself (a queue runner's blocked enqueue, answered by the training step's
// dequeue, with no scheduler thread woken for it). Closing and every wait go through the
// actor.
//
// Protocol (in-process only: queue ops run on the queue's own task; other tasks reach
// them through Send/Recv like any other node):
//   (queue_enqueue_atom, QueueEnqueueRequest)   -> nothing (the request's callback runs)
//   (queue_dequeue_atom, QueueDequeueRequest)   -> nothing (the request's callback runs)
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

using queue_enqueue_atom = caf::atom_constant<caf::atom("qenqueue")>;
using queue_dequeue_atom = caf::atom_constant<caf::atom("qdequeue")>;
using queue_close_atom = caf::atom_constant<caf::atom("qclose")>;
using queue_cancel_atom = caf::atom_constant<caf::atom("qcancel")>;
using queue_destroy_atom = caf::atom_constant<caf::atom("qdestroy")>;

struct QueueEnqueueRequest {
  int64_t attempt = 0;
  std::vector<QueueElement> elements;
  QueueInterface::DoneCallback done;
};

struct QueueDequeueRequest {
  int64_t attempt = 0;
  int64_t num = -1;  // < 0: one element, unbatched
  bool allow_small_batch = false;
  QueueInterface::DequeueCallback done;
};

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

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::QueueEnqueueRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::QueueDequeueRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::QueueDoneCallback)

#endif  // TENSORACT_ACTORS_QUEUE_ACTOR_H_
