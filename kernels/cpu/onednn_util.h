// What the kernels on oneDNN share (kernels/cpu/onednn_conv.cc, onednn_conv_grad.cc,
// onednn_matmul.cc): the engine, a convolution's geometry in oneDNN's terms, the activations
// as post-ops, pieces run on the device's threads, scratchpads, and weights kept in oneDNN's
// blocked layouts.
// Only for files built with oneDNN (TENSORACT_HAVE_ONEDNN).
#ifndef TENSORACT_KERNELS_CPU_ONEDNN_UTIL_H_
#define TENSORACT_KERNELS_CPU_ONEDNN_UTIL_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/weights_version.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace tensoract {

dnnl::engine& OnednnEngine();

// An NHWC activation tensor, as oneDNN's [n, c, h, w] dims.
dnnl::memory::desc OnednnNhwc(int64_t n, int64_t c, int64_t h, int64_t w,
                              dnnl::memory::data_type type = dnnl::memory::data_type::f32);

// A convolution (conv::ConvDims, NHWC, HWIO filter) as oneDNN describes it.
struct OnednnConvGeometry {
  // `type`: the element type of the input, output and user_weights (float, or bfloat16
  // where a graph keeps its activations in bfloat16).
  explicit OnednnConvGeometry(const conv::ConvDims& d, dnnl::memory::data_type type = dnnl::memory::data_type::f32);
  dnnl::memory::desc input, output;  // NHWC
  // Our HWIO filter as oneDNN's [g,] O, I, H, W dims with our strides: read (or written)
  // in place by the one reorder to or from oneDNN's blocked layout.
  dnnl::memory::desc user_weights;
  dnnl::memory::dims strides, dilates, pad_before, pad_after;
};

// Throws dnnl::error where oneDNN chose its reference loops for `impl` (impl_info_str()):
// they are slower than our kernels on every shape, so the caller runs its own.
void RefuseReference(const char* impl);

// Whether this CPU, as oneDNN sees it, has the features of `isa` (bfloat16 arithmetic, VNNI).
bool OnednnCpuHas(dnnl::cpu_isa isa);

// The activation of `e` as a oneDNN eltwise post-op; false for none.
bool OnednnEltwise(const FusedEpilogue& e, dnnl::algorithm* alg, float* alpha, float* beta);

// Says on stderr, once per node, that oneDNN failed where it was to run (a reorder, memory,
// a primitive's run) and that our own kernel computes the node instead: the same values,
// slower, and otherwise unseen (a bug in the filters' reorder kept ResNet50's largest 1x1
// layers off oneDNN for a whole session). Returns false: `return OnednnFellBack(ctx, e.what())`.
bool OnednnFellBack(const OpKernelContext* ctx, const char* what);

// Runs run(i, stream) for every piece i in [0, pieces) on the device's threads, each thread
// on one oneDNN thread with its own stream, waited for before it returns. Split here rather
// than by oneDNN's OpenMP team: its static split waits at a barrier for a thread the OS took
// off its core (another process, the hypervisor), where pieces claimed as threads come let
// the others go on. False when a piece threw dnnl::error (memory oneDNN could not get, a
// primitive that failed to run; said once per node, OnednnFellBack): the caller then computes
// everything its own way.
bool OnednnRunPieces(OpKernelContext* ctx, int64_t pieces, const std::function<void(int64_t, dnnl::stream&)>& run);

// run(stream) on the calling thread, as one piece of OnednnRunPieces (one oneDNN thread, a
// stream of its own, waited for): for a caller that split the work over the threads itself.
bool OnednnRunHere(OpKernelContext* ctx, const std::function<void(dnnl::stream&)>& run);

// `from` reordered into `to` on the calling thread, with one oneDNN thread: oneDNN's own
// OpenMP team would wait at its barrier for a core the device's other threads hold. `attr`
// may scale it (output scales: a filter quantized to int8).
void OnednnReorder(const dnnl::memory& from, const dnnl::memory& to, const dnnl::primitive_attr& attr = {});

// The same, a weight tensor (dims [O, ...]) split in slices of its first dimension over the
// device's threads: a training step reorders every filter (9 MB for ResNet50's largest) into
// the forward's layout and again into the input gradient's. Throws dnnl::error where a
// slice failed.
void OnednnReorderInPieces(OpKernelContext* ctx, const dnnl::memory& from, const dnnl::memory& to);

// A primitive with the memory objects it runs on, made once: a call points them at its
// buffers and runs it through oneDNN's C API. Made per call, as the C++ API has it, each
// memory object was a heap block of over a kilobyte (glibc consolidated its free lists for
// each), the arguments an unordered_map, the scratchpad a tensor: ~2 us a run, ~100 runs a
// batch-1 MobileNetV2 step, where the step's time is per-call work the device's other
// thread waits out. The scratchpad (a user scratchpad, scratchpad_mode::user) is the calling
// thread's own buffer, grown to the largest asked for. Thread-safe: each concurrent run
// takes its own set of memory objects.
class OnednnExecutable {
 public:
  OnednnExecutable() = default;
  // `primitive` (made from `pd`), run with buffers for the arguments `ids` (DNNL_ARG_SRC,
  // ...; their layouts pd's).
  OnednnExecutable(const dnnl::primitive_desc_base& pd, dnnl::primitive primitive, std::vector<int> ids);
  ~OnednnExecutable();

  // Runs the primitive on `stream` (one oneDNN thread: OnednnRunPieces) with data[i] the
  // buffer of ids[i], and `weights` (null: none) as DNNL_ARG_WEIGHTS. Throws dnnl::error.
  void Run(dnnl::stream& stream, std::initializer_list<void*> data, const dnnl::memory* weights = nullptr) const;

  const dnnl::memory::desc& desc(size_t i) const { return descs_[i]; }  // of ids[i]
  size_t bytes(size_t i) const { return descs_[i].get_size(); }

 private:
  struct Memories;  // one run's memory objects
  dnnl::primitive primitive_;
  std::vector<int> ids_;
  std::vector<dnnl::memory::desc> descs_;  // of ids_
  dnnl::memory::desc scratchpad_;
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Memories>> idle_;  // under mu_
};

// The calling thread's oneDNN stream on OnednnEngine(), made once.
dnnl::stream& OnednnThreadStream();

// Memory for `desc` (a primitive's scratchpad, a tensor in a blocked layout), held by
// `holder`: from the device's allocator, which keeps large blocks for the next step (a fresh buffer each call would have its pages
// faulted in and zeroed by the OS every time). Throws dnnl::error when memory cannot be had.
dnnl::memory OnednnDeviceMemory(OpKernelContext* ctx, const dnnl::memory::desc& desc, Tensor* holder);

// Weights (a filter, a MatMul's right-hand side) reordered into the blocked layouts the
// primitives read, once per source tensor: kept while we share the source's buffer (a
// resource variable's writer copies a shared buffer before writing) and until a ref
// variable is written (they write in place: RefVariableWriteEpoch, kernels/variable.h).
// A model served from constants or read-only variables reorders its weights once.
// Thread-safe.
class OnednnWeightCache {
 public:
  // `source` (its buffer described by `user`) in `layout`; throws dnnl::error where
  // oneDNN cannot reorder (out of memory). With `scale` (one value per output channel,
  // `channels` of them: the innermost dimension of our HWIO filters), the weights are
  // multiplied by it first: a batch norm's factor folded into the convolution's filter
  // instead of a per-channel multiply of every output. Kept while the scale's values are
  // the same (a batch norm in inference recomputes it every step, always equal). `user` may
  // be a slice of the source (a submemory: some of a filter's output channels); `scale` and
  // `channels` are then still the whole source's. With `quantize` (one factor per output
  // channel of `user`, its dimension 0) the weights (times `scale`) are multiplied by it and
  // rounded into `layout`'s integers (int8 products, kernels/cpu/int8_products.h); the
  // factors follow from the source and scale, so they need no version of their own.
  std::shared_ptr<dnnl::memory> Get(OpKernelContext* ctx, const dnnl::memory::desc& layout,
                                    const dnnl::memory::desc& user, const Tensor& source,
                                    const float* scale = nullptr, int64_t channels = 0,
                                    const float* quantize = nullptr);

 private:
  struct Slot {
    dnnl::memory::desc layout, user;
    WeightsVersion version;  // the source and scale `memory` was made from
    std::shared_ptr<dnnl::memory> memory;
  };
  // Layouts of one source: one or two (pieces of different shapes may block differently),
  // or one per slice of it.
  static constexpr size_t kMaxLayouts = 8;
  std::mutex mu_;
  std::vector<std::shared_ptr<Slot>> slots_;  // under mu_
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ONEDNN_UTIL_H_
