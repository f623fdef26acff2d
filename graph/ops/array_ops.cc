// Ops that make, reshape, join or pass tensors along without arithmetic (slicing, splitting
// and the like are in array_slice_ops.cc). Definitions match TensorFlow's,
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

// BroadcastArgs: two vectors; the result as long as the longer when both lengths are known.
Status BroadcastArgsShape(InferenceContext* c) {
  PartialTensorShape x, y;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &x));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &y));
  const int64_t nx = InferenceContext::Dim(x, 0), ny = InferenceContext::Dim(y, 0);
  const bool known = InferenceContext::ValueKnown(nx) && InferenceContext::ValueKnown(ny);
  c->set_output(0, InferenceContext::Vector(known ? std::max(nx, ny) : shape_inference::kUnknownDim));
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
  return shape_inference::ShapeFromShapeInput(c);
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

// TensorFlow's ConcatShapeHelper: the values are inputs [start, end), the axis input
// dim_index; non-concat dimensions merged, the concat dimension summed.
Status ConcatShapeHelper(InferenceContext* c, int start, int end, int dim_index) {
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(dim_index), 0, &unused));
  std::vector<int64_t> axis_values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(dim_index, &axis_values, &known));
  if (!known || axis_values.size() != 1) {
    int rank = -1;
    for (int i = start; i < end; ++i) {
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
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(end - 1), min_rank, &input));
  TA_RETURN_IF_ERROR(c->Subshape(input, 0, concat_dim, &before_all));
  int64_t middle_all = InferenceContext::Dim(input, static_cast<int>(concat_dim));
  if (concat_dim == -1) after_all = InferenceContext::Scalar();
  else TA_RETURN_IF_ERROR(c->Subshape(input, concat_dim + 1, &after_all));
  for (int i = end - 2; i >= start; --i) {
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

Status ConcatV2Shape(InferenceContext* c) {
  return ConcatShapeHelper(c, 0, c->num_inputs() - 1, c->num_inputs() - 1);
}
// v1 Concat: concat_dim first.
Status ConcatV1Shape(InferenceContext* c) { return ConcatShapeHelper(c, 1, c->num_inputs(), 0); }

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
    .SetOutputFullType("output", tensoract::FullType(tensorflow::TFT_SHAPE_TENSOR, {tensoract::FullTypeVar("out_type")}))
    .Doc("The input's shape, as a vector.");


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

REGISTER_OP("BroadcastArgs")
    .Input("s0: T").Input("s1: T").Output("r0: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::BroadcastArgsShape)
    .Doc("The shape two operands of these shapes broadcast to.");

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

REGISTER_OP("Concat")
    .Input("concat_dim: int32").Input("values: N * T").Output("output: T")
    .Attr("N: int >= 2").Attr("T: type")
    .SetShapeFn(tensoract::ConcatV1Shape)
    .Doc("TensorFlow 1's ConcatV2, the axis (concat_dim) first: the values joined along it.");

REGISTER_OP("Pack")
    .Input("values: N * T").Output("output: T")
    .Attr("N: int >= 1").Attr("T: type").Attr("axis: int = 0")
    .SetShapeFn(tensoract::PackShape)
    .Doc("The N values of one shape stacked along a new dimension `axis`.");
