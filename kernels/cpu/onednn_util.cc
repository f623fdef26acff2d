// What the kernels on oneDNN share (see onednn_util.h).
#ifdef TENSORACT_HAVE_ONEDNN

#include "kernels/cpu/onednn_util.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <set>
#include <string>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/device.h"
#include "kernels/variable.h"

namespace tensoract {

void OnednnOneThread() { omp_set_num_threads(1); }

dnnl::engine& OnednnEngine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::memory::desc OnednnNhwc(int64_t n, int64_t c, int64_t h, int64_t w, dnnl::memory::data_type type) {
  return dnnl::memory::desc({n, c, h, w}, type, dnnl::memory::format_tag::nhwc);
}

OnednnConvGeometry::OnednnConvGeometry(const conv::ConvDims& d, dnnl::memory::data_type type)
    : input(OnednnNhwc(d.batch, d.in_depth, d.in_rows, d.in_cols, type)),
      output(OnednnNhwc(d.batch, d.out_depth, d.out_rows, d.out_cols, type)),
      strides{d.stride_rows, d.stride_cols},
      dilates{d.dilation_rows - 1, d.dilation_cols - 1},
      pad_before{d.pad_top, d.pad_left} {
  using dnnl::memory;
  const int64_t g = d.groups, in_per_group = d.in_depth / g, out_per_group = d.out_depth / g;
  const int64_t w_stride = in_per_group * d.out_depth, h_stride = d.filter_cols * w_stride;
  if (g == 1) {
    user_weights = memory::desc({d.out_depth, d.in_depth, d.filter_rows, d.filter_cols}, type,
                                memory::dims{1, d.out_depth, h_stride, w_stride});
  } else {
    user_weights = memory::desc({g, out_per_group, in_per_group, d.filter_rows, d.filter_cols}, type,
                                memory::dims{out_per_group, 1, d.out_depth, h_stride, w_stride});
  }
  // The bottom and right padding that make oneDNN's output size ours (negative where a
  // VALID window leaves input over, as oneDNN allows).
  pad_after = {(d.out_rows - 1) * d.stride_rows + (d.filter_rows - 1) * d.dilation_rows + 1 - d.in_rows - d.pad_top,
               (d.out_cols - 1) * d.stride_cols + (d.filter_cols - 1) * d.dilation_cols + 1 - d.in_cols - d.pad_left};
}

void RefuseReference(const char* impl) {
  if (std::string(impl).rfind("ref", 0) == 0) throw dnnl::error(dnnl_unimplemented, "reference only");
}

bool OnednnCpuHas(dnnl::cpu_isa isa) {
  // oneDNN's ISAs are nested sets of feature bits: a CPU has `isa` when its own ISA holds
  // all of them.
  const unsigned have = static_cast<unsigned>(dnnl::get_effective_cpu_isa()), want = static_cast<unsigned>(isa);
  return (have & want) == want;
}

bool OnednnEltwise(const FusedEpilogue& e, dnnl::algorithm* alg, float* alpha, float* beta) {
  *alpha = 0.f;
  *beta = 0.f;
  switch (e.activation()) {
    case FusedEpilogue::kNone: return false;
    case FusedEpilogue::kRelu: *alg = dnnl::algorithm::eltwise_relu; return true;
    case FusedEpilogue::kRelu6: *alg = dnnl::algorithm::eltwise_clip; *beta = 6.f; return true;
    case FusedEpilogue::kElu: *alg = dnnl::algorithm::eltwise_elu; *alpha = 1.f; return true;
    case FusedEpilogue::kLeakyRelu: *alg = dnnl::algorithm::eltwise_relu; *alpha = e.leakyrelu_alpha(); return true;
    case FusedEpilogue::kTanh: *alg = dnnl::algorithm::eltwise_tanh; return true;
    case FusedEpilogue::kSigmoid: *alg = dnnl::algorithm::eltwise_logistic; return true;
    case FusedEpilogue::kGeluApproximate: *alg = dnnl::algorithm::eltwise_gelu_tanh; return true;
    case FusedEpilogue::kGeluExact: *alg = dnnl::algorithm::eltwise_gelu_erf; return true;
    case FusedEpilogue::kSwish: *alg = dnnl::algorithm::eltwise_swish; *alpha = 1.f; return true;
  }
  return false;
}

bool OnednnFellBack(const OpKernelContext* ctx, const char* what) {
  static std::mutex mu;
  static std::set<std::string>* const said = new std::set<std::string>;  // never destroyed
  const std::string node = ctx == nullptr ? "?" : ctx->op_kernel().name();
  std::lock_guard<std::mutex> lock(mu);
  if (said->insert(node).second) {
    std::fprintf(stderr, "tensoract: oneDNN failed on node '%s' (%s); our own kernel computes it\n", node.c_str(),
                 what);
  }
  return false;
}

bool OnednnRunPieces(OpKernelContext* ctx, int64_t pieces, const std::function<void(int64_t, dnnl::stream&)>& run) {
  std::mutex mu;
  std::string failure;  // the first piece's error, under mu
  CwiseParallelFor(ctx, pieces, int64_t{1} << 30, [&](int64_t first, int64_t last) {
    OnednnOneThread();
    try {
      dnnl::stream& stream = OnednnThreadStream();
      for (int64_t i = first; i < last; ++i) run(i, stream);
      stream.wait();
    } catch (const dnnl::error& e) {
      std::lock_guard<std::mutex> lock(mu);
      if (failure.empty()) failure = e.what();
    }
  });
  return failure.empty() || OnednnFellBack(ctx, failure.c_str());
}

bool OnednnRunHere(OpKernelContext* ctx, const std::function<void(dnnl::stream&)>& run) {
  OnednnOneThread();
  try {
    dnnl::stream& stream = OnednnThreadStream();
    run(stream);
    stream.wait();
    return true;
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

dnnl::stream& OnednnThreadStream() {
  thread_local dnnl::stream stream(OnednnEngine());
  return stream;
}

namespace {

// The calling thread's scratchpad of at least `bytes`, 64-byte aligned; kept for its next
// run (a thread runs one primitive at a time).
void* ThreadScratchpad(size_t bytes) {
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<void, Free> buffer;
  thread_local size_t size = 0;
  if (bytes > size) {
    const size_t rounded = (bytes + 4095) / 4096 * 4096;
    buffer.reset(std::aligned_alloc(64, rounded));
    if (buffer == nullptr) {
      size = 0;
      throw dnnl::error(dnnl_out_of_memory, "scratchpad");
    }
    size = rounded;
  }
  return buffer.get();
}

}  // namespace

struct OnednnExecutable::Memories {
  std::vector<dnnl::memory> memories;  // of ids_, then the scratchpad's
};

OnednnExecutable::OnednnExecutable(const dnnl::primitive_desc_base& pd, dnnl::primitive primitive,
                                   std::vector<int> ids)
    : primitive_(std::move(primitive)), ids_(std::move(ids)), scratchpad_(pd.scratchpad_desc()) {
  for (int id : ids_) descs_.push_back(pd.query_md(dnnl::query::exec_arg_md, id));
}

OnednnExecutable::~OnednnExecutable() = default;

void OnednnExecutable::Run(dnnl::stream& stream, std::initializer_list<void*> data,
                           const dnnl::memory* weights) const {
  std::unique_ptr<Memories> set;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      set = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (set == nullptr) {
    set = std::make_unique<Memories>();
    for (const auto& desc : descs_) set->memories.emplace_back(desc, OnednnEngine(), nullptr);
    if (scratchpad_.get_size() > 0) set->memories.emplace_back(scratchpad_, OnednnEngine(), nullptr);
  }
  constexpr size_t kMaxArgs = 8;
  if (data.size() != ids_.size() || ids_.size() + 2 > kMaxArgs) {
    throw dnnl::error(dnnl_invalid_arguments, "OnednnExecutable::Run: wrong number of buffers");
  }
  dnnl_exec_arg_t args[kMaxArgs];
  size_t n = 0;
  for (void* buffer : data) {
    set->memories[n].set_data_handle(buffer, stream);
    args[n] = {ids_[n], set->memories[n].get()};
    ++n;
  }
  const size_t scratch_bytes = scratchpad_.get_size();
  if (scratch_bytes > 0) {
    set->memories.back().set_data_handle(ThreadScratchpad(scratch_bytes), stream);
    args[n++] = {DNNL_ARG_SCRATCHPAD, set->memories.back().get()};
  }
  if (weights != nullptr) args[n++] = {DNNL_ARG_WEIGHTS, weights->get()};
  const dnnl_status_t status =
      dnnl_primitive_execute(primitive_.get(), stream.get(), static_cast<int>(n), args);
  {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(set));
  }
  if (status != dnnl_success) throw dnnl::error(status, "could not execute a primitive");
}

dnnl::memory OnednnDeviceMemory(OpKernelContext* ctx, const dnnl::memory::desc& desc, Tensor* holder) {
  Allocator* allocator = ctx->device() != nullptr ? ctx->device()->allocator() : cpu_allocator();
  auto made = Tensor::Allocate(allocator, tensorflow::DT_UINT8, TensorShape({static_cast<int64_t>(desc.get_size())}));
  if (!made.ok()) throw dnnl::error(dnnl_out_of_memory, "device memory");
  *holder = std::move(made).value();
  return dnnl::memory(desc, OnednnEngine(), holder->data());
}

std::shared_ptr<dnnl::memory> OnednnWeightCache::Get(OpKernelContext* ctx, const dnnl::memory::desc& layout,
                                                     const dnnl::memory::desc& user, const Tensor& source,
                                                     const float* scale, int64_t channels,
                                                     const float* quantize) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t epoch = RefVariableWriteEpoch();
  std::shared_ptr<Slot> slot;
  for (const auto& s : slots_) {
    if (s->layout == layout && s->user == user) slot = s;
  }
  if (slot == nullptr) {
    if (slots_.size() >= kMaxLayouts) slots_.clear();
    slot = slots_.emplace_back(std::make_shared<Slot>());
    slot->layout = layout;
    slot->user = user;
  }
  if (slot->memory == nullptr || !slot->version.Matches(source, epoch, scale, channels)) {
    // Training changes the weights every step: their last layout is written over where no
    // call still reads it (its pages already faulted in: a fresh 9 MB buffer cost ResNet50's
    // 3x3x512x512 filter 6-8 ms a step).
    if (slot->memory == nullptr || slot->memory.use_count() > 1) {
      slot->memory = std::make_shared<dnnl::memory>(layout, OnednnEngine());
    }
    // With a scale, the filter times it in float (a bfloat16 filter widened exactly); then
    // reordered (and rounded, for bfloat16 products) as without it.
    std::vector<float> scaled;
    dnnl::memory::desc from = user;
    if (scale != nullptr) {
      const int64_t n = source.NumElements();
      scaled.resize(n);
      if (source.dtype() == tensorflow::DT_BFLOAT16) {
        const Eigen::bfloat16* w = source.base<Eigen::bfloat16>();
        for (int64_t i = 0; i < n; ++i) scaled[i] = static_cast<float>(w[i]) * scale[i % channels];
      } else {
        const float* w = source.base<float>();
        for (int64_t i = 0; i < n; ++i) scaled[i] = w[i] * scale[i % channels];
      }
      from.data.data_type = dnnl_f32;
    }
    const dnnl::memory in(from, OnednnEngine(), scale != nullptr ? scaled.data() : const_cast<void*>(source.data()));
    if (quantize == nullptr) {
      OnednnReorderInPieces(ctx, in, *slot->memory);
    } else {
      // Per-channel factors go with the reorder's dimension-0 mask, so it runs whole (once per
      // filter: an inference option).
      dnnl::primitive_attr attr;
      attr.set_output_scales(1, std::vector<float>(quantize, quantize + user.dims()[0]));
      OnednnReorder(in, *slot->memory, attr);
    }
    slot->version.Record(source, epoch, scale, channels);
  }
  return slot->memory;
}

namespace {

// The block of the outermost dimension in `desc`'s layout: the product of its inner blocks
// of dimension 0 (1 where it has none).
int64_t OuterBlock(const dnnl::memory::desc& desc) {
  if (desc.data.format_kind != dnnl_blocked) return 1;
  const auto& blocking = desc.data.format_desc.blocking;
  int64_t block = 1;
  for (int i = 0; i < blocking.inner_nblks; ++i) {
    if (blocking.inner_idxs[i] == 0) block *= blocking.inner_blks[i];
  }
  return block;
}

}  // namespace

void OnednnReorderInPieces(OpKernelContext* ctx, const dnnl::memory& from, const dnnl::memory& to) {
  // Slices of the outermost dimension made of whole blocks on both sides, one or two per
  // thread. Blocks need not divide 64 (oneDNN lays 1x1 filters out in blocks of 48 output
  // channels), and a dimension that is not whole blocks (the last one padded) is reordered
  // in one piece: the slices' descriptions would fail, and with them the convolution.
  const dnnl::memory::dims dims = from.get_desc().dims();
  const int64_t align = std::lcm(OuterBlock(from.get_desc()), OuterBlock(to.get_desc()));
  const int64_t threads = ctx->device() == nullptr ? 1 : ctx->device()->num_threads();
  const int64_t slices = std::min<int64_t>(2 * threads, dims[0] / align);
  if (slices < 2 || dims[0] % align != 0 || from.get_desc().get_size() < (int64_t{1} << 20)) {
    return OnednnReorder(from, to);
  }
  const int64_t step = (dims[0] / slices + align - 1) / align * align;
  const bool ran = OnednnRunPieces(ctx, (dims[0] + step - 1) / step, [&](int64_t i, dnnl::stream& stream) {
    dnnl::memory::dims part = dims, offsets(dims.size(), 0);
    offsets[0] = i * step;
    part[0] = std::min(step, dims[0] - offsets[0]);
    dnnl::memory src(from.get_desc().submemory_desc(part, offsets), OnednnEngine(), from.get_data_handle());
    dnnl::memory dst(to.get_desc().submemory_desc(part, offsets), OnednnEngine(), to.get_data_handle());
    dnnl::reorder(src, dst).execute(stream, src, dst);
  });
  if (!ran) throw dnnl::error(dnnl_runtime_error, "reorder");
}

void OnednnReorder(const dnnl::memory& from, const dnnl::memory& to, const dnnl::primitive_attr& attr) {
  OnednnOneThread();
  dnnl::stream stream(OnednnEngine());
  dnnl::reorder(dnnl::reorder::primitive_desc(from, to, attr))
      .execute(stream, const_cast<dnnl::memory&>(from), const_cast<dnnl::memory&>(to));
  stream.wait();
}

}  // namespace tensoract

#endif  // TENSORACT_HAVE_ONEDNN
