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
    return errors::InvalidArgument(NodeContext(ctx), ": the CPU kernel supports only the NHWC data format, not ",
                                   data_format, " (as TensorFlow's CPU kernels)");
  }
  TA_RETURN_IF_ERROR(ReadFour(ctx, "strides", "strides", &attrs->strides));
  if (attrs->strides[0] != 1 || attrs->strides[3] != 1) {
    return errors::Unimplemented(NodeContext(ctx),
                                 ": strides in the batch and depth dimensions are not supported, got [",
                                 attrs->strides[0], ",", attrs->strides[1], ",", attrs->strides[2], ",",
                                 attrs->strides[3], "]");
  }
  attrs->dilations = {1, 1, 1, 1};
  if (has_dilations) {
    TA_RETURN_IF_ERROR(ReadFour(ctx, "dilations", "dilations", &attrs->dilations));
    if (attrs->dilations[0] != 1 || attrs->dilations[3] != 1) {
      return errors::Unimplemented(NodeContext(ctx), ": dilations in the batch and depth dimensions are not supported");
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
  } else {
    return errors::Unimplemented(NodeContext(ctx), ": padding ", padding,
                                 " is not supported on the CPU; use SAME or VALID");
  }
  return Status::OK();
}

Status WindowedOutputSize(int64_t in, int64_t k, int64_t dilation, int64_t stride, Padding padding, int64_t* out,
                          int64_t* pad_before) {
  const int64_t effective = (k - 1) * dilation + 1;
  if (padding == Padding::kSame) {
    *out = (in + stride - 1) / stride;
    const int64_t needed = std::max<int64_t>(0, (*out - 1) * stride + effective - in);
    *pad_before = needed / 2;
  } else {
    *out = (in - effective + stride) / stride;
    *pad_before = 0;
  }
  if (*out < 0) {
    return errors::InvalidArgument("computed output size would be negative: input size ", in, ", window size ",
                                   effective, " (", k, " taps, dilation ", dilation, "), stride ", stride,
                                   ", VALID padding");
  }
  return Status::OK();
}

Status ComputeConvDims(const WindowAttrs& attrs, ConvDims* d) {
  d->stride_rows = attrs.strides[1];
  d->stride_cols = attrs.strides[2];
  d->dilation_rows = attrs.dilations[1];
  d->dilation_cols = attrs.dilations[2];
  Status s = WindowedOutputSize(d->in_rows, d->filter_rows, d->dilation_rows, d->stride_rows, attrs.padding,
                                &d->out_rows, &d->pad_top);
  if (!s.ok()) return s.WithContext("rows");
  s = WindowedOutputSize(d->in_cols, d->filter_cols, d->dilation_cols, d->stride_cols, attrs.padding, &d->out_cols,
                         &d->pad_left);
  if (!s.ok()) return s.WithContext("columns");
  return Status::OK();
}

Status ConvDimsFromShapes(const OpKernel& kernel, const WindowAttrs& attrs, const TensorShape& input,
                          const TensorShape& filter, ConvDims* d) {
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
  if (filter_depth != d->in_depth) {
    return errors::Unimplemented(NodeContext(kernel), ": grouped convolutions (input depth ", d->in_depth,
                                 ", filter depth ", filter_depth, ") are not supported on the CPU");
  }
  Status s = ComputeConvDims(attrs, d);
  if (!s.ok()) {
    return s.WithContext(StrCat(NodeContext(kernel), ": input ", input.DebugString(), ", filter ",
                                filter.DebugString()));
  }
  return Status::OK();
}

}  // namespace conv
}  // namespace tensoract
