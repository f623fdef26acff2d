#include "actors/queue_actor.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <random>

#include <caf/all.hpp>

namespace tensoract {
namespace {

// What QueueSizeV2 and QueueIsClosedV2 read without asking the actor.
struct QueueCounters {
  std::atomic<int64_t> size{0};
  std::atomic<bool> closed{false};
};

// The elements, in the order the queue's kind gives them out.
class Buffer {
 public:
  void Init(const QueueSpec& spec) {
    kind_ = spec.kind;
    if (spec.seed == 0 && spec.seed2 == 0) {
      rng_.seed(std::random_device{}());
    } else {
      rng_.seed(static_cast<uint64_t>(spec.seed) * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(spec.seed2));
    }
  }
  int64_t size() const { return static_cast<int64_t>(items_.size()); }
  void Push(QueueTuple element) {
    items_.push_back(std::move(element));
    if (kind_ == QueueSpec::Kind::kPriority) std::push_heap(items_.begin(), items_.end(), Later);
  }
  QueueTuple Pop() {
    QueueTuple out;
    if (kind_ == QueueSpec::Kind::kPriority) {
      std::pop_heap(items_.begin(), items_.end(), Later);
    } else if (kind_ == QueueSpec::Kind::kRandomShuffle) {
      std::uniform_int_distribution<size_t> pick(0, items_.size() - 1);
      std::swap(items_[pick(rng_)], items_.back());
    } else {
      out = std::move(items_.front());
      items_.pop_front();
      return out;
    }
    out = std::move(items_.back());
    items_.pop_back();
    return out;
  }
  // An element a failed dequeue-many gives back: first in line again in a FIFO queue.
  void Restore(QueueTuple element) {
    if (kind_ == QueueSpec::Kind::kFifo || kind_ == QueueSpec::Kind::kPaddingFifo) {
      items_.push_front(std::move(element));
    } else {
      Push(std::move(element));
    }
  }

 private:
  // The heap's order: the smallest priority on top.
  static bool Later(const QueueTuple& a, const QueueTuple& b) {
    return a[0].base<int64_t>()[0] > b[0].base<int64_t>()[0];
  }
  QueueSpec::Kind kind_ = QueueSpec::Kind::kFifo;
  std::deque<QueueTuple> items_;
  std::mt19937_64 rng_;
};

struct EnqueueAttempt {
  QueueEnqueueRequest request;
  size_t next = 0;  // elements already in the queue
};

struct DequeueAttempt {
  QueueDequeueRequest request;
  std::vector<QueueTuple> taken;
};

struct QueueState {
  QueueSpec spec;
  Buffer buffer;
  std::shared_ptr<QueueCounters> counters;
  bool closed = false;
  std::deque<EnqueueAttempt> enqueues;  // waiting for room, in arrival order
  std::deque<DequeueAttempt> dequeues;  // waiting for elements, in arrival order
  static inline const char* name = "tensoract.queue";
};

using Self = caf::stateful_actor<QueueState>;

bool CanTake(const QueueState& st) {
  if (st.buffer.size() == 0) return false;
  // A shuffling queue keeps min_after_dequeue elements to mix until it is closed.
  if (st.spec.kind == QueueSpec::Kind::kRandomShuffle && !st.closed) {
    return st.buffer.size() > st.spec.min_after_dequeue;
  }
  return true;
}

void GiveBack(QueueState& st, DequeueAttempt& d) {
  for (auto it = d.taken.rbegin(); it != d.taken.rend(); ++it) st.buffer.Restore(std::move(*it));
  d.taken.clear();
}

void Answer(QueueState& st, DequeueAttempt& d) {
  if (d.request.num < 0) return d.request.done(Status::OK(), AlignedElement(std::move(d.taken.front())));
  auto batch = BatchElements(st.spec, d.taken);
  if (!batch.ok()) {
    GiveBack(st, d);
    return d.request.done(batch.status(), {});
  }
  d.request.done(Status::OK(), std::move(batch).value());
}

// Serves what can be served: enqueues while there is room, dequeues while there are
// elements, until neither moves; then fails the dequeues a closed queue can never serve.
void Pump(Self* self) {
  auto& st = self->state;
  const int64_t max_size = st.spec.max_size();
  for (bool progress = true; progress;) {
    progress = false;
    while (!st.enqueues.empty()) {
      EnqueueAttempt& e = st.enqueues.front();
      while (e.next < e.request.elements.size() && st.buffer.size() < max_size) {
        st.buffer.Push(std::move(e.request.elements[e.next++]));
        progress = true;
      }
      if (e.next < e.request.elements.size()) break;
      auto done = std::move(e.request.done);
      st.enqueues.pop_front();
      done(Status::OK());
      progress = true;
    }
    while (!st.dequeues.empty()) {
      DequeueAttempt& d = st.dequeues.front();
      const size_t want = d.request.num < 0 ? 1 : static_cast<size_t>(d.request.num);
      while (d.taken.size() < want && CanTake(st)) {
        d.taken.push_back(st.buffer.Pop());
        progress = true;
      }
      if (d.taken.size() < want) {
        // Closed, and no enqueue left to bring more: the wait would never end.
        if (!st.closed || !st.enqueues.empty()) break;
        if (d.request.allow_small_batch && !d.taken.empty()) {
          Answer(st, d);
        } else {
          const size_t had = d.taken.size() + static_cast<size_t>(st.buffer.size());
          GiveBack(st, d);
          d.request.done(errors::OutOfRange(st.spec.Describe(), " is closed and has insufficient elements (requested ",
                                            want, ", current size ", had, ")"),
                         {});
        }
      } else {
        Answer(st, d);
      }
      st.dequeues.pop_front();
      progress = true;
    }
  }
  st.counters->size = st.buffer.size();
}

void CancelAttempt(Self* self, int64_t attempt) {
  auto& st = self->state;
  for (auto it = st.enqueues.begin(); it != st.enqueues.end(); ++it) {
    if (it->request.attempt != attempt) continue;
    auto done = std::move(it->request.done);
    st.enqueues.erase(it);
    done(errors::Cancelled("Enqueue operation was cancelled"));
    return Pump(self);
  }
  for (auto it = st.dequeues.begin(); it != st.dequeues.end(); ++it) {
    if (it->request.attempt != attempt) continue;
    GiveBack(st, *it);
    auto done = std::move(it->request.done);
    st.dequeues.erase(it);
    done(errors::Cancelled("Dequeue operation was cancelled"), {});
    return Pump(self);
  }
  // Not waiting (any more): it finished before the cancellation arrived.
}

caf::behavior queue_actor(Self* self, QueueSpec spec, std::shared_ptr<QueueCounters> counters, caf::actor_addr owner) {
  self->state.spec = std::move(spec);
  self->state.buffer.Init(self->state.spec);
  self->state.counters = std::move(counters);
  if (auto worker = caf::actor_cast<caf::actor>(owner)) self->link_to(worker);
  return {
      [=](queue_enqueue_atom, QueueEnqueueRequest& request) {
        auto& st = self->state;
        if (st.closed) return request.done(errors::Cancelled(st.spec.Describe(), " is closed."));
        st.enqueues.push_back({std::move(request), 0});
        Pump(self);
      },
      [=](queue_dequeue_atom, QueueDequeueRequest& request) {
        self->state.dequeues.push_back({std::move(request), {}});
        Pump(self);
      },
      [=](queue_close_atom, bool cancel_pending_enqueues, QueueDoneCallback& done) {
        auto& st = self->state;
        st.closed = true;
        st.counters->closed = true;
        if (cancel_pending_enqueues) {
          std::deque<EnqueueAttempt> cancelled;
          cancelled.swap(st.enqueues);
          for (EnqueueAttempt& e : cancelled) e.request.done(errors::Cancelled("Enqueue operation was cancelled"));
        }
        Pump(self);
        done.done(Status::OK());
      },
      [=](queue_cancel_atom, int64_t attempt) { CancelAttempt(self, attempt); },
      [=](queue_destroy_atom) {
        auto& st = self->state;
        const Status gone = errors::Cancelled(st.spec.Describe(), " was destroyed (its container was reset)");
        for (EnqueueAttempt& e : st.enqueues) e.request.done(gone);
        for (DequeueAttempt& d : st.dequeues) d.request.done(gone, {});
        st.enqueues.clear();
        st.dequeues.clear();
        self->quit();
      },
      [=](inspect_atom) -> std::string {
        auto& st = self->state;
        return StrCat(st.spec.Describe(), ": ", st.buffer.size(), " of ",
                      st.spec.capacity < 0 ? std::string("unbounded") : std::to_string(st.spec.capacity),
                      " elements", st.closed ? ", closed" : "", ", ", st.enqueues.size(), " enqueues and ",
                      st.dequeues.size(), " dequeues waiting");
      },
  };
}

// Ties one attempt to its step's cancellation: registered after the request is sent (so a
// cancel message always comes after it in the actor's mailbox), deregistered when the
// attempt is answered, whichever of the two happens first.
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
  ActorQueue(QueueSpec spec, caf::actor actor, std::shared_ptr<QueueCounters> counters)
      : spec_(std::move(spec)), actor_(std::move(actor)), counters_(std::move(counters)) {}
  ~ActorQueue() override { caf::anon_send(actor_, queue_destroy_atom::value); }

  const QueueSpec& spec() const override { return spec_; }

  void Enqueue(std::vector<QueueTuple> elements, CancellationManager* cancellation, DoneCallback done) override {
    const int64_t attempt = next_attempt_++;
    auto link = std::make_shared<CancelLink>(cancellation);
    caf::anon_send(actor_, queue_enqueue_atom::value,
                   QueueEnqueueRequest{attempt, std::move(elements), [link, done = std::move(done)](const Status& s) {
                                         link->Finish();
                                         done(s);
                                       }});
    link->Arm(actor_, attempt);
  }

  void Dequeue(int64_t num, bool allow_small_batch, CancellationManager* cancellation, DequeueCallback done) override {
    const int64_t attempt = next_attempt_++;
    auto link = std::make_shared<CancelLink>(cancellation);
    caf::anon_send(actor_, queue_dequeue_atom::value,
                   QueueDequeueRequest{attempt, num, allow_small_batch,
                                       [link, done = std::move(done)](const Status& s, QueueTuple tuple) {
                                         link->Finish();
                                         done(s, std::move(tuple));
                                       }});
    link->Arm(actor_, attempt);
  }

  void Close(bool cancel_pending_enqueues, DoneCallback done) override {
    caf::anon_send(actor_, queue_close_atom::value, cancel_pending_enqueues, QueueDoneCallback{std::move(done)});
  }

  int64_t size() const override { return counters_->size; }
  bool is_closed() const override { return counters_->closed; }
  std::string DebugString() const override {
    return StrCat(spec_.Describe(), ": ", size(), " elements", is_closed() ? ", closed" : "");
  }

 private:
  const QueueSpec spec_;
  caf::actor actor_;
  std::shared_ptr<QueueCounters> counters_;
  std::atomic<int64_t> next_attempt_{0};
};

}  // namespace

QueueMaker MakeQueueMaker(caf::actor_system& system, caf::actor_addr owner) {
  return [&system, owner](const QueueSpec& spec) -> StatusOr<std::shared_ptr<QueueInterface>> {
    auto counters = std::make_shared<QueueCounters>();
    caf::actor actor = system.spawn<caf::lazy_init>(queue_actor, spec, counters, owner);
    return std::shared_ptr<QueueInterface>(std::make_shared<ActorQueue>(spec, std::move(actor), counters));
  };
}

}  // namespace tensoract
