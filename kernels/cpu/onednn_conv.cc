// Convolutions through oneDNN (see onednn_conv.h).
#include "kernels/cpu/onednn_conv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cpu/bfloat16_products.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/int8_products.h"
#include "kernels/variable.h"

#ifdef TENSORACT_HAVE_ONEDNN
#include "kernels/cpu/onednn_util.h"
#else
#include "kernels/cpu/onednn_stub.h"
#endif

namespace tensoract {

#ifdef TENSORACT_HAVE_ONEDNN

struct OnednnConv::Entry {
  bool unsupported = false;  // oneDNN has no implementation: our kernel runs this shape
  dnnl::convolution_forward::primitive_desc pd;
  // The primitive, run on the source, destination and (where shifted) bias buffers.
  std::unique_ptr<OnednnExecutable> exec;
  dnnl::memory::desc user_weights;  // the HWIO filter, as oneDNN's dims with our strides
  size_t dst_bytes() const { return exec->bytes(1); }
};

struct OnednnConv::Int8Call {
  Int8Activations input;
  std::vector<float> filter_scales;  // per output channel (FilterInt8Scales)
  std::vector<float> output_scales;  // 1 / (input scale x filter scale), per output channel
  // The bias divided by the output scale: oneDNN 2 adds it to the integer sums before
  // scaling them back (a probe: 0.5 x (288 + 10) = 149, not 154).
  std::vector<float> bias;
  int input_type() const { return input.is_unsigned ? 1 : 2; }
};

struct OnednnConv::Piece {
  std::shared_ptr<Entry> entry;
  std::shared_ptr<dnnl::memory> weights;  // the filter in the primitive's layout
  int64_t input_elements = 0;             // rounded to bfloat16 first, with bfloat16 products
  // For int8 products, which make their primitive per call (the input's scale): the
  // piece's shape, its filter and the kernel's epilogue (it outlives the piece).
  conv::ConvDims dims;
  Tensor filter;
  const FusedEpilogue* epilogue = nullptr;
};

namespace {

// Runs `entry`'s primitive on one piece: source and destination at the piece's place, the
// weights with the per-channel scale folded in (OnednnWeightCache), the shift (null: none)
// as the convolution's bias, the addend (null: none) laid out as the output.
// The addend is copied into the destination first and added by oneDNN's sum post-op: with
// a binary add of a whole tensor instead, oneDNN 2.6 left its brgconv kernels for its older
// JIT ones (ResNet50's residual 1x1 convolutions at 57-128 GFLOP/s on AMX, against 250-430
// for the 1x1 convolutions without a residual).
template <class Entry>
void ExecutePiece(const Entry& entry, const dnnl::memory& weights, void* source, void* out,
                  const ChannelAffine<float>& affine, const void* addend, dnnl::stream& stream) {
  if (addend != nullptr && addend != out) std::memcpy(out, addend, entry.dst_bytes());
  if (affine.shift != nullptr) {
    entry.exec->Run(stream, {source, out, const_cast<float*>(affine.shift)}, &weights);
  } else {
    entry.exec->Run(stream, {source, out}, &weights);
  }
}

// Whether the kernel applies `e`'s activation itself, after the primitive, on the piece's
// output while it is in the thread's cache: oneDNN 2.6's post-ops for Swish, Sigmoid and
// Tanh evaluate their exponential slowly. A 1x1 convolution of 16 to 96 channels over
// 56x112 pixels in bfloat16 (EfficientNet's block2a) took 0.10 ms on one thread of a Zen 4
// alone, 0.44 ms with oneDNN's swish, and Eigen's logistic (TensorFlow's Sigmoid kernel)
// computes that swish, widened from bfloat16 and rounded back, in 0.25 ms; a depthwise 3x3
// of 144 channels over 28x56, 0.06 ms alone, 0.20 with oneDNN's swish.
bool ActivatesAfter(const FusedEpilogue& e) {
  return e.activation() == FusedEpilogue::kSwish || e.activation() == FusedEpilogue::kSigmoid ||
         e.activation() == FusedEpilogue::kTanh;
}

// After `stream` has run a piece's primitive: its `bytes` of output at `out` (bfloat16 or
// float) activated, where ActivatesAfter says so.
void ActivateAfter(const FusedEpilogue& e, dnnl::stream& stream, void* out, size_t bytes, bool bfloat16) {
  if (!ActivatesAfter(e)) return;
  stream.wait();
  if (bfloat16) {
    e.ActivateBfloat16Bits(static_cast<uint16_t*>(out), static_cast<int64_t>(bytes / sizeof(uint16_t)));
  } else {
    e.ActivateFloat(static_cast<float*>(out), static_cast<int64_t>(bytes / sizeof(float)));
  }
}

// The input as the primitives read it, and the bytes of one of its elements: with int8
// products (`quantized`, not null) the quantized input; with bfloat16 products on float
// activations (`round`), its `elements` rounded once into `*rounded` (false where memory could
// not be had); else `input` itself, of `element` bytes.
bool PrimitiveInput(OpKernelContext* ctx, const Int8Activations* quantized, bool round, const void* input,
                    int64_t elements, int64_t element, Tensor* rounded, char** source, int64_t* source_element) {
  *source = static_cast<char*>(const_cast<void*>(input));
  *source_element = element;
  if (quantized != nullptr) {
    *source = static_cast<char*>(const_cast<void*>(quantized->data.data()));
    *source_element = 1;
    return true;
  }
  if (!round) return true;
  auto r = RoundedToBfloat16(ctx, static_cast<const float*>(input), elements);
  if (!r.ok()) return false;
  *rounded = std::move(r).value();
  *source = static_cast<char*>(rounded->data());
  *source_element = 2;
  return true;
}

}  // namespace

OnednnConv::OnednnConv() : weights_(std::make_unique<OnednnWeightCache>()) {}
OnednnConv::~OnednnConv() = default;

void OnednnConv::Make(const conv::ConvDims& d, bool shifted, bool added, const FusedEpilogue& epilogue,
                      bool bfloat16, bool bfloat16_activations, int int8_input,
                      const std::vector<float>& output_scales, Entry* made) {
  using dnnl::memory;
  // With bfloat16 products the input and filter are rounded (the reorder into the blocked
  // layout rounds the filter) and the output stays float; with bfloat16 activations all
  // are bfloat16 already.
  const OnednnConvGeometry geometry(d, bfloat16_activations ? memory::data_type::bf16 : memory::data_type::f32);
  const memory::data_type operands =
      bfloat16 || bfloat16_activations ? memory::data_type::bf16 : memory::data_type::f32;
  const memory::data_type input_type = int8_input == 1   ? memory::data_type::u8
                                       : int8_input == 2 ? memory::data_type::s8
                                                         : operands;
  memory::desc any_weights(geometry.user_weights.dims(), int8_input != 0 ? memory::data_type::s8 : operands,
                           memory::format_tag::any);
  // A batch norm's scale is folded into the filter (OnednnWeightCache), its shift is the
  // bias: as per-channel binary post-ops they cost ResNet50 a third more time in bfloat16.
  const auto src = OnednnNhwc(d.batch, d.in_depth, d.in_rows, d.in_cols, input_type);
  const auto desc =
      shifted ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                dnnl::algorithm::convolution_direct, src, any_weights,
                                                memory::desc({d.out_depth}, memory::data_type::f32, memory::format_tag::x),
                                                geometry.output, geometry.strides, geometry.dilates,
                                                geometry.pad_before, geometry.pad_after)
              : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                dnnl::algorithm::convolution_direct, src, any_weights, geometry.output,
                                                geometry.strides, geometry.dilates, geometry.pad_before,
                                                geometry.pad_after);
  dnnl::post_ops post;
  if (added) post.append_sum(1.f);  // the addend, copied into the output (ExecutePiece)
  dnnl::algorithm alg;
  float alpha, beta;
  if (!ActivatesAfter(epilogue) && OnednnEltwise(epilogue, &alg, &alpha, &beta)) {
    post.append_eltwise(1.f, alg, alpha, beta);
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(post);
  // Integer sums back to float, per output channel (dimension 1 of oneDNN's NCHW).
  if (int8_input != 0) attr.set_output_scales(1 << 1, output_scales);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per piece: pieces run at once
  dnnl::convolution_forward::primitive_desc pd(desc, attr, OnednnEngine());
  // On images of a few pixels (ResNet50's last stage trained at 64x64: 2x2) oneDNN's first
  // choice in float, brgconv, ran 2.5x slower than its older direct JIT kernel (16 images,
  // 3x3, 512 to 512 channels, one thread: 9.1 ms against 3.6; a 1x1 from 2048, 3.1 against
  // 2.0; at 4x4, 3.9 against 3.2; at 8x8 brgconv was the faster): take that one there.
  if (operands == memory::data_type::f32 && d.out_rows * d.out_cols <= 16 &&
      std::string(pd.impl_info_str()).rfind("brg", 0) == 0) {
    dnnl::convolution_forward::primitive_desc other = pd;
    while (other.next_impl()) {
      if (std::string(other.impl_info_str()).rfind("jit:avx512", 0) == 0) {
        pd = other;
        break;
      }
    }
  }
  // (bfloat16 with post-ops on a 1x1 image, squeeze-and-excitation's convolutions, fell to
  // the reference loops at 0.1-0.4 ms each.)
  RefuseReference(pd.impl_info_str());
  made->pd = pd;
  std::vector<int> args = {DNNL_ARG_SRC, DNNL_ARG_DST};
  if (shifted) args.push_back(DNNL_ARG_BIAS);
  made->exec = std::make_unique<OnednnExecutable>(pd, dnnl::convolution_forward(pd), std::move(args));
  made->user_weights = geometry.user_weights;
}

bool OnednnConv::Enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("TENSORACT_ONEDNN");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return enabled;
}

std::shared_ptr<OnednnConv::Entry> OnednnConv::EntryFor(const conv::ConvDims& d, bool shifted, bool added, const FusedEpilogue& epilogue,
                                                        bool bfloat16_activations, const Int8Call* int8,
                                                        int64_t first_channel) {
  // bfloat16_ is fixed for the kernel, so the key needs no field for it; a scale is in the
  // weights, not the primitive. Integer products' output scales are the primitive's.
  std::vector<float> output_scales;
  if (int8 != nullptr) {
    output_scales.assign(int8->output_scales.begin() + first_channel,
                         int8->output_scales.begin() + first_channel + d.out_depth);
  }
  const int int8_input = int8 != nullptr ? int8->input_type() : 0;
  const Key key{conv::DimsKey(d), shifted, added, static_cast<int>(epilogue.activation()),
                epilogue.leakyrelu_alpha(), bfloat16_activations, int8_input, output_scales};
  return cache_.Get(key, [&](Entry* made) {
    Make(d, shifted, added, epilogue, bfloat16_, bfloat16_activations, int8_input, output_scales, made);
  });
}

std::unique_ptr<OnednnConv::Int8Call> OnednnConv::PrepareInt8(OpKernelContext* ctx, const conv::ConvDims& d,
                                                              const float* input, const Tensor& filter,
                                                              const ChannelAffine<float>& affine) {
  auto call = std::make_unique<Int8Call>();
  std::vector<float> largest;
  {
    std::lock_guard<std::mutex> lock(int8_mu_);
    const uint64_t epoch = RefVariableWriteEpoch();
    if (!int8_filter_version_.Matches(filter, epoch)) {
      int8_filter_largest_ = LargestAbsPerChannel(filter.base<float>(), filter.NumElements(), d.out_depth);
      int8_filter_version_.Record(filter, epoch);
    }
    largest = int8_filter_largest_;
  }
  for (size_t c = 0; c < largest.size(); ++c) {
    // A NaN or inf in the filter or the scale folded into it: float.
    if (!std::isfinite(largest[c]) || (affine.scale != nullptr && !std::isfinite(affine.scale[c]))) return nullptr;
  }
  if (!QuantizeActivations(ctx, input, d.batch * d.in_rows * d.in_cols * d.in_depth, &call->input)) return nullptr;
  call->filter_scales = FilterInt8Scales(largest, affine.scale);
  const float input_scale = call->input.scale();
  for (size_t c = 0; c < largest.size(); ++c) {
    call->output_scales.push_back(1.f / (input_scale * call->filter_scales[c]));
    if (affine.shift != nullptr) call->bias.push_back(affine.shift[c] / call->output_scales.back());
  }
  return call;
}

bool OnednnConv::Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* input, const Tensor& filter,
                     const ChannelAffine<float>& affine, const FusedEpilogue& epilogue, float* out) {
  return RunPieces(ctx, d, input, filter, affine, affine.addend, epilogue, out, /*bfloat16_activations=*/false);
}

bool OnednnConv::RunBfloat16(OpKernelContext* ctx, const conv::ConvDims& d, const uint16_t* input,
                             const Tensor& filter, const ChannelAffine<float>& affine, const uint16_t* addend,
                             const FusedEpilogue& epilogue, uint16_t* out) {
  return RunPieces(ctx, d, input, filter, affine, addend, epilogue, out, /*bfloat16_activations=*/true);
}

bool OnednnConv::RunPieces(OpKernelContext* ctx, const conv::ConvDims& d, const void* input, const Tensor& filter,
                           const ChannelAffine<float>& affine, const void* addend, const FusedEpilogue& epilogue,
                           void* out, bool bfloat16_activations) {
  using dnnl::memory;
  const bool shifted = affine.shift != nullptr, added = addend != nullptr;
  std::unique_ptr<Int8Call> int8;
  if (int8_ && !bfloat16_activations && d.groups == 1) {
    int8 = PrepareInt8(ctx, d, static_cast<const float*>(input), filter, affine);
  }
  // With int8 products the bias oneDNN adds is divided by the output scales (Int8Call).
  ChannelAffine<float> run_affine = affine;
  if (int8 != nullptr && shifted) run_affine.shift = int8->bias.data();
  const int64_t element = bfloat16_activations ? 2 : 4;  // bytes
  const auto at = [element](const void* base, int64_t offset) {
    return static_cast<char*>(const_cast<void*>(base)) + offset * element;
  };
  // The work in pieces for the device's threads (OnednnRunPieces: one oneDNN thread each):
  // whole images while there are two or more per thread, up to four pieces a thread (ResNet50
  // at batch 32, alternating with two a thread: 1247-1258 ms against 1280-1312), else bands
  // of output rows of each image, one a thread (a band reads the input rows its windows
  // reach, padding only at the image's edges), or slices of the output channels where the
  // filter outweighs the input (OutputChannelPieces). One band a thread rather than two:
  // each thread then computes the same rows of every layer, whose input the layer before
  // left in its own L2 (batch 1 on a Zen 3, four alternations: minima ResNet50 46-54
  // against 55-56 ms, EfficientNetB0 12.8-16.1 against 15.8-16.7; medians within the VM's
  // noise, 63-79 against 70-73 and 17-21 against 20).
  const int threads = conv::NumThreads(ctx);
  const int64_t want = 2 * static_cast<int64_t>(threads);
  const int64_t image_pieces = std::min<int64_t>(d.batch, 2 * want);
  const int64_t images_per_piece = d.batch >= want ? (d.batch + image_pieces - 1) / image_pieces : 1;
  const int64_t in_image = d.in_rows * d.in_cols * d.in_depth, out_image = d.out_rows * d.out_cols * d.out_depth;
  const int64_t channel_pieces = OutputChannelPieces(d, want);
  const int64_t bands = d.batch >= want || channel_pieces > 1
                            ? 1
                            : std::max<int64_t>(1, std::min((threads + d.batch - 1) / d.batch, d.out_rows / 2));
  struct Part {  // a piece of the work and where it lies
    std::shared_ptr<Entry> entry;
    int64_t in_offset, out_offset;  // elements from input and out
  };
  std::vector<Part> pieces;
  try {
    if (channel_pieces > 1) {
      return RunChannelPieces(ctx, d, input, filter, run_affine, addend, epilogue, out, bfloat16_activations,
                              channel_pieces, int8.get());
    }
    for (int64_t image = 0; image < d.batch; image += images_per_piece) {
      for (int64_t band = 0; band < bands; ++band) {
        const int64_t row_begin = band * d.out_rows / bands, row_end = (band + 1) * d.out_rows / bands;
        conv::ConvDims part = d;
        part.batch = std::min(images_per_piece, d.batch - image);
        part.out_rows = row_end - row_begin;
        const int64_t first = row_begin * d.stride_rows - d.pad_top;  // the band's first input row
        const int64_t last = (row_end - 1) * d.stride_rows - d.pad_top + (d.filter_rows - 1) * d.dilation_rows;
        // A band reads on to the next band's first row where the image has it: a strided 1x1
        // band of 7 output rows then reads 14 input rows, not 13, which oneDNN runs on its
        // 1x1 kernel rather than its general one (ResNet50's 1x1 stride-2 convolutions at
        // batch 1: 69 against 31 GFLOP/s on a Zen 3).
        const int64_t reach = std::max(last + 1, row_end * d.stride_rows - d.pad_top);
        const int64_t begin = std::max<int64_t>(first, 0), end = std::min(reach, d.in_rows);
        if (bands > 1) {
          part.in_rows = end - begin;
          part.pad_top = begin - first;
        }
        Part p;
        p.in_offset = image * in_image + (bands > 1 ? begin * d.in_cols * d.in_depth : 0);
        p.out_offset = image * out_image + row_begin * d.out_cols * d.out_depth;
        p.entry = EntryFor(part, shifted, added, epilogue, bfloat16_activations, int8.get());
        if (p.entry->unsupported) return false;
        pieces.push_back(std::move(p));
      }
    }
    // Every piece's layout of the filter, before any piece runs.
    std::vector<std::shared_ptr<memory>> weights;
    for (const Part& p : pieces) {
      weights.push_back(weights_->Get(ctx, p.entry->pd.weights_desc(), p.entry->user_weights, filter, affine.scale,
                                      d.out_depth, int8 != nullptr ? int8->filter_scales.data() : nullptr));
    }
    // With bfloat16 products, the whole float input rounded once (bands of rows overlap).
    Tensor rounded;
    char* operand;
    int64_t operand_element;
    if (!PrimitiveInput(ctx, int8 != nullptr ? &int8->input : nullptr, bfloat16_ && !bfloat16_activations, input,
                        d.batch * in_image, element, &rounded, &operand, &operand_element)) {
      return false;
    }
    auto source = [&](int64_t offset) { return operand + offset * operand_element; };

    // Memory oneDNN could not get, or a primitive that failed to run: our kernel computes
    // all of out.
    return OnednnRunPieces(ctx, static_cast<int64_t>(pieces.size()), [&](int64_t i, dnnl::stream& stream) {
      const Part& p = pieces[i];
      ExecutePiece(*p.entry, *weights[i], source(p.in_offset), at(out, p.out_offset), run_affine,
                   added ? at(addend, p.out_offset) : nullptr, stream);
      ActivateAfter(epilogue, stream, at(out, p.out_offset), p.entry->dst_bytes(),
                    bfloat16_activations);
    });
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

int64_t OnednnConv::OutputChannelPieces(const conv::ConvDims& d, int64_t want) {
  // Bands of rows each read the whole filter: ResNet50's last stage at batch 1 read its 9 MB
  // 3x3 filters three times for a 100 KB image, four times a 1 MB one at 14x14. Pieces of
  // output channels read the filter once between them, the input each. Taken where the batch
  // would be split in bands and the filter is over 4x the input and output (same element
  // type), in slices of at least 64 channels (narrower ones ran slower on oneDNN than the
  // bands: ResNet50's 3x3 layers of 256 at 14x14 in four pieces of 64) and whole blocks of 16.
  // ResNet50 at batch 1, alternating runs: medians 47-53 ms against 52-63 in bands.
  const int64_t filter_elements = d.patch_size() * d.out_depth;
  const int64_t activations = d.batch * (d.in_rows * d.in_cols * d.in_depth + d.out_rows * d.out_cols * d.out_depth);
  if (d.batch >= want || d.groups != 1 || filter_elements <= 4 * activations) return 1;
  for (int64_t pieces = want; pieces >= 2; --pieces) {
    if (d.out_depth % pieces == 0 && (d.out_depth / pieces) % 16 == 0 && d.out_depth / pieces >= 64) return pieces;
  }
  return 1;
}

bool OnednnConv::RunChannelPieces(OpKernelContext* ctx, const conv::ConvDims& d, const void* input,
                                  const Tensor& filter, const ChannelAffine<float>& affine, const void* addend,
                                  const FusedEpilogue& epilogue, void* out, bool bfloat16_activations,
                                  int64_t pieces, const Int8Call* int8) {
  using dnnl::memory;
  const int64_t element = bfloat16_activations ? 2 : 4;  // bytes
  conv::ConvDims part = d;
  part.out_depth = d.out_depth / pieces;
  // One primitive for every slice; with int8 products one each, their output scales differ.
  std::vector<std::shared_ptr<Entry>> entries;
  for (int64_t i = 0; i < (int8 != nullptr ? pieces : 1); ++i) {
    entries.push_back(EntryFor(part, affine.shift != nullptr, addend != nullptr, epilogue, bfloat16_activations, int8,
                               i * part.out_depth));
    if (entries.back()->unsupported) return false;
  }
  const auto entry_of = [&](int64_t i) -> const Entry& { return *entries[int8 != nullptr ? i : 0]; };
  // Each piece's slice of the HWIO filter (its channels, the whole filter's strides), in the
  // primitive's layout; kept per slice.
  const OnednnConvGeometry whole(d, bfloat16_activations ? memory::data_type::bf16 : memory::data_type::f32);
  std::vector<std::shared_ptr<memory>> weights;
  for (int64_t i = 0; i < pieces; ++i) {
    memory::dims dims = whole.user_weights.dims(), offsets(dims.size(), 0);
    dims[0] = part.out_depth;
    offsets[0] = i * part.out_depth;
    weights.push_back(weights_->Get(ctx, entry_of(i).pd.weights_desc(),
                                    whole.user_weights.submemory_desc(dims, offsets), filter, affine.scale,
                                    d.out_depth, int8 != nullptr ? int8->filter_scales.data() + offsets[0] : nullptr));
  }
  Tensor rounded;
  char* source;
  int64_t source_element;
  if (!PrimitiveInput(ctx, int8 != nullptr ? &int8->input : nullptr, bfloat16_ && !bfloat16_activations, input,
                      d.batch * d.in_rows * d.in_cols * d.in_depth, element, &rounded, &source, &source_element)) {
    return false;
  }
  // A primitive writes its channels densely (oneDNN's fast kernels take no strided output):
  // into a piece of its own, the addend's channels gathered there first, then scattered out.
  const int64_t pixels = d.batch * d.out_rows * d.out_cols, row_bytes = part.out_depth * element;
  const int64_t stride_bytes = d.out_depth * element;
  return OnednnRunPieces(ctx, pieces, [&](int64_t i, dnnl::stream& stream) {
    Tensor own;
    const Entry& entry = entry_of(i);
    char* slice = static_cast<char*>(OnednnDeviceMemory(ctx, entry.pd.dst_desc(), &own).get_data_handle());
    const int64_t first = i * row_bytes;
    if (addend != nullptr) {
      const char* from = static_cast<const char*>(addend) + first;
      for (int64_t p = 0; p < pixels; ++p) std::memcpy(slice + p * row_bytes, from + p * stride_bytes, row_bytes);
    }
    ChannelAffine<float> mine = affine;
    if (affine.shift != nullptr) mine.shift = affine.shift + i * part.out_depth;
    ExecutePiece(entry, *weights[i], source, slice, mine, addend != nullptr ? slice : nullptr, stream);
    stream.wait();
    ActivateAfter(epilogue, stream, slice, entry.dst_bytes(), bfloat16_activations);
    char* to = static_cast<char*>(out) + first;
    for (int64_t p = 0; p < pixels; ++p) std::memcpy(to + p * stride_bytes, slice + p * row_bytes, row_bytes);
  });
}

std::shared_ptr<const OnednnConv::Piece> OnednnConv::Prepare(OpKernelContext* ctx, const conv::ConvDims& d,
                                                             const Tensor& filter, const ChannelAffine<float>& affine,
                                                             const FusedEpilogue& epilogue, bool bfloat16_activations) {
  try {
    auto piece = std::make_shared<Piece>();
    piece->input_elements = d.batch * d.in_rows * d.in_cols * d.in_depth;
    piece->dims = d;
    piece->filter = filter;
    piece->epilogue = &epilogue;
    piece->entry = EntryFor(d, affine.shift != nullptr, affine.addend != nullptr, epilogue, bfloat16_activations);
    if (piece->entry->unsupported) return nullptr;
    piece->weights = weights_->Get(ctx, piece->entry->pd.weights_desc(), piece->entry->user_weights, filter,
                                   affine.scale, d.out_depth);
    return piece;
  } catch (const dnnl::error& e) {
    OnednnFellBack(ctx, e.what());
    return nullptr;
  }
}

bool OnednnConv::RunPiece(OpKernelContext* ctx, const Piece& piece, const float* input,
                          const ChannelAffine<float>& affine, float* out, const float* addend) {
  try {
    // The piece's own primitive and weights, or with int8 products those of this call's
    // input scale (float where the call cannot be quantized or oneDNN has no kernel).
    std::shared_ptr<Entry> entry = piece.entry;
    std::shared_ptr<dnnl::memory> weights = piece.weights;
    ChannelAffine<float> run_affine = affine;
    std::unique_ptr<Int8Call> int8;
    if (int8_ && piece.dims.groups == 1) int8 = PrepareInt8(ctx, piece.dims, input, piece.filter, affine);
    if (int8 != nullptr) {
      auto quantized = EntryFor(piece.dims, affine.shift != nullptr, addend != nullptr, *piece.epilogue,
                                /*bfloat16_activations=*/false, int8.get());
      if (quantized->unsupported) {
        int8 = nullptr;
      } else {
        entry = std::move(quantized);
        weights = weights_->Get(ctx, entry->pd.weights_desc(), entry->user_weights, piece.filter, affine.scale,
                                piece.dims.out_depth, int8->filter_scales.data());
        if (affine.shift != nullptr) run_affine.shift = int8->bias.data();
      }
    }
    Tensor rounded;
    char* source;
    int64_t source_element;
    if (!PrimitiveInput(ctx, int8 != nullptr ? &int8->input : nullptr, bfloat16_, input, piece.input_elements,
                        sizeof(float), &rounded, &source, &source_element)) {
      return false;
    }
    return OnednnRunHere(ctx, [&](dnnl::stream& stream) {
      ExecutePiece(*entry, *weights, source, out, run_affine, addend, stream);
      ActivateAfter(*piece.epilogue, stream, out, entry->dst_bytes(), /*bfloat16=*/false);
    });
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

bool OnednnConv::RunPieceBfloat16(OpKernelContext* ctx, const Piece& piece, const uint16_t* input,
                                  const ChannelAffine<float>& affine, uint16_t* out) {
  try {
    return OnednnRunHere(ctx, [&](dnnl::stream& stream) {
      ExecutePiece(*piece.entry, *piece.weights, const_cast<uint16_t*>(input), out, affine, nullptr, stream);
      ActivateAfter(*piece.epilogue, stream, out, piece.entry->dst_bytes(), /*bfloat16=*/true);
    });
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

#else  // !TENSORACT_HAVE_ONEDNN

struct OnednnConv::Entry {};
struct OnednnConv::Piece {};
OnednnConv::OnednnConv() = default;
OnednnConv::~OnednnConv() = default;
bool OnednnConv::Enabled() { return false; }
bool OnednnConv::Run(OpKernelContext*, const conv::ConvDims&, const float*, const Tensor&,
                     const ChannelAffine<float>&, const FusedEpilogue&, float*) {
  return false;
}
bool OnednnConv::RunBfloat16(OpKernelContext*, const conv::ConvDims&, const uint16_t*, const Tensor&,
                             const ChannelAffine<float>&, const uint16_t*, const FusedEpilogue&, uint16_t*) {
  return false;
}
std::shared_ptr<const OnednnConv::Piece> OnednnConv::Prepare(OpKernelContext*, const conv::ConvDims&, const Tensor&,
                                                             const ChannelAffine<float>&, const FusedEpilogue&, bool) {
  return nullptr;
}
bool OnednnConv::RunPiece(OpKernelContext*, const Piece&, const float*, const ChannelAffine<float>&, float*,
                          const float*) {
  return false;
}
bool OnednnConv::RunPieceBfloat16(OpKernelContext*, const Piece&, const uint16_t*, const ChannelAffine<float>&,
                                  uint16_t*) {
  return false;
}

#endif  // TENSORACT_HAVE_ONEDNN

}  // namespace tensoract
