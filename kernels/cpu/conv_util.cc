// Window attrs and output geometry of the CPU convolution and pooling kernels.
#include "kernels/cpu/conv_util.h"

namespace tensoract {
namespace conv {
namespace {

Status ReadFour(OpKernelConstruction* ctx, const std::string& attr, const std::string& what,
                std::vector<int64_t>* values) {
  TA_RETURN_IF_ERROR(ctx->GetAttr(attr, values));
  if (values->size() != 4) {
    return errors::InvalidArgument(NodeContext(ctx), ": sliding window ", what, " field must specify 4 dimensions, got ",
                                   values->size());
  }
  for (int64_t v : *values) {
    if (v <= 0) return errors::InvalidArgument(NodeContext(ctx), ": ", what, " must be positive, got ", v);
  }
  return Status::OK();
}

}  // namespace

Status ReadWindowAttrs(OpKernelConstruction* ctx, bool has_dilations, bool has_ksize, WindowAttrs* attrs) {
  std::string data_format = "NHWC";
  if (ctx->GetAttr("data_format", &data_format).ok() && data_format != "NHWC") {
    // TensorFlow's Conv2D calls it unimplemented, its gradients and pools invalid.
    const std::string& op = ctx->def().op();
    const bool forward_conv = op == "Conv2D" || op == "_FusedConv2D";
    return Status(forward_conv ? error::UNIMPLEMENTED : error::INVALID_ARGUMENT,
                  StrCat(NodeContext(ctx), ": the CPU kernel supports only the NHWC data format, not ", data_format,
                         " (as TensorFlow's CPU kernels)"));
  }
  // TensorFlow's convolution gradients call batch and depth strides and dilations invalid,
  // its Conv2D and pools unimplemented.
  const error::Code unsupported =
      ctx->def().op().find("Backprop") != std::string::npos ? error::INVALID_ARGUMENT : error::UNIMPLEMENTED;
  TA_RETURN_IF_ERROR(ReadFour(ctx, "strides", "strides", &attrs->strides));
  if (attrs->strides[0] != 1 || attrs->strides[3] != 1) {
    return Status(unsupported, StrCat(NodeContext(ctx), ": strides in the batch and depth dimensions are not "
                                      "supported, got [", attrs->strides[0], ",", attrs->strides[1], ",",
                                      attrs->strides[2], ",", attrs->strides[3], "]"));
  }
  attrs->dilations = {1, 1, 1, 1};
  if (has_dilations) {
    TA_RETURN_IF_ERROR(ReadFour(ctx, "dilations", "dilations", &attrs->dilations));
    if (attrs->dilations[0] != 1 || attrs->dilations[3] != 1) {
      return Status(unsupported,
                    StrCat(NodeContext(ctx), ": dilations in the batch and depth dimensions are not supported"));
    }
  }
  if (has_ksize) {
    TA_RETURN_IF_ERROR(ReadFour(ctx, "ksize", "ksize", &attrs->ksize));
    if (attrs->ksize[0] != 1) {
      return errors::Unimplemented(NodeContext(ctx), ": pooling is not yet supported on the batch dimension");
    }
    if (attrs->ksize[3] != 1) {
      return errors::Unimplemented(NodeContext(ctx), ": pooling over the depth dimension is not supported on the CPU");
    }
  }
  std::string padding;
  TA_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  if (padding == "SAME") {
    attrs->padding = Padding::kSame;
  } else if (padding == "VALID") {
    attrs->padding = Padding::kValid;
  } else if (padding == "EXPLICIT") {  // convolutions, MaxPool and MaxPoolGrad (AvgPool's op has no EXPLICIT)
    attrs->padding = Padding::kExplicit;
    TA_RETURN_IF_ERROR(ctx->GetAttr("explicit_paddings", &attrs->explicit_paddings));
    const std::vector<int64_t>& p = attrs->explicit_paddings;
    if (p.size() != 8) {
      return errors::InvalidArgument(NodeContext(ctx), ": explicit_paddings attribute must contain 8 values, but got: ",
                                     p.size());
    }
    for (int64_t v : p) {
      if (v < 0) {
        return errors::InvalidArgument(NodeContext(ctx), ": all elements of explicit_paddings must be nonnegative, got ",
                                       v);
      }
    }
    if (p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0) {
      return errors::InvalidArgument(NodeContext(ctx),
                                     ": nonzero explicit padding in the batch or depth dimensions is not supported");
    }
  } else {
    return errors::Unimplemented(NodeContext(ctx), ": padding ", padding,
                                 " is not supported on the CPU; use SAME or VALID");
  }
  return Status::OK();
}

Status WindowedOutputSize(int64_t in, int64_t k, int64_t dilation, int64_t stride, Padding padding,
                          std::pair<int64_t, int64_t> explicit_pad, int64_t* out, int64_t* pad_before) {
  const int64_t effective = (k - 1) * dilation + 1;
  if (padding == Padding::kSame) {
    *out = (in + stride - 1) / stride;
    const int64_t needed = std::max<int64_t>(0, (*out - 1) * stride + effective - in);
    *pad_before = needed / 2;
  } else {
    const bool explicit_padding = padding == Padding::kExplicit;
    *pad_before = explicit_padding ? explicit_pad.first : 0;
    const int64_t padded = in + (explicit_padding ? explicit_pad.first + explicit_pad.second : 0);
    *out = (padded - effective + stride) / stride;
  }
  if (*out < 0) {
    return errors::InvalidArgument("computed output size would be negative: input size ", in, ", window size ",
                                   effective, " (", k, " taps, dilation ", dilation, "), stride ", stride,
                                   padding == Padding::kExplicit ? ", explicit padding " : ", VALID padding",
                                   padding == Padding::kExplicit
                                       ? StrCat(explicit_pad.first, " before and ", explicit_pad.second, " after")
                                       : std::string());
  }
  return Status::OK();
}

Status ComputeConvDims(const WindowAttrs& attrs, ConvDims* d) {
  d->stride_rows = attrs.strides[1];
  d->stride_cols = attrs.strides[2];
  d->dilation_rows = attrs.dilations[1];
  d->dilation_cols = attrs.dilations[2];
  const std::vector<int64_t>& p = attrs.explicit_paddings;
  Status s = WindowedOutputSize(d->in_rows, d->filter_rows, d->dilation_rows, d->stride_rows, attrs.padding,
                                {p[2], p[3]}, &d->out_rows, &d->pad_top);
  if (!s.ok()) return s.WithContext("rows");
  s = WindowedOutputSize(d->in_cols, d->filter_cols, d->dilation_cols, d->stride_cols, attrs.padding, {p[4], p[5]},
                         &d->out_cols, &d->pad_left);
  if (!s.ok()) return s.WithContext("columns");
  return Status::OK();
}

Status ConvDimsFromShapes(const OpKernel& kernel, const WindowAttrs& attrs, const TensorShape& input,
                          const TensorShape& filter, ConvDims* d, bool allow_groups) {
  if (input.dims() != 4) {
    return errors::InvalidArgument(NodeContext(kernel), ": input must be 4-dimensional [batch, rows, cols, depth], got ",
                                   input.DebugString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument(NodeContext(kernel),
                                   ": filter must be 4-dimensional [rows, cols, in_depth, out_depth], got ",
                                   filter.DebugString());
  }
  d->batch = input.dim_size(0);
  d->in_rows = input.dim_size(1);
  d->in_cols = input.dim_size(2);
  d->in_depth = input.dim_size(3);
  d->filter_rows = filter.dim_size(0);
  d->filter_cols = filter.dim_size(1);
  d->out_depth = filter.dim_size(3);
  const int64_t filter_depth = filter.dim_size(2);
  if (filter_depth == 0 || d->in_depth % filter_depth != 0) {
    return errors::InvalidArgument(NodeContext(kernel), ": input depth must be evenly divisible by filter depth: ",
                                   d->in_depth, " vs ", filter_depth, " (input ", input.DebugString(), ", filter ",
                                   filter.DebugString(), ")");
  }
  d->groups = d->in_depth / filter_depth;
  if (d->groups > 1 && !allow_groups) {
    // TensorFlow's words (and code) for its CPU gradients of a grouped convolution.
    return errors::InvalidArgument(NodeContext(kernel), ": gradients for grouped convolutions are not supported on "
                                   "the CPU (input depth ", d->in_depth, ", filter depth ", filter_depth, ")");
  }
  if (d->groups > 1 && (d->out_depth % d->groups != 0 || d->out_depth < d->groups)) {
    return errors::InvalidArgument(NodeContext(kernel), ": output depth must be evenly divisible by number of groups: ",
                                   d->out_depth, " vs ", d->groups);
  }
  Status s = ComputeConvDims(attrs, d);
  if (!s.ok()) {
    return s.WithContext(StrCat(NodeContext(kernel), ": input ", input.DebugString(), ", filter ",
                                filter.DebugString()));
  }
  return Status::OK();
}

// The window geometry of a pool over `input` [batch, rows, cols, depth].
Status PoolDims(const OpKernel& kernel, const WindowAttrs& attrs, const TensorShape& input, ConvDims* d) {
  if (input.dims() != 4) {
    return errors::InvalidArgument(NodeContext(kernel), ": input must be 4-dimensional [batch, rows, cols, depth], got ",
                                   input.DebugString());
  }
  d->batch = input.dim_size(0);
  d->in_rows = input.dim_size(1);
  d->in_cols = input.dim_size(2);
  d->in_depth = d->out_depth = input.dim_size(3);
  d->filter_rows = attrs.ksize[1];
  d->filter_cols = attrs.ksize[2];
  if (attrs.padding == Padding::kExplicit) {
    // Every window must hold an element of the input (TensorFlow's check).
    const char* sides[] = {"Top", "Bottom", "Left", "Right"};
    for (int i = 0; i < 4; ++i) {
      const int64_t pad = attrs.explicit_paddings[2 + i], window = i < 2 ? d->filter_rows : d->filter_cols;
      if (pad >= window) {
        return errors::InvalidArgument(NodeContext(kernel), ": ", sides[i], " padding ", pad,
                                       " needs to be smaller than the window size ", window);
      }
    }
  }
  Status s = ComputeConvDims(attrs, d);
  if (!s.ok()) {
    return s.WithContext(StrCat(NodeContext(kernel), ": input ", input.DebugString(), ", ksize [1,",
                                d->filter_rows, ",", d->filter_cols, ",1]"));
  }
  return Status::OK();
}

TensorShape PoolOutputShape(const ConvDims& d) { return TensorShape({d.batch, d.out_rows, d.out_cols, d.in_depth}); }

Status CheckPoolOutputShape(const OpKernel& kernel, const char* what, const TensorShape& shape, const ConvDims& d) {
  if (shape != PoolOutputShape(d)) {
    return errors::InvalidArgument(NodeContext(kernel), ": ", what, " has shape ", shape.DebugString(),
                                   " but the pool's output has shape ", PoolOutputShape(d).DebugString());
  }
  return Status::OK();
}

Status PoolInputShape(const OpKernel& kernel, const Tensor& sizes, TensorShape* shape) {
  if (sizes.dims() != 1 || sizes.NumElements() != 4 || sizes.dtype() != tensorflow::DT_INT32) {
    return errors::InvalidArgument(NodeContext(kernel), ": orig_input_shape must be an int32 vector of 4 elements, got shape ",
                                   sizes.shape().DebugString());
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < 4; ++i) {
    const int32_t v = sizes.base<int32_t>()[i];
    if (v < 0) return errors::InvalidArgument(NodeContext(kernel), ": orig_input_shape has a negative size ", v);
    dims.push_back(v);
  }
  *shape = TensorShape(dims);
  return Status::OK();
}

// A shape given as an int32 vector input (input_sizes, filter_sizes).
Status ShapeFromSizes(const OpKernel& kernel, const std::string& arg, const Tensor& sizes, TensorShape* shape) {
  if (sizes.dims() != 1 || sizes.dtype() != tensorflow::DT_INT32) {
    return errors::InvalidArgument(NodeContext(kernel), ": ", arg, " must be an int32 vector, got ",
                                   sizes.shape().DebugString());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < sizes.NumElements(); ++i) {
    const int32_t v = sizes.base<int32_t>()[i];
    if (v < 0) return errors::InvalidArgument(NodeContext(kernel), ": ", arg, " has a negative size ", v);
    dims.push_back(v);
  }
  *shape = TensorShape(dims);
  return Status::OK();
}

}  // namespace conv
}  // namespace tensoract
