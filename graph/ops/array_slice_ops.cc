// Ops that size, slice, split, tile, gather and pad tensors (the rest of the array ops are
// in array_ops.cc). Definitions match TensorFlow's, so GraphDefs written by TensorFlow
// validate here unchanged.
#include <algorithm>

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

// Slice: with a constant `size` each output dimension is size[i], or input - begin for -1
// when begin is also constant; otherwise the rank from begin's length.
Status SliceShape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  PartialTensorShape begin_shape, size_shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &size_shape));
  int64_t n = InferenceContext::Dim(begin_shape, 0);
  TA_RETURN_IF_ERROR(c->MergeDim(n, InferenceContext::Dim(size_shape, 0), &n));
  std::vector<int64_t> begin, size;
  bool begin_known = false, size_known = false;
  TA_RETURN_IF_ERROR(ConstVector(c, 1, &begin, &begin_known));
  TA_RETURN_IF_ERROR(ConstVector(c, 2, &size, &size_known));
  if (n < 0) {
    if (InferenceContext::RankKnown(input)) {
      c->set_output(0, InferenceContext::UnknownShapeOfRank(input.dims()));
      return Status::OK();
    }
    return shape_inference::UnknownShape(c);
  }
  PartialTensorShape in;
  TA_RETURN_IF_ERROR(c->WithRank(input, static_cast<int>(n), &in));
  std::vector<int64_t> dims(n, shape_inference::kUnknownDim);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t dim = InferenceContext::Dim(in, static_cast<int>(i));
    if (begin_known && dim >= 0 && (begin[i] < 0 || begin[i] > dim)) {
      return errors::InvalidArgument("Expected begin[", i, "] in [0, ", dim, "], but got ", begin[i]);
    }
    if (!size_known) continue;
    if (size[i] >= 0) {
      if (begin_known && dim >= 0 && begin[i] + size[i] > dim) {
        return errors::InvalidArgument("Expected size[", i, "] in [0, ", dim - begin[i], "], but got ", size[i]);
      }
      dims[i] = size[i];
    } else if (size[i] == -1) {
      if (begin_known && dim >= 0) dims[i] = dim - begin[i];
    } else {
      return errors::InvalidArgument("Expected size[", i, "] >= -1, but got ", size[i]);
    }
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

// StridedSlice depends on masks and values in ways only the kernel's full canonicalisation
// tells; the shape is inferred only where nothing is masked and everything is constant.
Status StridedSliceShape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  std::vector<int64_t> begin, end, strides;
  bool kb = false, ke = false, ks = false;
  TA_RETURN_IF_ERROR(ConstVector(c, 1, &begin, &kb));
  TA_RETURN_IF_ERROR(ConstVector(c, 2, &end, &ke));
  TA_RETURN_IF_ERROR(ConstVector(c, 3, &strides, &ks));
  int64_t masks = 0;
  for (const char* name : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    int64_t m = 0;
    TA_RETURN_IF_ERROR(c->GetAttr(name, &m));
    masks |= m;
  }
  // An index (a shrunk axis) takes one element going forwards: TensorFlow refuses any
  // other stride there, when building as when running. Masks and strides both count the
  // spec's entries, so this needs no canonicalisation.
  int64_t shrink = 0, ellipsis = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("shrink_axis_mask", &shrink));
  TA_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &ellipsis));
  for (size_t i = 0; ks && i < strides.size() && i < 64; ++i) {
    if ((shrink >> i & 1) && !(ellipsis >> i & 1) && strides[i] <= 0) {
      return errors::InvalidArgument("only stride 1 allowed on non-range indexing.");
    }
  }
  if (!kb || !ke || !ks || masks != 0 || !InferenceContext::RankKnown(input) ||
      begin.size() != static_cast<size_t>(input.dims()) || end.size() != begin.size() ||
      strides.size() != begin.size()) {
    return shape_inference::UnknownShape(c);
  }
  std::vector<int64_t> dims(begin.size(), shape_inference::kUnknownDim);
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t dim = InferenceContext::Dim(input, static_cast<int>(i));
    const int64_t s = strides[i];
    if (s == 0) return errors::InvalidArgument("strides[", i, "] must be non-zero");
    if (dim < 0) continue;
    auto canonical = [&](int64_t x) {
      const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? dim : dim - 1;
      x = x < 0 ? dim + x : x;
      return std::min(std::max(x, lo), hi);
    };
    const int64_t len = canonical(end[i]) - canonical(begin[i]);
    dims[i] = (len == 0 || (len < 0) != (s < 0)) ? 0 : len / s + (len % s != 0);
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
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
        if (sizes[i] == -1) unknown = static_cast<int64_t>(i);
        else total += sizes[i];
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

Status OneHotShape(InferenceContext* c) {
  int64_t axis = -1;
  TA_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) return errors::InvalidArgument("axis must be >= -1");
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  const PartialTensorShape& indices = c->input(0);
  if (!InferenceContext::RankKnown(indices)) return shape_inference::UnknownShape(c);
  std::vector<int64_t> depth_values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &depth_values, &known));
  const int64_t depth = known ? depth_values[0] : shape_inference::kUnknownDim;
  if (known && depth < 0) return errors::InvalidArgument("depth must be non-negative, got: ", depth);
  std::vector<int64_t> dims = InferenceContext::Dims(indices);
  const int64_t pos = axis == -1 ? static_cast<int64_t>(dims.size()) : axis;
  if (pos > static_cast<int64_t>(dims.size())) {
    return errors::InvalidArgument("Expected axis to be -1 or between [0, ", dims.size() + 1, ").  But received: ", axis);
  }
  dims.insert(dims.begin() + pos, depth);
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status PadShape(InferenceContext* c) {
  PartialTensorShape paddings_shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings_shape));
  int64_t unused;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(paddings_shape, 1), 2, &unused));
  if (c->num_inputs() == 3) {
    PartialTensorShape s;
    TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &s));
  }
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

Status RangeShape(InferenceContext* c) {
  PartialTensorShape unused;
  for (int i = 0; i < 3; ++i) TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  c->set_output(0, InferenceContext::Vector(shape_inference::kUnknownDim));
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
