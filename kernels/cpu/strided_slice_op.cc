// StridedSlice and StridedSliceGrad on the CPU. The sparse spec (begin/end/strides with
// their five masks, as Python's x[1:-1:2, ..., tf.newaxis, 3] writes them) is canonicalised
// as TensorFlow's ValidateStridedSliceOp does into one (begin, stride, size) per input
// dimension; the slice is then a box StridedCopy reads (StridedSlice) or writes into zeros
// (StridedSliceGrad).
#include <algorithm>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

struct SliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

// One (begin, stride, size) per input dimension, and the output shape.
struct CanonicalSlice {
  std::vector<int64_t> begin, strides, sizes;  // per input dimension
  std::vector<int64_t> final_dims;             // the output's shape
};

Status Canonicalize(const OpKernel& kernel, const TensorShape& input, std::vector<int64_t> sb,
                    std::vector<int64_t> se, std::vector<int64_t> ss, SliceMasks m, CanonicalSlice* out) {
  int sparse_dims = static_cast<int>(sb.size());
  if (se.size() != sb.size() || ss.size() != sb.size()) {
    return errors::InvalidArgument(NodePrefix(kernel), "Expected begin, end, and strides to be 1D equal size tensors, but got ",
                                   sb.size(), ", ", se.size(), " and ", ss.size(), " values");
  }
  if (sparse_dims >= 32) return errors::InvalidArgument(NodePrefix(kernel), "Too many sparse dims (", sparse_dims, ")");
  bool ellipsis_seen = false;
  int new_axis_after_ellipsis = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && (m.new_axis >> i & 1)) ++new_axis_after_ellipsis;
    if (m.ellipsis >> i & 1) {
      if (ellipsis_seen) return errors::InvalidArgument(NodePrefix(kernel), "Multiple ellipses in slice spec not allowed");
      ellipsis_seen = true;
    }
  }
  if (!ellipsis_seen) {  // an implicit ellipsis at the end
    m.ellipsis |= int64_t{1} << sparse_dims;
    sb.push_back(0);
    se.push_back(0);
    ss.push_back(1);
    ++sparse_dims;
  }
  // The dense spec: one entry per input dimension.
  const int dims = input.dims();
  std::vector<int64_t> db(dims, 0), de(dims, 0), ds(dims, 1);
  std::vector<bool> dbm(dims, false), dem(dims, false), dshrink(dims, false);
  constexpr int64_t kNewAxis = -1, kShrink = -2;
  std::vector<int64_t> gather;  // per output slot: an input dimension, kNewAxis or kShrink
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (m.ellipsis >> i & 1) {
      const int next = std::min(dims - (sparse_dims - i) + 1 + new_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        dbm[full] = dem[full] = true;
        gather.push_back(full);
      }
    } else if (m.new_axis >> i & 1) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        return errors::InvalidArgument(NodePrefix(kernel), "Index out of range using input dim ", full, "; input has only ", dims,
                                       " dims");
      }
      db[full] = sb[i];
      de[full] = se[i];
      ds[full] = ss[i];
      dbm[full] = m.begin >> i & 1;
      dem[full] = m.end >> i & 1;
      dshrink[full] = m.shrink >> i & 1;
      gather.push_back(dshrink[full] ? kShrink : full);
      ++full;
    }
  }
  out->begin.assign(dims, 0);
  out->strides.assign(dims, 1);
  out->sizes.assign(dims, 0);
  for (int i = 0; i < dims; ++i) {
    const int64_t dim = input.dim_size(i), s = ds[i];
    if (s == 0) return errors::InvalidArgument(NodePrefix(kernel), "strides[", i, "] must be non-zero");
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (s > 0) == is_begin ? lo : hi;
      const int64_t fwd = x < 0 ? dim + x : x;
      return std::min(std::max(fwd, lo), hi);
    };
    int64_t b, e;
    if (dshrink[i]) {
      // An index takes one element going forwards (TensorFlow's words follow); a negative
      // stride here once sliced nothing into an output of the index's shape, unwritten.
      if (s < 0) return errors::InvalidArgument(NodePrefix(kernel), "only stride 1 allowed on non-range indexing.");
      b = db[i] < 0 ? dim + db[i] : db[i];
      e = b + 1;
      if (b < 0 || b >= dim) {
        return errors::InvalidArgument(NodePrefix(kernel), "slice index ", db[i], " of dimension ", i, " out of bounds.");
      }
    } else {
      b = canonical(db[i], dbm[i], true);
      e = canonical(de[i], dem[i], false);
    }
    const int64_t len = e - b;
    const int64_t size = (len == 0 || (len < 0) != (s < 0)) ? 0 : len / s + (len % s != 0);
    out->begin[i] = b;
    out->strides[i] = s;
    out->sizes[i] = size;
  }
  out->final_dims.clear();
  for (int64_t g : gather) {
    if (g == kNewAxis) out->final_dims.push_back(1);
    else if (g >= 0) out->final_dims.push_back(out->sizes[g]);
  }
  return Status::OK();
}

SliceMasks ReadMasks(OpKernelConstruction* ctx) {
  SliceMasks m;
  Status s = ctx->GetAttr("begin_mask", &m.begin);
  if (s.ok()) s = ctx->GetAttr("end_mask", &m.end);
  if (s.ok()) s = ctx->GetAttr("ellipsis_mask", &m.ellipsis);
  if (s.ok()) s = ctx->GetAttr("new_axis_mask", &m.new_axis);
  if (s.ok()) s = ctx->GetAttr("shrink_axis_mask", &m.shrink);
  if (!s.ok()) ctx->SetStatus(s);
  return m;
}

// The box of `slice` inside a row-major tensor of `shape`.
StridedView BoxIn(const TensorShape& shape, const CanonicalSlice& slice) {
  StridedView v{0, RowMajorStrides(shape)};
  for (size_t i = 0; i < slice.begin.size(); ++i) {
    v.base += slice.begin[i] * v.strides[i];
    v.strides[i] *= slice.strides[i];
  }
  return v;
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx), masks_(ReadMasks(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    for (int i = 1; i <= 3; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).dims() == 1,
                  errors::InvalidArgument(NodePrefix(*this), "Expected begin, end, and strides to be 1D tensors, "
                                          "but input ", i, " has shape ", ctx->input(i).shape().DebugString()));
    }
    CanonicalSlice slice;
    OP_REQUIRES_OK(ctx, Canonicalize(*this, input.shape(), IndexValues(ctx->input(1)),
                                     IndexValues(ctx->input(2)), IndexValues(ctx->input(3)), masks_, &slice));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(slice.final_dims), &out));
    StridedCopy(ctx, input, BoxIn(input.shape(), slice), out, {0, RowMajorStrides(TensorShape(slice.sizes))},
                slice.sizes);
  }

 private:
  SliceMasks masks_;
};

class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx), masks_(ReadMasks(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "shape must be 1-D, not ", shape_t.shape().DebugString()));
    std::vector<int64_t> dims = IndexValues(shape_t);
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d >= 0, errors::InvalidArgument(NodePrefix(*this), "shape has a negative dimension ", d));
    }
    const TensorShape shape(dims);
    CanonicalSlice slice;
    OP_REQUIRES_OK(ctx, Canonicalize(*this, shape, IndexValues(ctx->input(1)),
                                     IndexValues(ctx->input(2)), IndexValues(ctx->input(3)), masks_, &slice));
    OP_REQUIRES(ctx, TensorShape(slice.final_dims) == dy.shape(),
                errors::InvalidArgument(NodePrefix(*this), "shape of dy was ", dy.shape().DebugString(),
                                        " instead of ", TensorShape(slice.final_dims).DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    FillElements(ctx, nullptr, out);
    StridedCopy(ctx, dy, {0, RowMajorStrides(TensorShape(slice.sizes))}, out, BoxIn(shape, slice), slice.sizes);
  }

 private:
  SliceMasks masks_;
};

REGISTER_KERNEL(Name("StridedSlice").Device(DEVICE_CPU), StridedSliceOp);
REGISTER_KERNEL(Name("StridedSliceGrad").Device(DEVICE_CPU), StridedSliceGradOp);
// On a GPU the same kernel (its element moves go to the GPU: strided_copy.h); index
// inputs must be int32, which stays in host memory there.
REGISTER_KERNEL(Name("StridedSlice").Device(DEVICE_GPU).TypeConstraint<int32_t>("Index"), StridedSliceOp);
REGISTER_KERNEL(Name("StridedSliceGrad").Device(DEVICE_GPU).TypeConstraint<int32_t>("Index"), StridedSliceGradOp);

}  // namespace
}  // namespace tensoract
