#include "client/step_caller.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <caf/all.hpp>

#include "actors/caller_unit.h"
#include "client/caf_thread_state.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tensoract {

class InlineUnit;

// Where the relay leaves one call's reply for the thread waiting on it.
struct ReplySlot {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<bool> ready{false};
  bool sleeping = false;  // under mu
  RunStepResponse response;
  caf::error error;
  // The unit whose thread waits for this reply while serving its step (InlineUnit::Serve),
  // woken by Fill; null when the caller waits on `cv`.
  InlineUnit* server = nullptr;

  void Fill(RunStepResponse r, caf::error e);

  // True once filled, false at the deadline.
  bool Wait(std::chrono::steady_clock::time_point deadline, bool spin) {
    // 50 us of polling: a small step's reply comes within it. Timed, not counted: a
    // pause takes 10 cycles on some x86 cores and 140 on others (Skylake on), where 20,000
    // of them spun for a millisecond, a core taken from the step's own kernels and from
    // other callers (a queue runner's thread).
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    for (int i = 1; spin; ++i) {
      if (ready.load(std::memory_order_acquire)) return true;
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= spin_until) break;
    }
    std::unique_lock<std::mutex> lock(mu);
    sleeping = true;
    bool filled = cv.wait_until(lock, deadline, [this] { return ready.load(std::memory_order_acquire); });
    sleeping = false;
    return filled;
  }
};

// The calling thread as a CAF execution unit for as long as it waits for its step.
//
// An actor whose mailbox was empty is scheduled by whoever sends it the next message,
// through the sender's execution unit (exec_later); a thread outside CAF has none, so CAF
// hands the actor to a scheduler thread and wakes it. Sent through this unit, the master
// is scheduled here instead and resumed on the caller's thread; what it sends while it runs
// goes through its context(), this unit, so the worker, the executor and their replies run
// here too, one after another, until the reply slot is filled. Each actor is still resumed
// by exactly one thread at a time, by CAF's own rule: only the sender that found the mailbox
// empty schedules it. While the caller waits, an actor another thread makes ready through
// this unit (the executor, when a kernel it gave the device's pool is done: SendVia in
// actors/caller_unit.h) comes back here too, and the waiting thread wakes to resume it.
// What is left when the reply has come, an actor resumed here that still has messages
// (kInlineThroughput per turn), and anything made ready from another thread once the call
// is over go to the scheduler as usual.
class InlineUnit final : public CallerUnit {
 public:
  explicit InlineUnit(caf::actor_system& system) : CallerUnit(&system) {}

  void exec_later(caf::resumable* job) override {
    // An actor resumed here keeps this unit as its context() after it returns, and a
    // response promise of its delivered from another thread later goes through it: only
    // the thread running Serve queues here directly; others while it serves.
    if (running_.load(std::memory_order_acquire) == std::this_thread::get_id()) {
      jobs_.push_back(job);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (serving_.load(std::memory_order_acquire)) {
        foreign_.push_back(job);
        if (sleeping_) cv_.notify_one();
        return;
      }
    }
    HandToScheduler(job);
  }

  // Wakes the serving thread: `slot`, which it waits for, is filled.
  void ReplyCame() {
    if (running_.load(std::memory_order_acquire) == std::this_thread::get_id()) return;  // awake: it filled it
    std::lock_guard<std::mutex> lock(mu_);
    if (sleeping_) cv_.notify_one();
  }

  // Calls `send` (which enqueues through this unit), then resumes the actors scheduled
  // here, and those other threads make ready through it, until `slot` (whose server is
  // this unit) is filled (true) or the deadline passes (false), sleeping when there is
  // nothing to run. Once the reply is in, at most kAfterDone more jobs run here (what a
  // step leaves behind once it has replied is bookkeeping of a microsecond: handing it to
  // a sleeping scheduler thread would cost this thread a wake-up system call); the rest
  // goes to the scheduler.
  template <class Send>
  bool Serve(Send send, ReplySlot& slot, std::chrono::steady_clock::time_point deadline) {
    running_.store(std::this_thread::get_id(), std::memory_order_release);
    serving_.store(true, std::memory_order_release);
    send();
    RunJobs(slot.ready);
    bool filled = slot.ready.load(std::memory_order_acquire);
    while (!filled) {
      if (!WaitForWork(slot, deadline)) break;
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (caf::resumable* job : foreign_) jobs_.push_back(job);
        foreign_.clear();
      }
      RunJobs(slot.ready);
      filled = slot.ready.load(std::memory_order_acquire);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      serving_.store(false, std::memory_order_relaxed);
      for (caf::resumable* job : foreign_) jobs_.push_back(job);
      foreign_.clear();
    }
    running_.store(std::thread::id(), std::memory_order_release);
    for (caf::resumable* job : jobs_) HandToScheduler(job);
    jobs_.clear();
    return filled;
  }

 private:
  // Resumes the jobs queued here until none is left, or `done` holds and kAfterDone more
  // have run.
  void RunJobs(const std::atomic<bool>& done) {
    int after_done = 0;
    while (!jobs_.empty() && (!done.load(std::memory_order_acquire) || after_done++ < kAfterDone)) {
      caf::resumable* job = jobs_.front();
      jobs_.pop_front();
      // Actors made ready together (a step's partitions started at once) could run side
      // by side: this thread takes one, the scheduler's threads the others, as CAF's idle
      // workers would steal them. A small step is a chain of one actor at a time.
      if (!done.load(std::memory_order_acquire)) {
        for (caf::resumable* other : jobs_) HandToScheduler(other);
        jobs_.clear();
      }
      switch (job->resume(this, kInlineThroughput)) {
        case caf::resumable::resume_later:  // more messages: a scheduler thread goes on
          HandToScheduler(job);
          break;
        default:  // awaiting a message, or done: the reference scheduling took goes
          caf::intrusive_ptr_release(job);
          break;
      }
    }
  }

  // Waits until the reply is in or another thread has made an actor ready here: true, or
  // false at the deadline. No polling first: what is left of a step once this thread has
  // run all it could is work on other threads (kernels on the device's pool, a queue's
  // answer, another task), and on a machine of few cores a polling caller takes a core
  // from exactly that work (the MLP's training step: 73,000 ex/s polling 50 us, 89,000
  // sleeping at once). A step that ran here whole never waits.
  bool WaitForWork(ReplySlot& slot, std::chrono::steady_clock::time_point deadline) {
    auto work = [&] {
      return slot.ready.load(std::memory_order_acquire) || !foreign_.empty();
    };
    std::unique_lock<std::mutex> lock(mu_);
    sleeping_ = true;
    const bool woken = cv_.wait_until(lock, deadline, work);
    sleeping_ = false;
    return woken;
  }

  // What CAF does with an actor a thread outside it makes ready. (Not inlined: CAF's
  // scheduler locks a mutex here in code of libcaf_core's and unlocks it in code of ours,
  // which ThreadSanitizer reports unless told: tests/sanitize/tsan.supp.)
  __attribute__((noinline)) void HandToScheduler(caf::resumable* job) { system().scheduler().enqueue(job); }

  // Messages an actor handles per turn here before the scheduler takes it over: a
  // master busy with other clients' steps must not keep this caller.
  static constexpr size_t kInlineThroughput = 8;
  static constexpr int kAfterDone = 4;

  std::atomic<std::thread::id> running_{};
  std::deque<caf::resumable*> jobs_;  // the running thread's
  // Jobs other threads made ready here while the caller serves, and its sleep.
  std::mutex mu_;
  std::condition_variable cv_;
  // Set without mu_ when serving starts (no other thread can have a job for this call
  // yet), cleared under it when it ends, so that no job is queued after the last drain.
  std::atomic<bool> serving_{false};
  bool sleeping_ = false;  // under mu_
  std::vector<caf::resumable*> foreign_;     // under mu_
};

void ReplySlot::Fill(RunStepResponse r, caf::error e) {
  bool wake;
  InlineUnit* unit;
  {
    std::lock_guard<std::mutex> lock(mu);
    response = std::move(r);
    error = std::move(e);
    ready.store(true, std::memory_order_release);
    wake = sleeping;
    unit = server;
  }
  if (wake) cv.notify_one();
  if (unit != nullptr) unit->ReplyCame();
}

}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tensoract::ReplySlot>)

namespace tensoract {
namespace {

using relay_step_atom = caf::atom_constant<caf::atom("relaystep")>;

// `what` only names it for inspection: CAF 0.17 binds a reference to a null argument tuple
// when a function actor is spawned with no arguments at all (UBSan reports it).
caf::behavior relay_actor(caf::event_based_actor* self, const std::string& what) {
  return {
      [=](relay_step_atom, const caf::actor& master, RunStepRequest& request, std::shared_ptr<ReplySlot> slot) {
        // No timeout here: the master ends a step at its deadline, and the caller's wait
        // has its own.
        self->request(master, caf::infinite, run_step_atom::value, std::move(request))
            .then([slot](RunStepResponse& r) { slot->Fill(std::move(r), caf::error()); },
                  [slot](caf::error& e) { slot->Fill(RunStepResponse(), std::move(e)); });
      },
  };
}

// Every InlineUnit ever made: an actor keeps the last one that resumed it as its context(),
// so none is freed (one per calling thread and server; reachable, for leak checkers).
std::mutex units_mu;
std::vector<std::unique_ptr<InlineUnit>>* all_units = new std::vector<std::unique_ptr<InlineUnit>>();
std::atomic<uint64_t> next_caller_id{1};

}  // namespace

StepCaller::StepCaller(caf::actor_system& system)
    : system_(system), id_(next_caller_id.fetch_add(1)),
      relay_(system.spawn(relay_actor, std::string("tensoract.step_relay"))) {}

InlineUnit& StepCaller::UnitOfThisThread() {
  // Most threads call one server: its unit is remembered per thread.
  thread_local uint64_t cached_id = 0;
  thread_local InlineUnit* cached = nullptr;
  if (cached_id == id_) return *cached;
  {
    std::lock_guard<std::mutex> lock(units_mu);
    InlineUnit*& unit = units_[std::this_thread::get_id()];
    if (unit == nullptr) {
      all_units->push_back(std::make_unique<InlineUnit>(system_));
      unit = all_units->back().get();
    }
    cached = unit;
  }
  cached_id = id_;
  return *cached;
}

StepCaller::~StepCaller() { caf::anon_send_exit(relay_, caf::exit_reason::user_shutdown); }

Status StepCaller::Call(const caf::actor& master, RunStepRequest request, int64_t wait_ms,
                        RunStepResponse* response, bool master_is_local, bool spin, bool on_this_thread) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  auto slot = std::make_shared<ReplySlot>();
  if (master_is_local) {
    request.reply_to = [slot](RunStepResponse r) { slot->Fill(std::move(r), caf::error()); };
    // The step runs on this thread as far as it can (InlineUnit), as TensorFlow runs a
    // small step's ops on the caller's thread.
    if (on_this_thread) {
      // Actors resumed here may spawn others, which leaves CAF's logger reference on this
      // thread (client/caf_thread_state.h).
      KeepCafThreadState keep;
      InlineUnit& unit = UnitOfThisThread();
      slot->server = &unit;  // before any other thread can see the slot
      const bool filled = unit.Serve(
          [&] {
            caf::actor_cast<caf::abstract_actor*>(master)->enqueue(
                caf::make_mailbox_element(nullptr, caf::make_message_id(), {}, run_step_atom::value,
                                          std::move(request)),
                &unit);
          },
          *slot, deadline);
      if (!filled) return FromCafError(caf::sec::request_timeout, "RunStep");
    } else {
      caf::anon_send(master, run_step_atom::value, std::move(request));
    }
  } else {
    caf::anon_send(relay_, relay_step_atom::value, master, std::move(request), slot);
  }
  if (!slot->Wait(deadline, spin)) return FromCafError(caf::sec::request_timeout, "RunStep");
  std::lock_guard<std::mutex> lock(slot->mu);
  if (slot->error) return FromCafError(slot->error, "RunStep");
  *response = std::move(slot->response);
  return Status::OK();
}

}  // namespace tensoract
