#include "client/step_caller.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include <caf/all.hpp>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tensoract {

// Where the relay leaves one call's reply for the thread waiting on it.
struct ReplySlot {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<bool> ready{false};
  bool sleeping = false;  // under mu
  RunStepResponse response;
  caf::error error;

  void Fill(RunStepResponse r, caf::error e) {
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mu);
      response = std::move(r);
      error = std::move(e);
      ready.store(true, std::memory_order_release);
      wake = sleeping;
    }
    if (wake) cv.notify_one();
  }

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

}  // namespace

StepCaller::StepCaller(caf::actor_system& system)
    : relay_(system.spawn(relay_actor, std::string("tensoract.step_relay"))) {}

StepCaller::~StepCaller() { caf::anon_send_exit(relay_, caf::exit_reason::user_shutdown); }

Status StepCaller::Call(const caf::actor& master, RunStepRequest request, int64_t wait_ms,
                        RunStepResponse* response, bool master_is_local, bool spin) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  auto slot = std::make_shared<ReplySlot>();
  if (master_is_local) {
    request.reply_to = [slot](RunStepResponse r) { slot->Fill(std::move(r), caf::error()); };
    caf::anon_send(master, run_step_atom::value, std::move(request));
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
