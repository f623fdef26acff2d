// Ops that make or pass tensors along without arithmetic. Definitions match TensorFlow's,
// so GraphDefs written by TensorFlow validate here unchanged.
#include <algorithm>
#include <set>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// The shape written in the value's TensorProto, which must be fully known.
Status ConstShape(InferenceContext* c) {
  const tensorflow::TensorProto* value = nullptr;
  TA_RETURN_IF_ERROR(c->GetAttr("value", &value));
  auto shape = TensorShape::FromProto(value->tensor_shape());
  if (!shape.ok()) return shape.status().WithContext("attr 'value'");
  c->set_output(0, PartialTensorShape(shape->dim_sizes()));
  return Status::OK();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialTensorShape shape;
  TA_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  // Graphs written before GraphDef version 22 could not tell a scalar `shape` from an unset
  // one; TensorFlow reads a scalar there as unknown, and so must we.
  if (c->graph_def_version() <= 21 && shape.dims() <= 0) return shape_inference::UnknownShape(c);
  c->set_output(0, shape);
  return Status::OK();
}

// TensorFlow's Reshape shape function: the `shape` input, with its one -1 resolved when the
// input's element count is known, and element counts checked when both are known.
Status ReshapeShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  if (!InferenceContext::RankKnown(out)) {
    c->set_output(0, out);
    return Status::OK();
  }
  const int64_t in_elems = InferenceContext::NumElements(in);
  int64_t known_product = 1;
  int unknown_index = -1, unknown_count = 0;
  for (int i = 0; i < out.dims(); ++i) {
    const int64_t d = InferenceContext::Dim(out, i);
    if (d < 0) {
      ++unknown_count;
      unknown_index = i;
    } else {
      known_product *= d;
    }
  }
  if (in_elems >= 0 && unknown_count == 0 && known_product != in_elems) {
    return errors::InvalidArgument("Cannot reshape a tensor with ", in_elems, " elements to shape ",
                                   out.DebugString(), " (", known_product, " elements)");
  }
  if (in_elems >= 0 && unknown_count == 1) {
    if (known_product == 0) {
      if (in_elems != 0) {
        return errors::InvalidArgument("Cannot reshape a tensor with ", in_elems, " elements to shape ",
                                       out.DebugString(), " (0 elements)");
      }
    } else {
      if (in_elems % known_product != 0) {
        return errors::InvalidArgument("Cannot reshape a tensor with ", in_elems, " elements to shape ",
                                       out.DebugString(), " (", known_product, " elements)");
      }
      std::vector<int64_t> dims = InferenceContext::Dims(out);
      dims[unknown_index] = in_elems / known_product;
      out = InferenceContext::MakeShape(std::move(dims));
    }
  }
  c->set_output(0, out);
  return Status::OK();
}

Status ShapeShape(InferenceContext* c) {
  c->set_output(0, InferenceContext::Vector(InferenceContext::Rank(c->input(0))));
  return Status::OK();
}

Status ExpandDimsShape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  std::vector<int64_t> dim;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &dim, &known));
  if (known && dim.size() != 1) return errors::InvalidArgument("'dim' input must be a tensor with a single value");
  if (!known || !InferenceContext::RankKnown(input)) return shape_inference::UnknownShape(c);
  const int64_t rank = input.dims();
  int64_t d = dim[0];
  if (d < -rank - 1 || d > rank) {
    return errors::InvalidArgument("dim ", d, " not in the interval [", -rank - 1, ", ", rank, "].");
  }
  if (d < 0) d += rank + 1;
  std::vector<int64_t> dims = InferenceContext::Dims(input);
  dims.insert(dims.begin() + d, 1);
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status SqueezeShape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  if (!InferenceContext::RankKnown(input)) return shape_inference::UnknownShape(c);
  const int64_t rank = input.dims();
  std::vector<int64_t> squeeze_dims;
  TA_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  std::set<int64_t> wrapped;
  for (int64_t idx : squeeze_dims) {
    if (idx < -rank || idx >= rank) {
      return errors::InvalidArgument("Tried to squeeze dim index ", idx, " for tensor with ", rank, " dimensions.");
    }
    wrapped.insert(idx < 0 ? idx + rank : idx);
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = InferenceContext::Dim(input, static_cast<int>(i));
    const bool is_explicit = wrapped.count(i) > 0;
    if (d < 0) {
      if (is_explicit) continue;  // it must be 1 for the program to be correct
      if (wrapped.empty()) return shape_inference::UnknownShape(c);
      dims.push_back(d);
    } else if (d == 1) {
      if (!is_explicit && !wrapped.empty()) dims.push_back(d);
    } else {
      if (is_explicit) {
        return errors::InvalidArgument("Can not squeeze dim[", i, "], expected a dimension of 1, got ", d);
      }
      dims.push_back(d);
    }
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status BroadcastGradientArgsShape(InferenceContext* c) {
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  c->set_output(0, InferenceContext::Vector(shape_inference::kUnknownDim));
  c->set_output(1, InferenceContext::Vector(shape_inference::kUnknownDim));
  return Status::OK();
}

Status FillShape(InferenceContext* c) {
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  std::vector<int64_t> dims;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(0, &dims, &known));
  if (known) {
    for (int64_t d : dims) {
      if (d < 0) return errors::InvalidArgument("Fill dimensions must be >= 0");
    }
  }
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status IdentityNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
  return Status::OK();
}

Status TransposeShape(InferenceContext* c) {
  PartialTensorShape input = c->input(0);
  PartialTensorShape perm_shape;
  TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &perm_shape));
  std::vector<int64_t> perm;
  bool perm_known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &perm, &perm_known));
  int64_t rank;
  if (InferenceContext::RankKnown(input)) rank = input.dims();
  else if (InferenceContext::Dim(perm_shape, 0) >= 0 && perm_shape.dims() == 1) rank = InferenceContext::Dim(perm_shape, 0);
  else if (perm_known) rank = static_cast<int64_t>(perm.size());
  else return shape_inference::UnknownShape(c);
  if (!InferenceContext::RankKnown(input) && rank < 2) {
    // A one-element permutation says nothing about an input of unknown rank.
    c->set_output(0, input);
    return Status::OK();
  }
  TA_RETURN_IF_ERROR(c->WithRank(input, static_cast<int>(rank), &input));
  TA_RETURN_IF_ERROR(c->WithRank(perm_shape, 1, &perm_shape));
  int64_t unused;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(perm_shape, 0), rank, &unused));
  std::vector<int64_t> dims(rank, shape_inference::kUnknownDim);
  if (perm_known) {
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t in_idx = perm[i];
      if (in_idx >= rank || in_idx < -rank) {
        return errors::InvalidArgument("perm dim ", in_idx, " is out of range of input rank ", rank);
      }
      dims[i] = InferenceContext::Dim(input, static_cast<int>(in_idx));
    }
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

// TensorFlow's ConcatShapeHelper for ConcatV2: non-concat dimensions merged, the concat
// dimension summed.
Status ConcatV2Shape(InferenceContext* c) {
  const int axis_index = c->num_inputs() - 1;
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(axis_index), 0, &unused));
  std::vector<int64_t> axis_values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(axis_index, &axis_values, &known));
  if (!known || axis_values.size() != 1) {
    int rank = -1;
    for (int i = 0; i < axis_index; ++i) {
      if (rank < 0) rank = InferenceContext::Rank(c->input(i));
      else TA_RETURN_IF_ERROR(c->WithRank(c->input(i), rank, &unused));
    }
    if (rank < 0) return shape_inference::UnknownShape(c);
    if (rank == 0) return errors::InvalidArgument("Can't concatenate scalars (use tf.stack instead)");
    c->set_output(0, InferenceContext::UnknownShapeOfRank(rank));
    return Status::OK();
  }
  const int64_t concat_dim = axis_values[0];
  const int min_rank = static_cast<int>(concat_dim < 0 ? -concat_dim : concat_dim + 1);
  PartialTensorShape input, before_all, after_all;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(axis_index - 1), min_rank, &input));
  TA_RETURN_IF_ERROR(c->Subshape(input, 0, concat_dim, &before_all));
  int64_t middle_all = InferenceContext::Dim(input, static_cast<int>(concat_dim));
  if (concat_dim == -1) after_all = InferenceContext::Scalar();
  else TA_RETURN_IF_ERROR(c->Subshape(input, concat_dim + 1, &after_all));
  for (int i = axis_index - 2; i >= 0; --i) {
    PartialTensorShape before, after;
    TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(i), min_rank, &input));
    TA_RETURN_IF_ERROR(c->Subshape(input, 0, concat_dim, &before));
    const int64_t middle = InferenceContext::Dim(input, static_cast<int>(concat_dim));
    if (concat_dim == -1) after = InferenceContext::Scalar();
    else TA_RETURN_IF_ERROR(c->Subshape(input, concat_dim + 1, &after));
    TA_RETURN_IF_ERROR(c->Merge(before, before_all, &before_all));
    middle_all = InferenceContext::Add(middle_all, middle);
    TA_RETURN_IF_ERROR(c->Merge(after, after_all, &after_all));
  }
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->Concatenate(before_all, InferenceContext::Vector(middle_all), &out));
  TA_RETURN_IF_ERROR(c->Concatenate(out, after_all, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status PackShape(InferenceContext* c) {
  PartialTensorShape cur = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    Status s = c->Merge(c->input(i), cur, &cur);
    if (!s.ok()) {
      return errors::InvalidArgument("Shapes of all inputs must match: values[0].shape = ",
                                     c->input(0).DebugString(), " != values[", i, "].shape = ",
                                     c->input(i).DebugString());
    }
  }
  if (!InferenceContext::RankKnown(cur)) return shape_inference::UnknownShape(c);
  const int64_t rank = cur.dims() + 1;
  int64_t axis = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("Invalid axis: ", axis, "; must be in [", -rank, ",", rank, ")");
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> dims = InferenceContext::Dims(cur);
  dims.insert(dims.begin() + axis, c->num_inputs());
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(tensoract::ConstShape)
    .Doc("A constant tensor, the value attr.");

// A Placeholder must be fed; running one that is not fed is an error naming it.
REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn(tensoract::PlaceholderShape)
    .Doc("A value the client feeds at run time.");

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Its input, unchanged (the same buffer).");

REGISTER_OP("Reshape")
    .Input("tensor: T").Input("shape: Tshape").Output("output: T")
    .Attr("T: type").Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ReshapeShape)
    .Doc("The tensor with a new shape of the same element count; one size may be -1.");

REGISTER_OP("Shape")
    .Input("input: T").Output("output: out_type")
    .Attr("T: type").Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ShapeShape)
    .Doc("The input's shape, as a vector.");

namespace tensoract {
namespace {
// TensorFlow's OpDef types Shape's output as TFT_SHAPE_TENSOR of out_type, which
// OpDefBuilder cannot express yet; the registered OpDef is completed here, right after its
// registration above in this translation unit (so the order is fixed). Remove when the
// builder can set an output's full type.
const bool kShapeFullTypeSet = [] {
  auto data = OpRegistry::Global()->LookUpOpData("Shape");
  if (!data.ok()) return false;
  auto* def = const_cast<tensorflow::OpDef*>(&(*data)->op_def);
  auto* full = def->mutable_output_arg(0)->mutable_experimental_full_type();
  full->set_type_id(tensorflow::TFT_SHAPE_TENSOR);
  auto* arg = full->add_args();
  arg->set_type_id(tensorflow::TFT_VAR);
  arg->set_s("out_type");
  return true;
}();
}  // namespace
}  // namespace tensoract

REGISTER_OP("ExpandDims")
    .Input("input: T").Input("dim: Tdim").Output("output: T")
    .Attr("T: type").Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ExpandDimsShape)
    .Doc("The input with a dimension of 1 inserted at `dim`.");

REGISTER_OP("Squeeze")
    .Input("input: T").Output("output: T")
    .Attr("T: type").Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(tensoract::SqueezeShape)
    .Doc("The input without its dimensions of 1 (those in squeeze_dims, or all).");

REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T").Input("s1: T").Output("r0: T").Output("r1: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::BroadcastGradientArgsShape)
    .Doc("The axes to sum a broadcast's gradient over, for each of the two input shapes.");

REGISTER_OP("ZerosLike")
    .Input("x: T").Output("y: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Zeros of x's shape and type.");

REGISTER_OP("OnesLike")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
          "complex64, complex128, bool}")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Ones of x's shape and type.");

REGISTER_OP("Fill")
    .Input("dims: index_type").Input("value: T").Output("output: T")
    .Attr("T: type").Attr("index_type: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::FillShape)
    .Doc("A tensor of shape `dims` filled with the scalar `value`.");

REGISTER_OP("StopGradient")
    .Input("input: T").Output("output: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Its input; gradients do not flow through it.");

REGISTER_OP("PreventGradient")
    .Input("input: T").Output("output: T")
    .Attr("T: type").Attr("message: string = \"\"")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Its input; asking for its gradient is an error.");

REGISTER_OP("Snapshot")
    .Input("input: T").Output("output: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("A copy of its input.");

REGISTER_OP("IdentityN")
    .Input("input: T").Output("output: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn(tensoract::IdentityNShape)
    .Doc("Its inputs, unchanged.");

REGISTER_OP("Transpose")
    .Input("x: T").Input("perm: Tperm").Output("y: T")
    .Attr("T: type").Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::TransposeShape)
    .Doc("x with its dimensions permuted: y.shape[i] = x.shape[perm[i]].");

REGISTER_OP("ConcatV2")
    .Input("values: N * T").Input("axis: Tidx").Output("output: T")
    .Attr("N: int >= 2").Attr("T: type").Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ConcatV2Shape)
    .Doc("The values joined along `axis`.");

REGISTER_OP("Pack")
    .Input("values: N * T").Output("output: T")
    .Attr("N: int >= 1").Attr("T: type").Attr("axis: int = 0")
    .SetShapeFn(tensoract::PackShape)
    .Doc("The N values of one shape stacked along a new dimension `axis`.");

// ---- sizes, slicing, splitting, tiling, gathering, padding ---------------------------------

namespace tensoract {
namespace {

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

Status StridedSliceGradShape(InferenceContext* c) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
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

Status UnsortedSegmentSumShape(InferenceContext* c) {
  const PartialTensorShape& data = c->input(0);
  const PartialTensorShape& ids = c->input(1);
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  if (!InferenceContext::RankKnown(data) || !InferenceContext::RankKnown(ids)) return shape_inference::UnknownShape(c);
  if (ids.dims() > data.dims()) {
    return errors::InvalidArgument("segment_ids has rank ", ids.dims(), " but data has rank ", data.dims());
  }
  PartialTensorShape prefix;
  TA_RETURN_IF_ERROR(c->Subshape(data, 0, ids.dims(), &prefix));
  TA_RETURN_IF_ERROR(c->Merge(prefix, ids, &prefix));
  std::vector<int64_t> n;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(2, &n, &known));
  std::vector<int64_t> dims{known ? n[0] : shape_inference::kUnknownDim};
  for (int i = ids.dims(); i < data.dims(); ++i) dims.push_back(InferenceContext::Dim(data, i));
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
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
    .SetShapeFn(tensoract::StridedSliceGradShape)
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

REGISTER_OP("UnsortedSegmentSum")
    .Input("data: T").Input("segment_ids: Tindices").Input("num_segments: Tnumsegments").Output("output: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, "
          "qint16, quint16, uint16, complex128, half, uint32, uint64}")
    .Attr("Tindices: {int16, int32, int64}").Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::UnsortedSegmentSumShape)
    .Doc("output[s] = the sum of the data rows whose segment id is s; negative ids are dropped.");
