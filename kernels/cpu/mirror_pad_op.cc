// MirrorPad and MirrorPadGrad on the CPU.
//
// Along one dimension a mirror-padded output is three pieces: the `before` padding (the
// input's first elements, backwards), the input, and the `after` padding (its last ones,
// backwards); REFLECT leaves the edge element out of the copies, SYMMETRIC repeats it. So
// the output is at most 3^rank boxes, each an affine view of the input: MirrorPad is one
// StridedCopy per box, for every dtype.
//
// MirrorPadGrad folds the padded gradient back as TensorFlow's kernel does, one dimension
// at a time on a scratch copy: each padding slab, reversed, is added onto the elements it
// copied, then the next dimension is folded within the central part. The sums are TensorFlow's,
// in its order.
#include <Eigen/Core>

#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

// TensorFlow's kernels take ranks 0 to 5.
constexpr int kMaxRank = 5;

// 1 for REFLECT (the edge is not repeated), 0 for SYMMETRIC.
Status ReadOffset(OpKernelConstruction* ctx, int* offset) {
  std::string mode;
  TA_RETURN_IF_ERROR(ctx->GetAttr("mode", &mode));
  if (mode == "REFLECT") *offset = 1;
  else if (mode == "SYMMETRIC") *offset = 0;
  else return errors::InvalidArgument("mode must be either REFLECT or SYMMETRIC, not ", mode);
  return Status::OK();
}

// The rank and paddings checks both kernels share, in TensorFlow's order and words.
Status CheckRankAndPaddings(const OpKernel& k, const Tensor& input, const Tensor& paddings_t, const char* sep) {
  const int rank = input.dims();
  if (rank > kMaxRank) return errors::Unimplemented(NodePrefix(k), "inputs rank not in [0,", kMaxRank, "]: ", rank);
  if (paddings_t.dims() != 2 || paddings_t.dim_size(1) != 2) {
    return errors::InvalidArgument(NodePrefix(k), "paddings must be a matrix with 2 columns: ",
                                   paddings_t.shape().DebugString());
  }
  if (paddings_t.dim_size(0) != rank) {
    return errors::InvalidArgument(NodePrefix(k), "The first dimension of paddings must be the rank of inputs",
                                   paddings_t.shape().DebugString(), sep, input.shape().DebugString());
  }
  return Status::OK();
}

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadOffset(ctx, &offset_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings_t = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckRankAndPaddings(*this, input, paddings_t, ", "));
    const int rank = input.dims();
    const std::vector<int64_t> paddings = IndexValues(paddings_t);
    std::vector<int64_t> dims(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[2 * d], after = paddings[2 * d + 1], n = input.dim_size(d);
      OP_REQUIRES(ctx, before >= 0 && after >= 0,
                  errors::InvalidArgument(NodePrefix(*this), "paddings must be non-negative: ", before, " ", after));
      if (offset_ == 0) {
        OP_REQUIRES(ctx, before <= n && after <= n,
                    errors::InvalidArgument(NodePrefix(*this), "paddings must be no greater than the dimension size: ",
                                            before, ", ", after, " greater than ", n));
      } else {
        OP_REQUIRES(ctx, before < n && after < n,
                    errors::InvalidArgument(NodePrefix(*this), "paddings must be less than the dimension size: ",
                                            before, ", ", after, " not less than ", n));
      }
      dims[d] = before + n + after;
    }
    const TensorShape out_shape(dims);
    if (out_shape == input.shape()) {  // nothing to pad
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
    const std::vector<int64_t> out_strides = RowMajorStrides(out_shape);
    // Box `box` picks piece (box / 3^d) % 3 along dimension d: 0 before, 1 the input, 2 after.
    int boxes = 1;
    for (int d = 0; d < rank; ++d) boxes *= 3;
    for (int box = 0; box < boxes; ++box) {
      StridedView src{0, std::vector<int64_t>(rank)}, dst{0, out_strides};
      std::vector<int64_t> extent(rank);
      bool empty = false;
      for (int d = 0, b = box; d < rank; ++d, b /= 3) {
        const int64_t before = paddings[2 * d], after = paddings[2 * d + 1], n = input.dim_size(d);
        // The piece's length, where it starts in the input and the output, and its direction.
        int64_t from = 0, to = 0, step = 1;
        if (b % 3 == 0) {
          extent[d] = before, from = before - 1 + offset_, to = 0, step = -1;
        } else if (b % 3 == 1) {
          extent[d] = n, from = 0, to = before, step = 1;
        } else {
          extent[d] = after, from = n - 1 - offset_, to = before + n, step = -1;
        }
        empty |= extent[d] == 0;
        src.base += from * in_strides[d];
        src.strides[d] = step * in_strides[d];
        dst.base += to * out_strides[d];
      }
      if (!empty) StridedCopy(ctx, input, src, out, dst, extent);
    }
  }

 private:
  int offset_ = 0;
};

// dst[i] += src[i] over the box `dims`, both seen through strided views of one buffer.
template <class T>
void AddBox(T* data, const StridedView& dst, const StridedView& src, const std::vector<int64_t>& dims) {
  const int rank = static_cast<int>(dims.size());
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t s = src.base, t = dst.base;
    for (int d = 0; d < rank; ++d) {
      s += index[d] * src.strides[d];
      t += index[d] * dst.strides[d];
    }
    data[t] = data[t] + data[s];
    for (int d = rank - 1; d >= 0 && ++index[d] == dims[d]; --d) index[d] = 0;
  }
}

template <class T>
class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadOffset(ctx, &offset_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings_t = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckRankAndPaddings(*this, input, paddings_t, " "));
    const int rank = input.dims();
    const std::vector<int64_t> paddings = IndexValues(paddings_t);
    std::vector<int64_t> dims(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[2 * d], after = paddings[2 * d + 1], n = input.dim_size(d);
      OP_REQUIRES(ctx, before >= 0 && after >= 0,
                  errors::InvalidArgument(NodePrefix(*this), "Paddings must be non-negative: ", before, ", ", after));
      OP_REQUIRES(ctx, before + after < n,
                  errors::InvalidArgument(NodePrefix(*this),
                                          "Total paddings must be less than the input dimension size: ", before + after,
                                          " was not less than ", n));
      const int64_t out_n = n - before - after;
      if (offset_ == 0) {
        OP_REQUIRES(ctx, before <= out_n && after <= out_n,
                    errors::InvalidArgument(NodePrefix(*this),
                                            "paddings must be no greater than the output dimension size: ", before,
                                            ", ", after, " greater than ", out_n));
      } else {
        OP_REQUIRES(ctx, before < out_n && after < out_n,
                    errors::InvalidArgument(NodePrefix(*this), "paddings must be less than the output dimension size: ",
                                            before, ", ", after, " not less than ", out_n));
      }
      dims[d] = out_n;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (out->NumElements() == 0) return;
    Tensor scratch = input.DeepCopy();
    T* data = scratch.base<T>();
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    // The box being folded: the central part along the dimensions already folded, all of
    // the others.
    std::vector<int64_t> extent = input.shape().dim_sizes();
    int64_t center_base = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[2 * d], after = paddings[2 * d + 1], n = input.dim_size(d);
      StridedView slab{center_base, strides}, onto{center_base, strides};
      std::vector<int64_t> box = extent;
      slab.strides[d] = -strides[d];  // the slab reversed onto the elements it copied
      if (before > 0) {
        box[d] = before;
        slab.base = center_base + (before - 1) * strides[d];
        onto.base = center_base + (before + offset_) * strides[d];
        AddBox(data, onto, slab, box);
      }
      if (after > 0) {
        box[d] = after;
        slab.base = center_base + (n - 1) * strides[d];
        onto.base = center_base + (n - 2 * after - offset_) * strides[d];
        AddBox(data, onto, slab, box);
      }
      extent[d] = dims[d];
      center_base += before * strides[d];
    }
    StridedCopy(ctx, scratch, {center_base, strides}, out, {0, RowMajorStrides(out->shape())}, dims);
  }

 private:
  int offset_ = 0;
};

// Every dtype TensorFlow's CPU kernel takes: elements are moved, never computed on.
DataTypeVector MirrorPadTypes() {
  namespace tf = ::tensorflow;
  return {tf::DT_FLOAT,  tf::DT_DOUBLE,  tf::DT_HALF,     tf::DT_BFLOAT16, tf::DT_INT8,   tf::DT_INT16,
          tf::DT_INT32,  tf::DT_INT64,   tf::DT_UINT8,    tf::DT_UINT16,   tf::DT_UINT32, tf::DT_UINT64,
          tf::DT_BOOL,   tf::DT_COMPLEX64, tf::DT_COMPLEX128, tf::DT_QINT8, tf::DT_QUINT8, tf::DT_QINT32,
          tf::DT_STRING};
}
REGISTER_KERNEL(Name("MirrorPad").Device(DEVICE_CPU).TypeConstraint("T", MirrorPadTypes()), MirrorPadOp);

#define TA_REGISTER(T) \
  REGISTER_KERNEL(Name("MirrorPadGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), MirrorPadGradOp<T>)
TA_CALL_NUMBER_TYPES(TA_REGISTER);
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
