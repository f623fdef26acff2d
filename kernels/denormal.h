// Kernels run with denormal floats flushed to zero, as TensorFlow's do (its executor wraps
// every kernel in port::ScopedFlushDenormal and its pool threads start with flushing on).
// Besides matching TensorFlow's values, this keeps training fast: once a model fits, Adam's
// second moments and tiny gradients fall into the denormal range, where x86 arithmetic takes
// ~100 cycles an instruction (an MLP step here went from 1.3 ms to 2.5 ms that way).
#ifndef TENSORACT_KERNELS_DENORMAL_H_
#define TENSORACT_KERNELS_DENORMAL_H_

namespace tensoract {

// Sets flush-to-zero and denormals-are-zero on the calling thread (a no-op off x86).
void FlushDenormalsOnThisThread();

// Flushes denormals for its lifetime, then restores the thread's previous mode, so that
// non-kernel code sharing the thread (actors, the client) keeps IEEE behaviour.
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal();
  ~ScopedFlushDenormal();
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
  unsigned int saved_mode_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_DENORMAL_H_
