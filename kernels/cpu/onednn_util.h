// What the kernels on oneDNN share (kernels/cpu/onednn_conv.cc, kernels/cpu/onednn_matmul.cc):
// the engine, the activations as post-ops, and weights kept in oneDNN's blocked layouts.
// Only for files built with oneDNN (TENSORACT_HAVE_ONEDNN).
#ifndef TENSORACT_KERNELS_CPU_ONEDNN_UTIL_H_
#define TENSORACT_KERNELS_CPU_ONEDNN_UTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/cpu/fused_epilogue.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace tensoract {

dnnl::engine& OnednnEngine();

// The activation of `e` as a oneDNN eltwise post-op; false for none.
bool OnednnEltwise(const FusedEpilogue& e, dnnl::algorithm* alg, float* alpha, float* beta);

// Runs run(i, stream) for every piece i in [0, pieces) on the device's threads, each thread
// on one oneDNN thread with its own stream, waited for before it returns. Split here rather
// than by oneDNN's OpenMP team: its static split waits at a barrier for a thread the OS took
// off its core (another process, the hypervisor), where pieces claimed as threads come let
// the others go on. False when a piece threw dnnl::error (memory oneDNN could not get, a
// primitive that failed to run): the caller then computes everything its own way.
bool OnednnRunPieces(OpKernelContext* ctx, int64_t pieces, const std::function<void(int64_t, dnnl::stream&)>& run);

// A primitive's scratchpad (`desc`), held by `holder`: from the device's allocator, which
// keeps large blocks for the next step (a fresh buffer each call would have its pages
// faulted in and zeroed by the OS every time). Throws dnnl::error when memory cannot be had.
dnnl::memory OnednnScratchpad(OpKernelContext* ctx, const dnnl::memory::desc& desc, Tensor* holder);

// Weights (a filter, a MatMul's right-hand side) reordered into the blocked layouts the
// primitives read, once per source tensor: kept while we share the source's buffer (a
// resource variable's writer copies a shared buffer before writing) and until a ref
// variable is written (they write in place: RefVariableWriteEpoch, kernels/variable.h).
// A model served from constants or read-only variables reorders its weights once.
// Thread-safe.
class OnednnWeightCache {
 public:
  // `source` (its buffer described by `user`) in `layout`; throws dnnl::error where
  // oneDNN cannot reorder (out of memory).
  std::shared_ptr<dnnl::memory> Get(const dnnl::memory::desc& layout, const dnnl::memory::desc& user,
                                    const Tensor& source);

 private:
  struct Slot {
    dnnl::memory::desc layout;
    Tensor source;
    uint64_t epoch = 0;
    std::shared_ptr<dnnl::memory> memory;
  };
  // Layouts of one source: one or two (pieces of different shapes may block differently).
  static constexpr size_t kMaxLayouts = 4;
  std::mutex mu_;
  std::vector<std::shared_ptr<Slot>> slots_;  // under mu_
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ONEDNN_UTIL_H_
