// CancellationManager: how a step tells the asynchronous kernels still waiting in it that
// it is over (TensorFlow's CancellationManager).
//
// A kernel that may wait for a long time (a dequeue from an empty queue, an enqueue into a
// full one, a reader waiting for its next file) registers a callback before it waits and
// deregisters it when it finishes; when the step ends with an error (an abort, a deadline,
// a cancelled Run, another node's failure) the executor calls StartCancel, which runs the
// callbacks still registered, once each, so the waits end with Cancelled and hold nothing.
//
//   CancellationManager::Token token;
//   if (!cm->Register(&token, [queue, id] { queue->CancelAttempt(id); })) return fail_now();
//   ... when the wait ends:  cm->Deregister(token);
//
// Thread-safety: every method may be called from any thread. Callbacks run outside the
// lock, on the thread that calls StartCancel, so they must be short (send a message).
#ifndef TENSORACT_KERNELS_CANCELLATION_H_
#define TENSORACT_KERNELS_CANCELLATION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace tensoract {

class CancellationManager {
 public:
  using Token = int64_t;

  // Registers `callback` to run on StartCancel. False when the step is already being
  // cancelled: nothing was registered, and the caller should fail at once.
  bool Register(Token* token, std::function<void()> callback);
  // True when the callback was removed before it ran; false when it has run or is running
  // (the cancellation won the race: the caller's wait ends through it).
  bool Deregister(Token token);
  // Runs every registered callback once; later Registers fail. Idempotent.
  void StartCancel();
  bool cancelled() const;

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  Token next_ = 0;
  std::map<Token, std::function<void()>> callbacks_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CANCELLATION_H_
