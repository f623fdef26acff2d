// Ops that size, slice, split, tile, gather and pad tensors (the rest of the array ops are
// in array_ops.cc). Definitions match TensorFlow's, so GraphDefs written by TensorFlow
// validate here unchanged.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/bfloat16_rounding.h"
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, InferenceContext::Scalar());
  return Status::OK();
}

Status ShapeNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    c->set_output(i, InferenceContext::Vector(InferenceContext::Rank(c->input(i))));
  }
  return Status::OK();
}

// The values of a constant integer vector input, or known = false.
Status ConstVector(InferenceContext* c, int i, std::vector<int64_t>* v, bool* known) {
  return c->GetIntValues(i, v, known);
}

// Slice, as TensorFlow's SliceShape: with a constant `size` each output dimension is
// size[i], or input - begin for -1. Whether begin and size fit the input is the kernel's
// check, when the step runs (a graph TensorFlow loads must load here); only what makes the
// shape itself impossible (a size below -1, an input - begin below 0) is refused here.
Status SliceShape(InferenceContext* c) {
  PartialTensorShape input = c->input(0);
  PartialTensorShape begin_shape, size_shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &size_shape));
  int64_t n = InferenceContext::Dim(begin_shape, 0);
  TA_RETURN_IF_ERROR(c->MergeDim(n, InferenceContext::Dim(size_shape, 0), &n));
  if (n >= 0) TA_RETURN_IF_ERROR(c->WithRank(input, static_cast<int>(n), &input));
  // begin as a shape: -1 (a value the kernel refuses) reads as unknown, below -1 is refused,
  // as TensorFlow's MakeShapeFromShapeTensor does.
  PartialTensorShape begin;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &begin));
  std::vector<int64_t> size;
  bool size_known = false;
  TA_RETURN_IF_ERROR(ConstVector(c, 2, &size, &size_known));
  if (size_known) {
    PartialTensorShape b;
    TA_RETURN_IF_ERROR(c->WithRank(begin, static_cast<int>(size.size()), &b));
    std::vector<int64_t> dims;
    for (size_t i = 0; i < size.size(); ++i) {
      const int64_t dim = InferenceContext::Dim(input, static_cast<int>(i));
      if (size[i] == -1) {
        const int64_t start = InferenceContext::Dim(b, static_cast<int>(i));
        int64_t rest = shape_inference::kUnknownDim;
        if (dim >= 0 && start >= 0) TA_RETURN_IF_ERROR(c->Subtract(dim, start, &rest));
        dims.push_back(rest);
      } else if (size[i] < 0) {
        return errors::InvalidArgument("Out of bounds slicing on dimension ", i, " of length ", dim,
                                       ": sizes vector cannot be < -1, but was ", size[i]);
      } else {
        dims.push_back(size[i]);
      }
    }
    c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
    return Status::OK();
  }
  PartialTensorShape sizes;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &sizes));
  if (InferenceContext::RankKnown(sizes)) {
    PartialTensorShape unused;
    TA_RETURN_IF_ERROR(c->WithRank(begin, sizes.dims(), &unused));
    c->set_output(0, sizes);
    return Status::OK();
  }
  if (InferenceContext::RankKnown(input)) {
    c->set_output(0, InferenceContext::UnknownShapeOfRank(input.dims()));
    return Status::OK();
  }
  return shape_inference::UnknownShape(c);
}

// StridedSlice, as TensorFlow's shape function: with a known input rank and constant
// strides, the sparse spec (begin/end/strides and their masks) is made dense and bounds
// checked the way TensorFlow's ValidateStridedSliceOp does on a partial shape, so what it
// refuses when the graph is built (several ellipses, an index out of bounds, a zero stride,
// a non-forward stride on an index) is refused here too. Begin and end may be unknown; a
// dimension then is unknown unless it is a whole one or an index.
Status StridedSliceShape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  PartialTensorShape begin_shape, end_shape, strides_shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &end_shape));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, &strides_shape));
  int64_t sparse_len = InferenceContext::Dim(begin_shape, 0);
  TA_RETURN_IF_ERROR(c->MergeDim(sparse_len, InferenceContext::Dim(end_shape, 0), &sparse_len));
  TA_RETURN_IF_ERROR(c->MergeDim(sparse_len, InferenceContext::Dim(strides_shape, 0), &sparse_len));
  std::vector<int64_t> begin, end, strides;
  bool kb = false, ke = false, ks = false;
  TA_RETURN_IF_ERROR(ConstVector(c, 3, &strides, &ks));
  if (!InferenceContext::RankKnown(input) || sparse_len < 0 || !ks) return shape_inference::UnknownShape(c);
  TA_RETURN_IF_ERROR(ConstVector(c, 1, &begin, &kb));
  TA_RETURN_IF_ERROR(ConstVector(c, 2, &end, &ke));
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_mask = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("begin_mask", &begin_mask));
  TA_RETURN_IF_ERROR(c->GetAttr("end_mask", &end_mask));
  TA_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &ellipsis_mask));
  TA_RETURN_IF_ERROR(c->GetAttr("new_axis_mask", &new_axis_mask));
  TA_RETURN_IF_ERROR(c->GetAttr("shrink_axis_mask", &shrink_mask));
  const int64_t n = static_cast<int64_t>(strides.size());
  if ((kb && static_cast<int64_t>(begin.size()) != n) || (ke && static_cast<int64_t>(end.size()) != n) || n >= 32) {
    return errors::InvalidArgument("Expected begin, end, and strides to be 1D equal size tensors, but got ",
                                   kb ? begin.size() : -1, ", ", ke ? end.size() : -1, " and ", n, " values");
  }
  // The masks are 32-bit attributes in TensorFlow.
  const uint32_t ellipsis = static_cast<uint32_t>(ellipsis_mask);
  if (ellipsis != 0 && (ellipsis & (ellipsis - 1)) != 0) {
    return errors::InvalidArgument("Multiple ellipses in slice spec not allowed");
  }
  // Step 1: the sparse spec, an ellipsis added at its end when it has none.
  int sparse_dims = static_cast<int>(n);
  int new_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  uint64_t sparse_ellipsis = ellipsis;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && (new_axis_mask >> i & 1)) ++new_axis_after_ellipsis;
    if (ellipsis >> i & 1) ellipsis_seen = true;
  }
  if (!ellipsis_seen) sparse_ellipsis |= uint64_t{1} << sparse_dims++;
  // Step 2: the dense spec, one entry per input dimension.
  const int dims = input.dims();
  std::vector<int64_t> db(dims, 0), de(dims, 0), ds(dims, 1);
  std::vector<bool> dbm(dims, false), dem(dims, false), dshrink(dims, false);
  constexpr int64_t kNewAxis = -1, kShrink = -2;
  std::vector<int64_t> gather;  // per output dimension: an input dimension, kNewAxis or kShrink
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (sparse_ellipsis >> i & 1) {
      const int next = std::min(dims - (sparse_dims - i) + 1 + new_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        dbm[full] = dem[full] = true;
        gather.push_back(full);
      }
    } else if (new_axis_mask >> i & 1) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        if (dims == 0) return errors::InvalidArgument("Attempting to slice scalar input.");
        return errors::InvalidArgument("Index out of range using input dim ", full, "; input has only ", dims,
                                       " dims");
      }
      if (kb) db[full] = begin[i];
      if (ke) de[full] = end[i];
      ds[full] = strides[i];
      dbm[full] = begin_mask >> i & 1;
      dem[full] = end_mask >> i & 1;
      dshrink[full] = shrink_mask >> i & 1;
      gather.push_back(dshrink[full] ? kShrink : full);
      ++full;
    }
  }
  // Step 3: each input dimension's size, checked where it is known.
  std::vector<int64_t> sizes(dims, shape_inference::kUnknownDim);
  for (int i = 0; i < dims; ++i) {
    const int64_t dim = InferenceContext::Dim(input, i), s = ds[i];
    if (s == 0) return errors::InvalidArgument("strides[", i, "] must be non-zero");
    if (dim < 0) {
      sizes[i] = dshrink[i] ? 1 : shape_inference::kUnknownDim;
      continue;
    }
    if (dshrink[i] && s <= 0) return errors::InvalidArgument("only stride 1 allowed on non-range indexing.");
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (s > 0) == is_begin ? lo : hi;
      const int64_t fwd = x < 0 ? dim + x : x;
      return std::min(std::max(fwd, lo), hi);
    };
    int64_t len = 0;
    bool known = false;
    if (kb && ke) {
      int64_t b, e;
      if (dshrink[i]) {
        b = db[i] < 0 ? dim + db[i] : db[i];
        e = b + 1;
        if (b < 0 || b >= dim) {
          return errors::InvalidArgument("slice index ", b, " of dimension ", i, " out of bounds.");
        }
      } else {
        b = canonical(db[i], dbm[i], true);
        e = canonical(de[i], dem[i], false);
      }
      len = e - b;
      known = true;
    } else if (dshrink[i]) {
      len = 1;
      known = true;
    } else if (dbm[i] && dem[i]) {
      len = s < 0 ? -dim : dim;
      known = true;
    }
    if (known) sizes[i] = (len == 0 || (len < 0) != (s < 0)) ? 0 : len / s + (len % s != 0);
  }
  // Step 4: the output, new axes added and indices dropped.
  std::vector<int64_t> out;
  for (int64_t g : gather) {
    if (g == kNewAxis) out.push_back(1);
    else if (g >= 0) out.push_back(sizes[g]);
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(out)));
  return Status::OK();
}

Status UnpackShape(InferenceContext* c) {
  const PartialTensorShape& value = c->input(0);
  if (!InferenceContext::RankKnown(value)) return shape_inference::UnknownShape(c);
  const int64_t rank = value.dims();
  int64_t axis = 0, num = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  TA_RETURN_IF_ERROR(c->GetAttr("num", &num));
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("Invalid axis: ", axis, "; must be in [", -rank, ",", rank, ")");
  }
  if (axis < 0) axis += rank;
  int64_t unused;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(value, static_cast<int>(axis)), num, &unused));
  std::vector<int64_t> dims = InferenceContext::Dims(value);
  dims.erase(dims.begin() + axis);
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, InferenceContext::MakeShape(dims));
  return Status::OK();
}

// Split and SplitV: the input with the split dimension divided as the sizes say.
Status SplitCommonShape(InferenceContext* c, int value_index, int dim_index, const std::vector<int64_t>* sizes) {
  const PartialTensorShape& input = c->input(value_index);
  std::vector<int64_t> dim_values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(dim_index, &dim_values, &known));
  const int n = c->num_outputs();
  if (!known || !InferenceContext::RankKnown(input)) {
    for (int i = 0; i < n; ++i) {
      c->set_output(i, InferenceContext::RankKnown(input) ? InferenceContext::UnknownShapeOfRank(input.dims())
                                                          : InferenceContext::UnknownShape());
    }
    return Status::OK();
  }
  const int64_t rank = input.dims();
  int64_t axis = dim_values.empty() ? 0 : dim_values[0];
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("-input rank(-", rank, ") <= split_dim < input rank (", rank, "), but got ", axis);
  }
  if (axis < 0) axis += rank;
  const int64_t dim = InferenceContext::Dim(input, static_cast<int>(axis));
  std::vector<int64_t> dims = InferenceContext::Dims(input);
  for (int i = 0; i < n; ++i) {
    if (sizes == nullptr) {
      int64_t each = shape_inference::kUnknownDim;
      if (dim >= 0) TA_RETURN_IF_ERROR(c->Divide(dim, n, /*evenly=*/true, &each));
      dims[axis] = each;
    } else {
      dims[axis] = (*sizes)[i];
    }
    c->set_output(i, InferenceContext::MakeShape(dims));
  }
  return Status::OK();
}

Status SplitShape(InferenceContext* c) { return SplitCommonShape(c, 1, 0, nullptr); }

Status SplitVShape(InferenceContext* c) {
  std::vector<int64_t> sizes;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &sizes, &known));
  if (known && sizes.size() != static_cast<size_t>(c->num_outputs())) {
    return errors::InvalidArgument("Length of size_splits should be equal to the value of num_split: ", sizes.size(),
                                   " vs. ", c->num_outputs());
  }
  if (!known) {
    const PartialTensorShape& in = c->input(0);
    for (int i = 0; i < c->num_outputs(); ++i) {
      c->set_output(i, InferenceContext::RankKnown(in) ? InferenceContext::UnknownShapeOfRank(in.dims())
                                                       : InferenceContext::UnknownShape());
    }
    return Status::OK();
  }
  // One size may be -1: the rest of the dimension, when it is known.
  const PartialTensorShape& input = c->input(0);
  std::vector<int64_t> axis_values;
  bool axis_known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(2, &axis_values, &axis_known));
  if (axis_known && InferenceContext::RankKnown(input) && !axis_values.empty()) {
    int64_t axis = axis_values[0];
    const int64_t rank = input.dims();
    if (axis >= -rank && axis < rank) {
      const int64_t dim = InferenceContext::Dim(input, static_cast<int>(axis < 0 ? axis + rank : axis));
      int64_t total = 0, unknown = -1;
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] != -1) {
          total += sizes[i];
        } else if (unknown >= 0) {
          return errors::InvalidArgument("size_splits can only have one -1");
        } else {
          unknown = static_cast<int64_t>(i);
        }
      }
      // As TensorFlow's shape function: sizes that cannot split a known dimension are
      // refused when the graph is built.
      if (dim >= 0 && (unknown < 0 ? total != dim : total > dim)) {
        std::string pieces;
        for (int64_t size : sizes) pieces += StrCat(pieces.empty() ? "" : ",", size);
        return errors::InvalidArgument("can't split axis of size ", dim, " into pieces of size [", pieces, "]");
      }
      if (unknown >= 0) sizes[unknown] = dim >= 0 ? dim - total : shape_inference::kUnknownDim;
    }
  }
  return SplitCommonShape(c, 0, 2, &sizes);
}

Status TileShape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  PartialTensorShape multiples_shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &multiples_shape));
  std::vector<int64_t> multiples;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &multiples, &known));
  int rank = InferenceContext::Rank(input);
  if (rank < 0) rank = static_cast<int>(InferenceContext::Dim(multiples_shape, 0));
  if (rank < 0) return shape_inference::UnknownShape(c);
  PartialTensorShape in;
  TA_RETURN_IF_ERROR(c->WithRank(input, rank, &in));
  int64_t unused;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(multiples_shape, 0), rank, &unused));
  std::vector<int64_t> dims(rank, shape_inference::kUnknownDim);
  if (known) {
    for (int i = 0; i < rank; ++i) dims[i] = InferenceContext::Multiply(InferenceContext::Dim(in, i), multiples[i]);
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status GatherV2Shape(InferenceContext* c) {
  const PartialTensorShape& params = c->input(0);
  const PartialTensorShape& indices = c->input(1);
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  int64_t batch_dims = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  std::vector<int64_t> axis_values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(2, &axis_values, &known));
  if (!known || !InferenceContext::RankKnown(params) || !InferenceContext::RankKnown(indices)) {
    return shape_inference::UnknownShape(c);
  }
  const int64_t rank = params.dims();
  int64_t axis = axis_values[0];
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("Expected axis in the range [", -rank, ", ", rank, "), but got ", axis);
  }
  if (axis < 0) axis += rank;
  if (batch_dims < 0) batch_dims += indices.dims();
  if (batch_dims < 0 || batch_dims > axis || batch_dims > indices.dims()) return shape_inference::UnknownShape(c);
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < axis; ++i) dims.push_back(InferenceContext::Dim(params, static_cast<int>(i)));
  for (int64_t i = batch_dims; i < indices.dims(); ++i) dims.push_back(InferenceContext::Dim(indices, static_cast<int>(i)));
  for (int64_t i = axis + 1; i < rank; ++i) dims.push_back(InferenceContext::Dim(params, static_cast<int>(i)));
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

// OneHot, as TensorFlow's shape function: an axis beyond the indices' rank wraps here and is
// the kernel's to refuse when the step runs, and on_value and off_value are not looked at
// (a graph TensorFlow loads must load here).
Status OneHotShape(InferenceContext* c) {
  int64_t axis = -1;
  TA_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) return errors::InvalidArgument("axis must be >= -1");
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  std::vector<int64_t> depth_values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &depth_values, &known));
  const int64_t depth = known ? depth_values[0] : shape_inference::kUnknownDim;
  if (known && depth < 0) {
    return errors::InvalidArgument("Dimension size, given by scalar input 1, must be non-negative but is ", depth);
  }
  const PartialTensorShape& indices = c->input(0);
  if (!InferenceContext::RankKnown(indices)) return shape_inference::UnknownShape(c);
  std::vector<int64_t> dims = InferenceContext::Dims(indices);
  const int64_t new_rank = static_cast<int64_t>(dims.size()) + 1;
  const int64_t pos = (axis + new_rank) % new_rank;
  dims.insert(dims.begin() + pos, depth);
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status PadShape(InferenceContext* c) {
  PartialTensorShape paddings_shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings_shape));
  int64_t unused;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(paddings_shape, 1), 2, &unused));
  // PadV2's constant_values must be a scalar, which its kernel checks: TensorFlow's shape
  // function does not look at it, so such a graph loads and fails when it runs.
  int rank = InferenceContext::Rank(c->input(0));
  if (rank < 0) rank = static_cast<int>(InferenceContext::Dim(paddings_shape, 0));
  if (rank < 0) return shape_inference::UnknownShape(c);
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &input));
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(paddings_shape, 0), rank, &unused));
  std::vector<int64_t> paddings;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &paddings, &known));
  std::vector<int64_t> dims(rank, shape_inference::kUnknownDim);
  if (known) {
    for (int i = 0; i < rank; ++i) {
      if (paddings[2 * i] < 0 || paddings[2 * i + 1] < 0) {
        return errors::InvalidArgument("Paddings must be non-negative: ", paddings[2 * i], " ", paddings[2 * i + 1]);
      }
      dims[i] = InferenceContext::Add(InferenceContext::Dim(input, i), paddings[2 * i] + paddings[2 * i + 1]);
    }
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status BroadcastToShape(InferenceContext* c) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  const PartialTensorShape& in = c->input(0);
  if (!InferenceContext::RankKnown(out) || !InferenceContext::RankKnown(in)) {
    c->set_output(0, out);
    return Status::OK();
  }
  if (in.dims() > out.dims()) {
    return errors::InvalidArgument("Rank of input (", in.dims(), ") must be no greater than rank of output shape (",
                                   out.dims(), ").");
  }
  std::vector<int64_t> dims = InferenceContext::Dims(out);
  const int offset = out.dims() - in.dims();
  for (int i = 0; i < in.dims(); ++i) {
    const int64_t d = InferenceContext::Dim(in, i), o = dims[offset + i];
    if (d >= 0 && o >= 0 && d != 1 && d != o) {
      return errors::InvalidArgument("Cannot broadcast a tensor with shape ", in.DebugString(), " shape ",
                                     out.DebugString());
    }
    if (o < 0 && d > 1) dims[offset + i] = d;
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

// f rounded to the nearest bfloat16, ties to even (NaN stays NaN), as a float.
float RoundToBfloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = static_cast<uint32_t>(RoundedBfloat16Bits(bits)) << 16;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Range, as TensorFlow's shape function: with constant arguments the length is known, and
// what its kernel would refuse (delta 0, start past limit, more than int64 elements) is
// refused when the graph is built. The length is the one the kernel (kernels/cpu/range_op.cc)
// computes: integers exactly, floating-point types with one division in the type itself.
Status RangeShape(InferenceContext* c) {
  PartialTensorShape unused;
  for (int i = 0; i < 3; ++i) TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  DataType dtype = tensorflow::DT_INVALID;
  TA_RETURN_IF_ERROR(c->GetAttr("Tidx", &dtype));
  c->set_output(0, InferenceContext::Vector(shape_inference::kUnknownDim));
  const bool real = dtype == tensorflow::DT_FLOAT || dtype == tensorflow::DT_DOUBLE ||
                    dtype == tensorflow::DT_HALF || dtype == tensorflow::DT_BFLOAT16;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (real) {
    std::vector<double> v[3];
    for (int i = 0; i < 3; ++i) {
      bool known = false;
      TA_RETURN_IF_ERROR(c->GetRealValues(i, &v[i], &known));
      if (!known || v[i].size() != 1) return Status::OK();
    }
    const double start = v[0][0], limit = v[1][0], delta = v[2][0];
    if (start > limit && delta > 0) {
      return errors::InvalidArgument("Requires start <= limit when delta > 0: ", start, "/", limit);
    }
    if (start < limit && delta < 0) {
      return errors::InvalidArgument("Requires start >= limit when delta < 0: ", start, "/", limit);
    }
    if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
    // The span and the quotient in the type, each rounded as its arithmetic rounds. half's
    // length is left unknown (TensorFlow's shape function has no half case).
    double n;
    if (dtype == tensorflow::DT_FLOAT) {
      n = std::ceil(std::fabs((static_cast<float>(limit) - static_cast<float>(start)) / static_cast<float>(delta)));
    } else if (dtype == tensorflow::DT_DOUBLE) {
      n = std::ceil(std::fabs((limit - start) / delta));
    } else if (dtype == tensorflow::DT_BFLOAT16) {
      const float span = RoundToBfloat16(static_cast<float>(limit) - static_cast<float>(start));
      n = std::ceil(std::fabs(RoundToBfloat16(span / static_cast<float>(delta))));
    } else {
      return Status::OK();
    }
    // A NaN length passes TensorFlow's shape function (its kernel refuses it when the step
    // runs, as ours does).
    if (std::isnan(n)) return Status::OK();
    if (!(n < 0x1p63)) {
      return errors::InvalidArgument("Requires ((limit - start) / delta) <= ", kMax);
    }
    c->set_output(0, InferenceContext::Vector(static_cast<int64_t>(n)));
    return Status::OK();
  }
  std::vector<int64_t> v[3];
  for (int i = 0; i < 3; ++i) {
    bool known = false;
    TA_RETURN_IF_ERROR(c->GetIntValues(i, &v[i], &known));
    if (!known || v[i].size() != 1) return Status::OK();
  }
  if (dtype == tensorflow::DT_UINT64) return Status::OK();  // values above int64's range: left to the kernel
  const __int128 start = v[0][0], limit = v[1][0], delta = v[2][0];
  if (start > limit && delta > 0) {
    return errors::InvalidArgument("Requires start <= limit when delta > 0: ", v[0][0], "/", v[1][0]);
  }
  if (start < limit && delta < 0) {
    return errors::InvalidArgument("Requires start >= limit when delta < 0: ", v[0][0], "/", v[1][0]);
  }
  if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
  const __int128 span = limit > start ? limit - start : start - limit, step = delta < 0 ? -delta : delta;
  const __int128 n = (span + step - 1) / step;
  if (n > kMax) return errors::InvalidArgument("Requires ((limit - start) / delta) <= ", kMax);
  c->set_output(0, InferenceContext::Vector(static_cast<int64_t>(n)));
  return Status::OK();
}

Status InvertPermutationShape(InferenceContext* c) {
  PartialTensorShape x;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &x));
  c->set_output(0, x);
  return Status::OK();
}

Status PlaceholderWithDefaultShape(InferenceContext* c) {
  PartialTensorShape shape;
  TA_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  PartialTensorShape merged;
  Status s = c->Merge(c->input(0), shape, &merged);
  if (!s.ok()) {
    return errors::InvalidArgument("The shape of the default input ", c->input(0).DebugString(),
                                   " is not compatible with the placeholder's shape ", shape.DebugString());
  }
  c->set_output(0, shape);
  return Status::OK();
}

// LinSpace: scalars start, stop and num; with num known (and positive) a vector of num.
Status LinSpaceShape(InferenceContext* c) {
  PartialTensorShape unused;
  const char* names[] = {"start", "stop", "num"};
  for (int i = 0; i < 3; ++i) {
    Status s = c->WithRank(c->input(i), 0, &unused);
    if (!s.ok()) return Status(s.code(), StrCat(s.message(), " for '", names[i], "'"));
  }
  std::vector<int64_t> num;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(2, &num, &known));
  if (!known || num.size() != 1) {
    c->set_output(0, InferenceContext::Vector(shape_inference::kUnknownDim));
    return Status::OK();
  }
  if (num[0] <= 0) return errors::InvalidArgument("Requires num > 0: ", num[0]);
  c->set_output(0, InferenceContext::Vector(num[0]));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("Size")
    .Input("input: T").Output("output: out_type")
    .Attr("T: type").Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ScalarOutput)
    .Doc("The number of elements of the input.");

REGISTER_OP("Rank")
    .Input("input: T").Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(tensoract::ScalarOutput)
    .Doc("The number of dimensions of the input.");

REGISTER_OP("ShapeN")
    .Input("input: N * T").Output("output: N * out_type")
    .Attr("N: int >= 1").Attr("T: type").Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ShapeNShape)
    .Doc("The shape of each input, as vectors.");

REGISTER_OP("Slice")
    .Input("input: T").Input("begin: Index").Input("size: Index").Output("output: T")
    .Attr("T: type").Attr("Index: {int32, int64}")
    .SetShapeFn(tensoract::SliceShape)
    .Doc("The box of `size` (-1: to the end) starting at `begin`.");

REGISTER_OP("StridedSlice")
    .Input("input: T").Input("begin: Index").Input("end: Index").Input("strides: Index").Output("output: T")
    .Attr("T: type").Attr("Index: {int16, int32, int64}")
    .Attr("begin_mask: int = 0").Attr("end_mask: int = 0").Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0").Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(tensoract::StridedSliceShape)
    .Doc("Python's input[begin:end:strides], with ellipsis, new axes and shrunk axes as masks say.");

REGISTER_OP("StridedSliceGrad")
    .Input("shape: Index").Input("begin: Index").Input("end: Index").Input("strides: Index").Input("dy: T")
    .Output("output: T")
    .Attr("T: type").Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0").Attr("end_mask: int = 0").Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0").Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(tensoract::shape_inference::ShapeFromShapeInput)
    .Doc("Zeros of `shape` with dy written where StridedSlice would have read.");

REGISTER_OP("Unpack")
    .Input("value: T").Output("output: num * T")
    .Attr("num: int >= 0").Attr("T: type").Attr("axis: int = 0")
    .SetShapeFn(tensoract::UnpackShape)
    .Doc("The `num` slices of value along `axis`, that axis removed.");

REGISTER_OP("Split")
    .Input("split_dim: int32").Input("value: T").Output("output: num_split * T")
    .Attr("num_split: int >= 1").Attr("T: type")
    .SetShapeFn(tensoract::SplitShape)
    .Doc("value cut into num_split equal parts along split_dim.");

REGISTER_OP("SplitV")
    .Input("value: T").Input("size_splits: Tlen").Input("split_dim: int32").Output("output: num_split * T")
    .Attr("num_split: int >= 1").Attr("T: type").Attr("Tlen: {int8, int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::SplitVShape)
    .Doc("value cut along split_dim into parts of the given sizes (one may be -1).");

REGISTER_OP("Tile")
    .Input("input: T").Input("multiples: Tmultiples").Output("output: T")
    .Attr("T: type").Attr("Tmultiples: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::TileShape)
    .Doc("input repeated multiples[i] times along dimension i.");

REGISTER_OP("Range")
    .Input("start: Tidx").Input("limit: Tidx").Input("delta: Tidx").Output("output: Tidx")
    .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, uint64} = DT_INT32")
    .SetShapeFn(tensoract::RangeShape)
    .Doc("start, start + delta, ... up to but excluding limit.");

REGISTER_OP("LinSpace")
    .Input("start: T").Input("stop: T").Input("num: Tidx").Output("output: T")
    .Attr("T: {bfloat16, half, float, double}").Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::LinSpaceShape)
    .Doc("num evenly spaced values from start to stop, both included.");

REGISTER_OP("GatherV2")
    .Input("params: Tparams").Input("indices: Tindices").Input("axis: Taxis").Output("output: Tparams")
    .Attr("batch_dims: int = 0").Attr("Tparams: type").Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(tensoract::GatherV2Shape)
    .Doc("The slices of params along `axis` at `indices`.");

REGISTER_OP("OneHot")
    .Input("indices: TI").Input("depth: int32").Input("on_value: T").Input("off_value: T").Output("output: T")
    .Attr("axis: int = -1").Attr("T: type").Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::OneHotShape)
    .Doc("on_value where the new `axis` index equals indices, off_value elsewhere.");

REGISTER_OP("Pad")
    .Input("input: T").Input("paddings: Tpaddings").Output("output: T")
    .Attr("T: type").Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::PadShape)
    .Doc("input with paddings[i] zeros before and after along dimension i.");

REGISTER_OP("PadV2")
    .Input("input: T").Input("paddings: Tpaddings").Input("constant_values: T").Output("output: T")
    .Attr("T: type").Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::PadShape)
    .Doc("Pad with constant_values instead of zeros.");

REGISTER_OP("BroadcastTo")
    .Input("input: T").Input("shape: Tidx").Output("output: T")
    .Attr("T: type").Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::BroadcastToShape)
    .Doc("input broadcast (NumPy rules) to `shape`.");

REGISTER_OP("InvertPermutation")
    .Input("x: T").Output("y: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::InvertPermutationShape)
    .Doc("The inverse permutation: y[x[i]] = i.");

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype").Output("output: dtype")
    .Attr("dtype: type").Attr("shape: shape")
    .SetShapeFn(tensoract::PlaceholderWithDefaultShape)
    .Doc("Its input, unless the client feeds a value of `shape` in its place.");
