// Conv2D's gradients through oneDNN (see onednn_conv_grad.h).
#include "kernels/cpu/onednn_conv_grad.h"

#include <algorithm>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/onednn_conv.h"

#ifdef TENSORACT_HAVE_ONEDNN
#include "kernels/cpu/onednn_util.h"
#endif

namespace tensoract {

#ifdef TENSORACT_HAVE_ONEDNN

namespace {

using dnnl::memory;

// The forward convolution a backward one is made for (oneDNN asks for it as a hint).
dnnl::convolution_forward::primitive_desc ForwardHint(const OnednnConvGeometry& g, const memory::desc& any_weights) {
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                       g.input, any_weights, g.output, g.strides, g.dilates, g.pad_before,
                                       g.pad_after);
  return dnnl::convolution_forward::primitive_desc(desc, OnednnEngine());
}

// What both gradients hand to oneDNN: built in and on, no groups, nothing empty.
bool Covers(const conv::ConvDims& d) {
  return OnednnConv::Enabled() && d.groups == 1 && d.batch > 0 && d.patch_size() > 0 && d.out_depth > 0;
}

// `d` over images [first, first + count).
conv::ConvDims Images(const conv::ConvDims& d, int64_t count) {
  conv::ConvDims part = d;
  part.batch = count;
  return part;
}

}  // namespace

struct OnednnConvBackpropInput::Entry {
  bool unsupported = false;
  dnnl::convolution_backward_data::primitive_desc pd;
  std::unique_ptr<OnednnExecutable> exec;  // run on the output's and the input's gradients
  memory::desc user_weights;
};

OnednnConvBackpropInput::OnednnConvBackpropInput() = default;
OnednnConvBackpropInput::~OnednnConvBackpropInput() = default;

bool OnednnConvBackpropInput::Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* filter,
                                  const float* out_backprop, float* input_grad) {
  if (!Covers(d)) return false;
  // Two pieces of whole images per thread where there are enough images.
  const int64_t want = 2 * static_cast<int64_t>(conv::NumThreads(ctx));
  const int64_t per_piece = (d.batch + want - 1) / want;
  const int64_t pieces = (d.batch + per_piece - 1) / per_piece;
  const int64_t in_image = d.in_rows * d.in_cols * d.in_depth, out_image = d.out_rows * d.out_cols * d.out_depth;
  try {
    std::vector<std::shared_ptr<Entry>> entries;  // per piece: two shapes at most
    for (int64_t i = 0; i < pieces; ++i) {
      const conv::ConvDims part = Images(d, std::min(per_piece, d.batch - i * per_piece));
      entries.push_back(cache_.Get(conv::DimsKey(part), [&](Entry* made) {
        const OnednnConvGeometry g(part);
        const memory::desc any_weights(g.user_weights.dims(), memory::data_type::f32, memory::format_tag::any);
        dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, g.input, any_weights, g.output,
                                                   g.strides, g.dilates, g.pad_before, g.pad_after);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per piece: pieces run at once
        made->pd = dnnl::convolution_backward_data::primitive_desc(desc, attr, OnednnEngine(),
                                                                    ForwardHint(g, any_weights));
        RefuseReference(made->pd.impl_info_str());
        made->exec = std::make_unique<OnednnExecutable>(made->pd, dnnl::convolution_backward_data(made->pd),
                                                        std::vector<int>{DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC});
        made->user_weights = g.user_weights;
      }));
      if (entries.back()->unsupported) return false;
    }
    // The filter in each piece's layout (the same for both shapes, as a rule): reordered
    // here, once, before the pieces run.
    std::vector<Tensor> holders(pieces);
    std::vector<memory> weights;
    for (int64_t i = 0; i < pieces; ++i) {
      const memory::desc& layout = entries[i]->pd.weights_desc();
      if (i > 0 && layout == weights.back().get_desc()) {
        weights.push_back(weights.back());
        continue;
      }
      weights.push_back(OnednnDeviceMemory(ctx, layout, &holders[i]));
      const memory hwio(entries[i]->user_weights, OnednnEngine(), const_cast<float*>(filter));
      OnednnReorderInPieces(ctx, hwio, weights.back());
    }
    return OnednnRunPieces(ctx, pieces, [&](int64_t i, dnnl::stream& s) {
      entries[i]->exec->Run(s, {const_cast<float*>(out_backprop + i * per_piece * out_image),
                                input_grad + i * per_piece * in_image},
                            &weights[i]);
    });
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

struct OnednnConvBackpropFilter::Entry {
  bool unsupported = false;
  dnnl::convolution_backward_weights::primitive_desc pd;
  // Run on the input, the output's gradient, the filter's in oneDNN's layout (and the
  // bias'); then reordered into HWIO.
  std::unique_ptr<OnednnExecutable> exec;
  dnnl::reorder to_hwio;
  memory::desc user_weights;
};

OnednnConvBackpropFilter::OnednnConvBackpropFilter() = default;
OnednnConvBackpropFilter::~OnednnConvBackpropFilter() = default;

bool OnednnConvBackpropFilter::Run(OpKernelContext* ctx, const conv::ConvDims& d, const float* input,
                                   const float* out_backprop, float* filter_grad, float* bias_grad) {
  if (!Covers(d)) return false;
  // One part of the images per thread, each summed into its own partial gradient.
  const int64_t parts = std::min<int64_t>(d.batch, conv::NumThreads(ctx));
  const int64_t in_image = d.in_rows * d.in_cols * d.in_depth, out_image = d.out_rows * d.out_cols * d.out_depth;
  const int64_t filter_size = d.patch_size() * d.out_depth;
  auto first_image = [&](int64_t p) { return d.batch * p / parts; };
  try {
    std::vector<std::shared_ptr<Entry>> entries;
    for (int64_t p = 0; p < parts; ++p) {
      const conv::ConvDims part = Images(d, first_image(p + 1) - first_image(p));
      std::vector<int64_t> key = conv::DimsKey(part);
      key.push_back(bias_grad != nullptr);
      entries.push_back(cache_.Get(key, [&](Entry* made) {
        const OnednnConvGeometry g(part);
        const memory::desc any_weights(g.user_weights.dims(), memory::data_type::f32, memory::format_tag::any);
        const memory::desc bias = bias_grad != nullptr
                                      ? memory::desc({d.out_depth}, memory::data_type::f32, memory::format_tag::x)
                                      : memory::desc();
        dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, g.input, any_weights, bias,
                                                      g.output, g.strides, g.dilates, g.pad_before, g.pad_after);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        made->pd = dnnl::convolution_backward_weights::primitive_desc(desc, attr, OnednnEngine(),
                                                                       ForwardHint(g, any_weights));
        RefuseReference(made->pd.impl_info_str());
        std::vector<int> args = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS};
        if (bias_grad != nullptr) args.push_back(DNNL_ARG_DIFF_BIAS);
        made->exec = std::make_unique<OnednnExecutable>(made->pd, dnnl::convolution_backward_weights(made->pd),
                                                        std::move(args));
        made->user_weights = g.user_weights;
        made->to_hwio = dnnl::reorder(dnnl::reorder::primitive_desc(OnednnEngine(), made->pd.diff_weights_desc(),
                                                                    OnednnEngine(), g.user_weights));
      }));
      if (entries.back()->unsupported) return false;
    }
    // Part 0 writes the results; the others their partials, added at the end.
    std::vector<Tensor> partial_filter(parts), partial_bias(parts);
    for (int64_t p = 1; p < parts; ++p) {
      OnednnDeviceMemory(ctx, memory::desc({filter_size}, memory::data_type::f32, memory::format_tag::x),
                         &partial_filter[p]);
      if (bias_grad == nullptr) continue;
      OnednnDeviceMemory(ctx, memory::desc({d.out_depth}, memory::data_type::f32, memory::format_tag::x),
                         &partial_bias[p]);
    }
    auto filter_dst = [&](int64_t p) { return p == 0 ? filter_grad : static_cast<float*>(partial_filter[p].data()); };
    auto bias_dst = [&](int64_t p) { return p == 0 ? bias_grad : static_cast<float*>(partial_bias[p].data()); };
    const bool ran = OnednnRunPieces(ctx, parts, [&](int64_t p, dnnl::stream& s) {
      const Entry& entry = *entries[p];
      Tensor blocked;
      memory grad = OnednnDeviceMemory(ctx, entry.pd.diff_weights_desc(), &blocked);
      float* source = const_cast<float*>(input + first_image(p) * in_image);
      float* backprop = const_cast<float*>(out_backprop + first_image(p) * out_image);
      if (bias_grad != nullptr) {
        entry.exec->Run(s, {source, backprop, grad.get_data_handle(), bias_dst(p)});
      } else {
        entry.exec->Run(s, {source, backprop, grad.get_data_handle()});
      }
      // Out of the blocked layout into HWIO.
      memory hwio(entry.user_weights, OnednnEngine(), filter_dst(p));
      entry.to_hwio.execute(s, grad, hwio);
      s.wait();
    });
    if (!ran) return false;
    if (parts > 1) {
      CwiseParallelFor(ctx, filter_size, parts, [&](int64_t begin, int64_t end) {
        for (int64_t p = 1; p < parts; ++p) {
          const float* from = static_cast<const float*>(partial_filter[p].data());
          for (int64_t i = begin; i < end; ++i) filter_grad[i] += from[i];
        }
      });
      for (int64_t p = 1; p < parts && bias_grad != nullptr; ++p) {
        const float* from = static_cast<const float*>(partial_bias[p].data());
        for (int64_t j = 0; j < d.out_depth; ++j) bias_grad[j] += from[j];
      }
    }
    return true;
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

#else  // !TENSORACT_HAVE_ONEDNN

struct OnednnConvBackpropInput::Entry {};
OnednnConvBackpropInput::OnednnConvBackpropInput() = default;
OnednnConvBackpropInput::~OnednnConvBackpropInput() = default;
bool OnednnConvBackpropInput::Run(OpKernelContext*, const conv::ConvDims&, const float*, const float*, float*) {
  return false;
}

struct OnednnConvBackpropFilter::Entry {};
OnednnConvBackpropFilter::OnednnConvBackpropFilter() = default;
OnednnConvBackpropFilter::~OnednnConvBackpropFilter() = default;
bool OnednnConvBackpropFilter::Run(OpKernelContext*, const conv::ConvDims&, const float*, const float*, float*,
                                   float*) {
  return false;
}

#endif  // TENSORACT_HAVE_ONEDNN

}  // namespace tensoract
