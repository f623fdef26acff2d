#include "actors/queue_actor.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <random>

#include <caf/all.hpp>

#include "messages/observer.pb.h"

namespace tensoract {
namespace {

// The elements, in the order the queue's kind gives them out. A shuffling queue whose
// shapes are all fully defined keeps them in a RowSlab; otherwise they are QueueElements.
class Buffer {
 public:
  void Init(const QueueSpec& spec) {
    kind_ = spec.kind;
    if (spec.seed == 0 && spec.seed2 == 0) {
      rng_.seed(std::random_device{}());
    } else {
      rng_.seed(static_cast<uint64_t>(spec.seed) * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(spec.seed2));
    }
    if (kind_ == QueueSpec::Kind::kRandomShuffle && RowSlab::Fits(spec)) slab_.emplace(spec);
  }
  int64_t size() const { return slab_ ? slab_->size() : static_cast<int64_t>(items_.size()); }
  void Push(QueueElement element) {
    if (slab_) return slab_->Push(element);
    items_.push_back(std::move(element));
    if (kind_ == QueueSpec::Kind::kPriority) std::push_heap(items_.begin(), items_.end(), Later);
  }
  // `k` elements, appended to `out`.
  void Pop(int64_t k, std::vector<QueueElement>* out) {
    if (slab_) {
      std::vector<QueueElement> taken = slab_->Take(k, [this](int64_t size) { return Pick(size); });
      out->insert(out->end(), std::make_move_iterator(taken.begin()), std::make_move_iterator(taken.end()));
      return;
    }
    for (int64_t i = 0; i < k; ++i) out->push_back(PopItem());
  }
  // An element a failed dequeue-many gives back: first in line again in a FIFO queue.
  void Restore(QueueElement element) {
    if (kind_ == QueueSpec::Kind::kFifo || kind_ == QueueSpec::Kind::kPaddingFifo) {
      items_.push_front(std::move(element));
    } else {
      Push(std::move(element));
    }
  }

 private:
  // The heap's order: the smallest priority on top.
  static bool Later(const QueueElement& a, const QueueElement& b) { return a.Priority() > b.Priority(); }
  int64_t Pick(int64_t size) { return std::uniform_int_distribution<int64_t>(0, size - 1)(rng_); }
  QueueElement PopItem() {
    QueueElement out;
    if (kind_ == QueueSpec::Kind::kPriority) {
      std::pop_heap(items_.begin(), items_.end(), Later);
    } else if (kind_ == QueueSpec::Kind::kRandomShuffle) {
      // A scan every size/2 dequeues: amortised O(1) per dequeue.
      if (++pops_since_compaction_ > items_.size() / 2 + 16) {
        pops_since_compaction_ = 0;
        CompactElements(&items_);
      }
      std::swap(items_[Pick(static_cast<int64_t>(items_.size()))], items_.back());
    } else {
      out = std::move(items_.front());
      items_.pop_front();
      return out;
    }
    out = std::move(items_.back());
    items_.pop_back();
    return out;
  }

  QueueSpec::Kind kind_ = QueueSpec::Kind::kFifo;
  std::deque<QueueElement> items_;
  std::optional<RowSlab> slab_;
  std::mt19937_64 rng_;
  size_t pops_since_compaction_ = 0;  // a shuffling queue's (CompactElements)
};

// A waiting enqueue: its elements, how many are in already, its callback.
struct EnqueueAttempt {
  int64_t attempt = 0;
  std::vector<QueueElement> elements;
  QueueInterface::DoneCallback done;
  size_t next = 0;  // elements already in the queue
};

// A waiting dequeue: how many it wants (num < 0: one element, unbatched), those it has.
struct DequeueAttempt {
  int64_t attempt = 0;
  int64_t num = -1;
  bool allow_small_batch = false;
  QueueInterface::DequeueCallback done;
  std::vector<QueueElement> taken;
};

// What the actor and the kernels share, every field under `mu`. An operation that can be
// served at once (room for an enqueue, elements for a dequeue, nobody waiting before it)
// is served by the calling kernel under the lock: a training step's dequeue from a filled
// queue costs no thread hand-off. One that must wait is parked here by its kernel, as a
// callback, under the same lock (no message to the actor, no scheduler thread woken for
// it: a queue runner's enqueue into a full queue waits on every batch); whoever then
// changes the queue (a kernel, the actor closing it) serves what waits, so that a dequeue
// making room answers a blocked enqueue from its own thread.
struct SharedQueue {
  explicit SharedQueue(const QueueSpec& s) : spec(s) { buffer.Init(s); }
  const QueueSpec spec;
  std::mutex mu;
  Buffer buffer;
  bool closed = false;
  // Waiting operations, in arrival order: a fast path never overtakes one of its kind.
  std::deque<EnqueueAttempt> enqueues;  // waiting for room
  std::deque<DequeueAttempt> dequeues;  // waiting for elements
  // Elements the first waiting enqueue still has to put in. A fast-path dequeue wakes the
  // actor for it only once there is room for them all (or the queue ran dry): a blocked
  // enqueue-many of 256 then costs the consumer one hand-off, not one per dequeue of 64.
  int64_t blocked_enqueue_need = 0;
  // Mirrors for QueueSizeV2 and QueueIsClosedV2, read without the lock.
  std::atomic<int64_t> size{0};
  std::atomic<bool> is_closed{false};

  // How many elements may leave now: a shuffling queue keeps min_after_dequeue to mix
  // until it is closed.
  int64_t Available() const {
    if (spec.kind == QueueSpec::Kind::kRandomShuffle && !closed) {
      return std::max<int64_t>(0, buffer.size() - spec.min_after_dequeue);
    }
    return buffer.size();
  }
  void NoteSize() { size = buffer.size(); }
};

// Callbacks to run once the lock is released (they send messages; one might call back).
using Answers = std::vector<std::function<void()>>;

void RunAnswers(Answers& answers) {
  for (auto& answer : answers) answer();
}

struct QueueState {
  std::shared_ptr<SharedQueue> q;
  static inline const char* name = "tensoract.queue";
};

using QueueSelf = caf::stateful_actor<QueueState>;

void GiveBack(SharedQueue& q, std::vector<QueueElement>& taken) {
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) q.buffer.Restore(std::move(*it));
  taken.clear();
}

// The answer to a dequeue that has its elements (under the lock: a batch that cannot be
// made gives them back).
void AnswerDequeue(SharedQueue& q, DequeueAttempt& d, Answers* answers) {
  auto done = std::move(d.done);
  if (d.num < 0) {
    answers->push_back([done, e = ElementTensors(d.taken.front())]() mutable { done(Status::OK(), std::move(e)); });
    return;
  }
  auto batch = BatchElements(q.spec, d.taken);
  if (!batch.ok()) {
    GiveBack(q, d.taken);
    answers->push_back([done, s = batch.status()] { done(s, {}); });
    return;
  }
  answers->push_back([done, b = std::move(batch).value()]() mutable { done(Status::OK(), std::move(b)); });
}

// Serves what can be served: enqueues while there is room, dequeues while there are
// elements, until neither moves; then fails the dequeues a closed queue can never serve.
void PumpLocked(SharedQueue& q, Answers* answers) {
  const int64_t max_size = q.spec.max_size();
  for (bool progress = true; progress;) {
    progress = false;
    while (!q.enqueues.empty()) {
      EnqueueAttempt& e = q.enqueues.front();
      while (e.next < e.elements.size() && q.buffer.size() < max_size) {
        q.buffer.Push(std::move(e.elements[e.next++]));
        progress = true;
      }
      if (e.next < e.elements.size()) break;
      answers->push_back([done = std::move(e.done)] { done(Status::OK()); });
      q.enqueues.pop_front();
      progress = true;
    }
    while (!q.dequeues.empty()) {
      DequeueAttempt& d = q.dequeues.front();
      const size_t want = d.num < 0 ? 1 : static_cast<size_t>(d.num);
      const int64_t take = std::min<int64_t>(static_cast<int64_t>(want - d.taken.size()), q.Available());
      if (take > 0) {
        q.buffer.Pop(take, &d.taken);
        progress = true;
      }
      if (d.taken.size() < want) {
        // Closed, and no enqueue left to bring more: the wait would never end.
        if (!q.closed || !q.enqueues.empty()) break;
        if (d.allow_small_batch && !d.taken.empty()) {
          AnswerDequeue(q, d, answers);
        } else {
          const size_t had = d.taken.size() + static_cast<size_t>(q.buffer.size());
          GiveBack(q, d.taken);
          answers->push_back([done = std::move(d.done), s = errors::OutOfRange(
                                  q.spec.Describe(), " is closed and has insufficient elements (requested ", want,
                                  ", current size ", had, ")")] { done(s, {}); });
        }
      } else {
        AnswerDequeue(q, d, answers);
      }
      q.dequeues.pop_front();
      progress = true;
    }
  }
  q.blocked_enqueue_need =
      q.enqueues.empty()
          ? 0
          : static_cast<int64_t>(q.enqueues.front().elements.size() - q.enqueues.front().next);
  q.NoteSize();
}

// Serves what waits on `q` (PumpLocked) and runs the answers once the lock is released.
void Pump(SharedQueue& q) {
  Answers answers;
  {
    std::lock_guard<std::mutex> lock(q.mu);
    PumpLocked(q, &answers);
  }
  RunAnswers(answers);
}

void CancelAttempt(SharedQueue& q, int64_t attempt) {
  Answers answers;
  {
    std::lock_guard<std::mutex> lock(q.mu);
    for (auto it = q.enqueues.begin(); it != q.enqueues.end(); ++it) {
      if (it->attempt != attempt) continue;
      answers.push_back([done = std::move(it->done)] { done(errors::Cancelled("Enqueue operation was cancelled")); });
      q.enqueues.erase(it);
      break;
    }
    for (auto it = q.dequeues.begin(); answers.empty() && it != q.dequeues.end(); ++it) {
      if (it->attempt != attempt) continue;
      GiveBack(q, it->taken);
      answers.push_back([done = std::move(it->done)] { done(errors::Cancelled("Dequeue operation was cancelled"), {}); });
      q.dequeues.erase(it);
      break;
    }
    // Not waiting (any more): it finished before the cancellation arrived.
    if (!answers.empty()) PumpLocked(q, &answers);
  }
  RunAnswers(answers);
}

// "3 of 10 elements, 1 enqueues and 0 dequeues waiting" (under q.mu).
std::string StateLocked(const SharedQueue& q) {
  return StrCat(q.buffer.size(), " of ",
                q.spec.capacity < 0 ? std::string("unbounded") : std::to_string(q.spec.capacity), " elements",
                q.closed ? ", closed" : "", ", ", q.enqueues.size(), " enqueues and ", q.dequeues.size(),
                " dequeues waiting");
}

caf::behavior queue_actor(QueueSelf* self, std::shared_ptr<SharedQueue> q, caf::actor_addr owner) {
  self->state.q = std::move(q);
  if (auto worker = caf::actor_cast<caf::actor>(owner)) self->link_to(worker);
  return {
      [=](queue_close_atom, bool cancel_pending_enqueues, QueueDoneCallback& done) {
        SharedQueue& q = *self->state.q;
        Answers answers;
        {
          std::lock_guard<std::mutex> lock(q.mu);
          q.closed = true;
          q.is_closed = true;
          if (cancel_pending_enqueues) {
            for (EnqueueAttempt& e : q.enqueues) {
              answers.push_back([d = std::move(e.done)] { d(errors::Cancelled("Enqueue operation was cancelled")); });
            }
            q.enqueues.clear();
          }
          PumpLocked(q, &answers);
        }
        RunAnswers(answers);
        done.done(Status::OK());
      },
      [=](queue_cancel_atom, int64_t attempt) { CancelAttempt(*self->state.q, attempt); },
      [=](queue_destroy_atom) {
        SharedQueue& q = *self->state.q;
        const Status gone = errors::Cancelled(q.spec.Describe(), " was destroyed (its container was reset)");
        std::deque<EnqueueAttempt> enqueues;
        std::deque<DequeueAttempt> dequeues;
        {
          std::lock_guard<std::mutex> lock(q.mu);
          enqueues.swap(q.enqueues);
          dequeues.swap(q.dequeues);
        }
        for (EnqueueAttempt& e : enqueues) e.done(gone);
        for (DequeueAttempt& d : dequeues) d.done(gone, {});
        self->quit();
      },
      [=](observe_atom) -> std::string {
        SharedQueue& q = *self->state.q;
        observe::NodeSnapshot part;
        observe::Actor* actor = part.add_actors();
        actor->set_kind("queue");
        actor->set_mailbox(static_cast<int64_t>(self->mailbox().size()));
        std::lock_guard<std::mutex> lock(q.mu);
        actor->set_name(q.spec.Describe());
        actor->set_doing(StateLocked(q));
        return part.SerializeAsString();
      },
      [=](inspect_atom) -> std::string {
        SharedQueue& q = *self->state.q;
        std::lock_guard<std::mutex> lock(q.mu);
        return StrCat(q.spec.Describe(), ": ", StateLocked(q));
      },
  };
}

// Ties one attempt to its step's cancellation: registered once the attempt waits in the
// queue (so the cancel message finds it there, or finds it answered), deregistered when
// the attempt is answered, whichever of the two happens first.
class CancelLink {
 public:
  explicit CancelLink(CancellationManager* cm) : cm_(cm) {}
  void Arm(const caf::actor& queue, int64_t attempt) {
    if (cm_ == nullptr) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    auto cancel = [queue, attempt] { caf::anon_send(queue, queue_cancel_atom::value, attempt); };
    if (cm_->Register(&token_, cancel)) {
      armed_ = true;
    } else {
      cancel();  // the step is already being cancelled
    }
  }
  void Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    if (armed_) cm_->Deregister(token_);
  }

 private:
  CancellationManager* cm_;
  std::mutex mu_;
  bool finished_ = false, armed_ = false;
  CancellationManager::Token token_ = 0;
};

class ActorQueue : public QueueInterface {
 public:
  ActorQueue(std::shared_ptr<SharedQueue> q, caf::actor actor) : q_(std::move(q)), actor_(std::move(actor)) {}
  ~ActorQueue() override { caf::anon_send(actor_, queue_destroy_atom::value); }

  const QueueSpec& spec() const override { return q_->spec; }

  void Enqueue(std::vector<QueueElement> elements, CancellationManager* cancellation, DoneCallback done) override {
    Answers answers;
    std::unique_lock<std::mutex> lock(q_->mu);
    if (q_->closed) {
      lock.unlock();
      return done(errors::Cancelled(q_->spec.Describe(), " is closed."));
    }
    const int64_t n = static_cast<int64_t>(elements.size());
    if (q_->enqueues.empty() && q_->buffer.size() + n <= q_->spec.max_size()) {
      for (QueueElement& e : elements) q_->buffer.Push(std::move(e));
      q_->NoteSize();
      // Dequeues waiting for these elements are answered from here.
      if (!q_->dequeues.empty()) PumpLocked(*q_, &answers);
      lock.unlock();
      RunAnswers(answers);
      return done(Status::OK());
    }
    // It waits (what fits goes in now).
    const int64_t attempt = next_attempt_++;
    auto link = std::make_shared<CancelLink>(cancellation);
    q_->enqueues.push_back(EnqueueAttempt{attempt, std::move(elements), [link, done = std::move(done)](const Status& s) {
      link->Finish();
      done(s);
    }});
    PumpLocked(*q_, &answers);
    lock.unlock();
    RunAnswers(answers);
    link->Arm(actor_, attempt);
  }

  void Dequeue(int64_t num, bool allow_small_batch, CancellationManager* cancellation, DequeueCallback done) override {
    std::vector<QueueElement> taken;
    {
      std::unique_lock<std::mutex> lock(q_->mu);
      const int64_t want = num < 0 ? 1 : num;
      taken.reserve(want);
      if (q_->dequeues.empty() && q_->Available() >= want) {
        q_->buffer.Pop(want, &taken);
        q_->NoteSize();
        // An enqueue waiting for room is answered from here once all its elements fit
        // (or the queue ran dry): a blocked enqueue-many of 256 then costs one answer, not
        // a wake-up per dequeue of 64.
        const int64_t room = q_->spec.max_size() - q_->buffer.size();
        Answers answers;
        if (!q_->enqueues.empty() && (room >= q_->blocked_enqueue_need || q_->buffer.size() == 0)) {
          PumpLocked(*q_, &answers);
        }
        lock.unlock();
        RunAnswers(answers);
        return AnswerTaken(num, std::move(taken), done);
      }
    }
    // It waits (a closed queue's answer comes at once).
    Answers answers;
    const int64_t attempt = next_attempt_++;
    auto link = std::make_shared<CancelLink>(cancellation);
    {
      std::lock_guard<std::mutex> lock(q_->mu);
      q_->dequeues.push_back(DequeueAttempt{attempt, num, allow_small_batch,
                                            [link, done = std::move(done)](const Status& s, QueueTuple tuple) {
                                              link->Finish();
                                              done(s, std::move(tuple));
                                            },
                                            {}});
      PumpLocked(*q_, &answers);
    }
    RunAnswers(answers);
    link->Arm(actor_, attempt);
  }

  void Close(bool cancel_pending_enqueues, DoneCallback done) override {
    caf::anon_send(actor_, queue_close_atom::value, cancel_pending_enqueues, QueueDoneCallback{std::move(done)});
  }

  int64_t size() const override { return q_->size; }
  bool is_closed() const override { return q_->is_closed; }
  std::string DebugString() const override {
    return StrCat(q_->spec.Describe(), ": ", size(), " elements", is_closed() ? ", closed" : "");
  }

 private:
  // A fast-path dequeue's answer, made outside the lock.
  void AnswerTaken(int64_t num, std::vector<QueueElement> taken, const DequeueCallback& done) {
    if (num < 0) return done(Status::OK(), ElementTensors(taken.front()));
    auto batch = BatchElements(q_->spec, taken);
    if (batch.ok()) return done(Status::OK(), std::move(batch).value());
    {
      std::lock_guard<std::mutex> lock(q_->mu);
      GiveBack(*q_, taken);
      q_->NoteSize();
    }
    Pump(*q_);  // what waited on the elements taken meanwhile
    done(batch.status(), {});
  }

  std::shared_ptr<SharedQueue> q_;
  caf::actor actor_;
  std::atomic<int64_t> next_attempt_{0};
};

}  // namespace

void QueueRegistry::Add(caf::actor_addr queue) {
  std::lock_guard<std::mutex> lock(mu_);
  queues_.push_back(std::move(queue));
}

std::vector<caf::actor> QueueRegistry::Live() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<caf::actor> live;
  std::vector<caf::actor_addr> kept;
  for (caf::actor_addr& addr : queues_) {
    if (auto actor = caf::actor_cast<caf::actor>(addr)) {
      live.push_back(std::move(actor));
      kept.push_back(std::move(addr));
    }
  }
  queues_ = std::move(kept);
  return live;
}

QueueMaker MakeQueueMaker(caf::actor_system& system, caf::actor_addr owner, std::shared_ptr<QueueRegistry> registry) {
  return [&system, owner, registry](const QueueSpec& spec) -> StatusOr<std::shared_ptr<QueueInterface>> {
    auto q = std::make_shared<SharedQueue>(spec);
    caf::actor actor = system.spawn<caf::lazy_init>(queue_actor, q, owner);
    if (registry) registry->Add(actor.address());
    return std::shared_ptr<QueueInterface>(std::make_shared<ActorQueue>(q, std::move(actor)));
  };
}

}  // namespace tensoract
