// One libFuzzer binary per target: TENSORACT_FUZZ_TARGET names the function of
// tests/fuzz/fuzz_targets.h it fuzzes (set by tests/fuzz/CMakeLists.txt).
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tensoract::fuzz::TENSORACT_FUZZ_TARGET(data, size);
}
