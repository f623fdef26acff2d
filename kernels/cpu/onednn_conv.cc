// Convolutions through oneDNN (see onednn_conv.h).
#include "kernels/cpu/onednn_conv.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/variable.h"

#ifdef TENSORACT_HAVE_ONEDNN
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace tensoract {

#ifdef TENSORACT_HAVE_ONEDNN

namespace {

dnnl::engine& Engine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// The activation as a oneDNN eltwise post-op; false for none.
bool EltwiseOf(const FusedEpilogue& e, dnnl::algorithm* alg, float* alpha, float* beta) {
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

dnnl::memory::desc Nhwc(int64_t n, int64_t c, int64_t h, int64_t w) {
  return dnnl::memory::desc({n, c, h, w}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::nhwc);
}

}  // namespace

struct OnednnConv::Entry {
  bool unsupported = false;  // oneDNN has no implementation: our kernel runs this shape
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward primitive;
  dnnl::memory::desc user_weights;  // the HWIO filter, as oneDNN's dims with our strides
};

// The filter in one blocked layout, and the tensor it came from: shared, so nobody else
// writes it in place (see the header), at RefVariableWriteEpoch `epoch`.
struct OnednnConv::Weights {
  dnnl::memory::desc layout;
  Tensor source;
  uint64_t epoch = 0;
  std::shared_ptr<dnnl::memory> memory;
};

OnednnConv::OnednnConv() = default;
OnednnConv::~OnednnConv() = default;

void OnednnConv::Make(const conv::ConvDims& d, bool scaled, bool shifted, bool added, const FusedEpilogue& epilogue,
                      Entry* made) {
  using dnnl::memory;
  const int64_t g = d.groups, in_per_group = d.in_depth / g, out_per_group = d.out_depth / g;
  // The HWIO filter seen as oneDNN's [g,] O, I, H, W with our strides: no copy before
  // the one reorder into its blocked layout.
  memory::desc user_weights;
  const int64_t w_stride = in_per_group * d.out_depth, h_stride = d.filter_cols * w_stride;
  if (g == 1) {
    user_weights = memory::desc({d.out_depth, d.in_depth, d.filter_rows, d.filter_cols}, memory::data_type::f32,
                                memory::dims{1, d.out_depth, h_stride, w_stride});
  } else {
    user_weights = memory::desc({g, out_per_group, in_per_group, d.filter_rows, d.filter_cols},
                                memory::data_type::f32,
                                memory::dims{out_per_group, 1, d.out_depth, h_stride, w_stride});
  }
  memory::dims weight_dims = user_weights.dims();
  memory::desc any_weights(weight_dims, memory::data_type::f32, memory::format_tag::any);
  // The bottom and right padding that make oneDNN's output size ours (negative where a
  // VALID window leaves input over, as oneDNN allows).
  const int64_t pad_bottom =
      (d.out_rows - 1) * d.stride_rows + (d.filter_rows - 1) * d.dilation_rows + 1 - d.in_rows - d.pad_top;
  const int64_t pad_right =
      (d.out_cols - 1) * d.stride_cols + (d.filter_cols - 1) * d.dilation_cols + 1 - d.in_cols - d.pad_left;
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      Nhwc(d.batch, d.in_depth, d.in_rows, d.in_cols), any_weights,
      Nhwc(d.batch, d.out_depth, d.out_rows, d.out_cols), {d.stride_rows, d.stride_cols},
      {d.dilation_rows - 1, d.dilation_cols - 1}, {d.pad_top, d.pad_left}, {pad_bottom, pad_right});
  dnnl::post_ops post;
  const memory::desc channels({1, d.out_depth, 1, 1}, memory::data_type::f32, memory::format_tag::nchw);
  if (scaled) post.append_binary(dnnl::algorithm::binary_mul, channels);
  if (shifted) post.append_binary(dnnl::algorithm::binary_add, channels);
  if (added) post.append_binary(dnnl::algorithm::binary_add, Nhwc(d.batch, d.out_depth, d.out_rows, d.out_cols));
  dnnl::algorithm alg;
  float alpha, beta;
  if (EltwiseOf(epilogue, &alg, &alpha, &beta)) post.append_eltwise(1.f, alg, alpha, beta);
  dnnl::primitive_attr attr;
  attr.set_post_ops(post);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per piece: pieces run at once
  dnnl::convolution_forward::primitive_desc pd(desc, attr, Engine());
  made->pd = pd;
  made->primitive = dnnl::convolution_forward(pd);
  made->user_weights = user_weights;
}

bool OnednnConv::Enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("TENSORACT_ONEDNN");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return enabled;
}

std::shared_ptr<OnednnConv::Entry> OnednnConv::EntryFor(const conv::ConvDims& d, bool scaled, bool shifted,
                                                        bool added, const FusedEpilogue& epilogue) {
  Key key{{d.batch, d.in_rows, d.in_cols, d.in_depth, d.filter_rows, d.filter_cols, d.out_depth, d.stride_rows,
           d.stride_cols, d.dilation_rows, d.dilation_cols, d.out_rows, d.out_cols, d.pad_top, d.pad_left, d.groups},
          scaled, shifted, added, static_cast<int>(epilogue.activation()), epilogue.leakyrelu_alpha()};
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  auto made = std::make_shared<Entry>();
  try {
    Make(d, scaled, shifted, added, epilogue, made.get());
  } catch (const dnnl::error&) {
    made->unsupported = true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (cache_.size() >= kMaxShapes) cache_.clear();  // a model fed ever new shapes
  return cache_.emplace(key, made).first->second;  // another thread's, if it was first
}

std::shared_ptr<dnnl::memory> OnednnConv::WeightsFor(const Entry& entry, const Tensor& filter) {
  std::lock_guard<std::mutex> lock(weights_mu_);
  const uint64_t epoch = RefVariableWriteEpoch();
  std::shared_ptr<Weights> slot;
  for (const auto& w : weights_) {
    if (w->layout == entry.pd.weights_desc()) slot = w;
  }
  if (slot == nullptr) {
    if (weights_.size() >= 4) weights_.clear();  // layouts of one filter: one or two
    slot = weights_.emplace_back(std::make_shared<Weights>());
    slot->layout = entry.pd.weights_desc();
  }
  if (slot->memory == nullptr || !slot->source.SharesBufferWith(filter) || slot->epoch != epoch) {
    dnnl::stream stream(Engine());
    dnnl::memory user(entry.user_weights, Engine(), const_cast<void*>(filter.data()));
    auto reordered = std::make_shared<dnnl::memory>(slot->layout, Engine());
    dnnl::reorder(user, *reordered).execute(stream, user, *reordered);
    stream.wait();
    slot->memory = std::move(reordered);
    slot->source = filter;
    slot->epoch = epoch;
  }
  return slot->memory;
}

bool OnednnConv::Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const Tensor& filter,
                     const ChannelAffine<float>& affine, const FusedEpilogue& epilogue, float* out) {
  using dnnl::memory;
  const bool scaled = affine.scale != nullptr, shifted = affine.shift != nullptr, added = affine.addend != nullptr;
  // The work, split here rather than by oneDNN's OpenMP team: its static split waits at a
  // barrier for a thread the OS took off its core (another process, the hypervisor), where
  // pieces claimed as threads come let the others go on (as our own kernels do). Two
  // pieces or more per thread: whole images while there are enough, else bands of output
  // rows of each image (a band reads the input rows its windows reach, padding only at the
  // image's edges). Each piece runs on one oneDNN thread.
  const int threads = conv::NumThreads(ctx);
  const int64_t want = 2 * static_cast<int64_t>(threads);
  const int64_t images_per_piece = d.batch >= want ? (d.batch + want - 1) / want : 1;
  const int64_t bands =
      d.batch >= want ? 1 : std::max<int64_t>(1, std::min((want + d.batch - 1) / d.batch, d.out_rows / 2));
  struct Piece {
    std::shared_ptr<Entry> entry;
    int64_t in_offset, out_offset;  // floats from input and out
  };
  std::vector<Piece> pieces;
  const int64_t in_image = d.in_rows * d.in_cols * d.in_depth, out_image = d.out_rows * d.out_cols * d.out_depth;
  try {
    for (int64_t image = 0; image < d.batch; image += images_per_piece) {
      for (int64_t band = 0; band < bands; ++band) {
        const int64_t row_begin = band * d.out_rows / bands, row_end = (band + 1) * d.out_rows / bands;
        conv::ConvDims part = d;
        part.batch = std::min(images_per_piece, d.batch - image);
        part.out_rows = row_end - row_begin;
        const int64_t first = row_begin * d.stride_rows - d.pad_top;  // the band's first input row
        const int64_t last = (row_end - 1) * d.stride_rows - d.pad_top + (d.filter_rows - 1) * d.dilation_rows;
        const int64_t begin = std::max<int64_t>(first, 0), end = std::min(last + 1, d.in_rows);
        if (bands > 1) {
          part.in_rows = end - begin;
          part.pad_top = begin - first;
        }
        Piece p;
        p.in_offset = image * in_image + (bands > 1 ? begin * d.in_cols * d.in_depth : 0);
        p.out_offset = image * out_image + row_begin * d.out_cols * d.out_depth;
        p.entry = EntryFor(part, scaled, shifted, added, epilogue);
        if (p.entry->unsupported) return false;
        pieces.push_back(std::move(p));
      }
    }
    // Every piece's layout of the filter, before any piece runs.
    std::vector<std::shared_ptr<memory>> weights;
    for (const Piece& p : pieces) weights.push_back(WeightsFor(*p.entry, filter));

    const memory::desc channels({1, d.out_depth, 1, 1}, memory::data_type::f32, memory::format_tag::nchw);
    std::atomic<bool> failed{false};
    CwiseParallelFor(ctx, static_cast<int64_t>(pieces.size()), int64_t{1} << 30, [&](int64_t first, int64_t last) {
      omp_set_num_threads(1);
      try {
        dnnl::stream stream(Engine());
        for (int64_t i = first; i < last; ++i) {
          const Piece& p = pieces[i];
          const auto& pd = p.entry->pd;
          std::vector<uint8_t> scratch(pd.scratchpad_desc().get_size());
          std::unordered_map<int, memory> args = {
              {DNNL_ARG_SRC, memory(pd.src_desc(), Engine(), const_cast<float*>(input + p.in_offset))},
              {DNNL_ARG_WEIGHTS, *weights[i]},
              {DNNL_ARG_DST, memory(pd.dst_desc(), Engine(), out + p.out_offset)},
              {DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), Engine(), scratch.data())}};
          int post_index = 0;
          if (scaled) {
            args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(post_index++) | DNNL_ARG_SRC_1] =
                memory(channels, Engine(), const_cast<float*>(affine.scale));
          }
          if (shifted) {
            args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(post_index++) | DNNL_ARG_SRC_1] =
                memory(channels, Engine(), const_cast<float*>(affine.shift));
          }
          if (added) {  // laid out as the output: the piece's part of it
            args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(post_index++) | DNNL_ARG_SRC_1] =
                memory(pd.dst_desc(), Engine(), const_cast<float*>(affine.addend + p.out_offset));
          }
          p.entry->primitive.execute(stream, args);
        }
        stream.wait();
      } catch (const dnnl::error&) {
        failed = true;
      }
    });
    // Memory oneDNN could not get, or a primitive that failed to run: our kernel computes
    // all of out.
    return !failed;
  } catch (const dnnl::error&) {
    return false;
  }
}

#else  // !TENSORACT_HAVE_ONEDNN

struct OnednnConv::Entry {};
struct OnednnConv::Weights {};
OnednnConv::OnednnConv() = default;
OnednnConv::~OnednnConv() = default;
bool OnednnConv::Enabled() { return false; }
bool OnednnConv::Run(OpKernelContext*, const conv::ConvDims&, const float*, const Tensor&,
                     const ChannelAffine<float>&, const FusedEpilogue&, float*) {
  return false;
}

#endif  // TENSORACT_HAVE_ONEDNN

}  // namespace tensoract
