#include "kernels/denormal.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace tensoract {
namespace {

#if defined(__SSE__)
constexpr unsigned int kFlushBits = 0x8040;  // MXCSR: FTZ (bit 15) | DAZ (bit 6)
unsigned int Mode() { return _mm_getcsr(); }
void SetMode(unsigned int mode) { _mm_setcsr(mode); }
#else
constexpr unsigned int kFlushBits = 0;
unsigned int Mode() { return 0; }
void SetMode(unsigned int) {}
#endif

}  // namespace

void FlushDenormalsOnThisThread() { SetMode(Mode() | kFlushBits); }

ScopedFlushDenormal::ScopedFlushDenormal() : saved_mode_(Mode()) {
  // Writing MXCSR costs more than reading it: skip the write when already set (pool threads).
  if ((saved_mode_ & kFlushBits) != kFlushBits) SetMode(saved_mode_ | kFlushBits);
}

ScopedFlushDenormal::~ScopedFlushDenormal() {
  if ((saved_mode_ & kFlushBits) != kFlushBits) SetMode(saved_mode_);
}

}  // namespace tensoract
