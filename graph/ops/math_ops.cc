// Arithmetic ops. Type lists and flags are TensorFlow's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

using tensoract::PartialTensorShape;
using tensoract::Status;
using tensoract::shape_inference::BroadcastBinaryOpShape;
using tensoract::shape_inference::BroadcastShapes;
using tensoract::shape_inference::InferenceContext;
using tensoract::shape_inference::MatMulShape;
using tensoract::shape_inference::UnchangedShape;

namespace {

// Equal and NotEqual: incompatible shapes give an unknown shape when
// incompatible_shape_error is false (the kernel then returns a scalar).
Status EqualityShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  TA_RETURN_IF_ERROR(c->GetAttr("incompatible_shape_error", &incompatible_shape_error));
  PartialTensorShape out;
  Status s = BroadcastShapes(*c, c->input(0), c->input(1), &out);
  if (!s.ok()) {
    if (incompatible_shape_error) return s;
    out = InferenceContext::UnknownShape();
  }
  c->set_output(0, out);
  return Status::OK();
}

// AddN: every input has the output's shape.
Status AddNShape(InferenceContext* c) {
  PartialTensorShape cur = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    Status s = c->Merge(c->input(i), cur, &cur);
    if (!s.ok()) return s.WithContext(tensoract::StrCat("From merging shape ", i, " with other shapes."));
  }
  c->set_output(0, cur);
  return Status::OK();
}

// Select: 'then' and 'else' have one shape; 'condition' is a scalar, a vector over their
// first dimension, or of their shape (TensorFlow's rules, case by case).
Status SelectShape(InferenceContext* c) {
  PartialTensorShape data;
  TA_RETURN_IF_ERROR(c->Merge(c->input(1), c->input(2), &data));
  const PartialTensorShape& cond = c->input(0);
  if (!InferenceContext::RankKnown(cond) || !InferenceContext::RankKnown(data)) {
    c->set_output(0, data);
    return Status::OK();
  }
  const int cond_rank = InferenceContext::Rank(cond), data_rank = InferenceContext::Rank(data);
  if (cond_rank == 0) {
    c->set_output(0, data);
    return Status::OK();
  }
  if (cond_rank != 1 || data_rank == 0) {
    TA_RETURN_IF_ERROR(c->Merge(data, cond, &data));
    c->set_output(0, data);
    return Status::OK();
  }
  PartialTensorShape merged;
  TA_RETURN_IF_ERROR(c->Merge(cond, InferenceContext::Vector(InferenceContext::Dim(data, 0)), &merged));
  c->set_output(0, data);
  return Status::OK();
}

// SelectV2: the three inputs broadcast together.
Status SelectV2Shape(InferenceContext* c) {
  PartialTensorShape other, out;
  TA_RETURN_IF_ERROR(BroadcastShapes(*c, c->input(1), c->input(2), &other));
  TA_RETURN_IF_ERROR(BroadcastShapes(*c, c->input(0), other, &out));
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Add")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, "
          "complex128, string}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x + y, element-wise with broadcasting.");

REGISTER_OP("AddV2")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, "
          "int32, int64, complex64, complex128}")
    .SetIsAggregate()
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x + y, element-wise with broadcasting.");

REGISTER_OP("Mul")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, "
          "uint64, int64, complex64, complex128}")
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x * y, element-wise with broadcasting.");

REGISTER_OP("MatMul")
    .Input("a: T").Input("b: T").Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, "
          "complex64, complex128}")
    // Hints TensorFlow's gradient code sets on the MatMuls it builds; no effect on values.
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(MatMulShape)
    .Doc("The matrix product a * b, either operand optionally transposed.");

// MatMul with a BiasAdd (and a Relu) applied in the same kernel (see _FusedConv2D).
REGISTER_OP("_FusedMatMul")
    .Input("a: T").Input("b: T").Input("args: num_args * T").Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float}")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(MatMulShape)
    .Doc("MatMul followed by the fused_ops (BiasAdd, optionally an activation) in one kernel.");

// ---- element-wise binary ops, broadcasting ---------------------------------------------

#define TA_BINARY_OP(NAME, TYPES, DOC)                                                   \
  REGISTER_OP(NAME)                                                                     \
      .Input("x: T").Input("y: T").Output("z: T")                                       \
      .Attr("T: {" TYPES "}")                                                           \
      .SetShapeFn(BroadcastBinaryOpShape)                                               \
      .Doc(DOC)

TA_BINARY_OP("Sub",
             "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, "
             "complex128, uint32, uint64",
             "x - y, element-wise with broadcasting.");
TA_BINARY_OP("RealDiv",
             "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "
             "complex64, complex128",
             "x / y for real types, element-wise with broadcasting.");
TA_BINARY_OP("Div",
             "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "
             "complex64, complex128",
             "x / y, element-wise with broadcasting (integers truncate toward zero).");
TA_BINARY_OP("Maximum",
             "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64",
             "max(x, y), element-wise with broadcasting.");
TA_BINARY_OP("Minimum",
             "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64",
             "min(x, y), element-wise with broadcasting.");
REGISTER_OP("SquaredDifference")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("(x - y)(x - y), element-wise with broadcasting.");
TA_BINARY_OP("FloorDiv",
             "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "
             "complex64, complex128",
             "floor(x / y), element-wise with broadcasting.");
TA_BINARY_OP("FloorMod",
             "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, double",
             "x - floor(x / y) * y, element-wise with broadcasting: the remainder has y's sign.");
// Truncated remainders (the sign of x), C's % and fmod; TensorFlow lists half twice in Mod.
TA_BINARY_OP("Mod", "int32, int64, half, half, bfloat16, float, double",
             "x - trunc(x / y) * y, element-wise with broadcasting: the remainder has x's sign, as C's fmod.");
TA_BINARY_OP("TruncateMod", "int32, int64, bfloat16, half, float, double",
             "x - trunc(x / y) * y, element-wise with broadcasting: the remainder has x's sign, as C's fmod.");
TA_BINARY_OP("Pow",
             "bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128",
             "x to the power y, element-wise with broadcasting.");
TA_BINARY_OP("DivNoNan", "half, float, bfloat16, double, complex64, complex128",
             "x / y, or 0 where y is 0, element-wise with broadcasting.");
TA_BINARY_OP("MulNoNan", "bfloat16, half, float, double, complex64, complex128",
             "x * y, or 0 where y is 0 even if x is NaN or infinite, element-wise with broadcasting.");
TA_BINARY_OP("Xdivy", "half, bfloat16, float, double, complex64, complex128",
             "0 where x is 0, x / y otherwise, element-wise with broadcasting.");
TA_BINARY_OP("Xlogy", "half, bfloat16, float, double, complex64, complex128",
             "0 where x is 0, x * log(y) otherwise, element-wise with broadcasting.");
TA_BINARY_OP("Xlog1py", "half, bfloat16, float, double, complex64, complex128",
             "0 where x is 0, x * log1p(y) otherwise, element-wise with broadcasting.");

#undef TA_BINARY_OP

// ---- element-wise unary ops --------------------------------------------------------------

#define TA_UNARY_OP(NAME, TYPES, DOC) \
  REGISTER_OP(NAME).Input("x: T").Output("y: T").Attr("T: {" TYPES "}").SetShapeFn(UnchangedShape).Doc(DOC)

TA_UNARY_OP("Neg", "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128", "-x.");
TA_UNARY_OP("Square",
            "bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
            "complex64, complex128",
            "x * x.");
TA_UNARY_OP("Sqrt", "bfloat16, half, float, double, complex64, complex128", "The square root of x.");
TA_UNARY_OP("Rsqrt", "bfloat16, half, float, double, complex64, complex128", "1 / sqrt(x).");
TA_UNARY_OP("Exp", "bfloat16, half, float, double, complex64, complex128", "e to the power x.");
TA_UNARY_OP("Log", "bfloat16, half, float, double, complex64, complex128", "The natural logarithm of x.");
TA_UNARY_OP("Tanh", "bfloat16, half, float, double, complex64, complex128", "The hyperbolic tangent of x.");
TA_UNARY_OP("Sigmoid", "bfloat16, half, float, double, complex64, complex128", "1 / (1 + exp(-x)).");
TA_UNARY_OP("Abs", "bfloat16, half, float, double, int8, int16, int32, int64", "|x|.");
TA_UNARY_OP("Sign", "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128",
            "-1, 0 or 1 by the sign of x.");
TA_UNARY_OP("Reciprocal", "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128",
            "1 / x.");
TA_UNARY_OP("Inv", "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128",
            "1 / x: TensorFlow 1's name for Reciprocal, which its graphs still hold.");
TA_UNARY_OP("Log1p", "bfloat16, half, float, double, complex64, complex128", "log(1 + x).");
TA_UNARY_OP("Expm1", "bfloat16, half, float, double, complex64, complex128", "exp(x) - 1, accurate near 0.");
TA_UNARY_OP("Floor", "bfloat16, half, float, double", "The largest integer not greater than x.");
TA_UNARY_OP("Ceil", "bfloat16, half, float, double", "The smallest integer not less than x.");
TA_UNARY_OP("Rint", "bfloat16, half, float, double", "x rounded to the nearest integer, half to even.");
TA_UNARY_OP("Round", "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128",
            "x rounded to the nearest integer, half to even.");

#undef TA_UNARY_OP

// ---- gradients of unary ops, from their output y and the incoming gradient dy -------------

#define TA_UNARY_GRAD_OP(NAME, DOC)                                               \
  REGISTER_OP(NAME)                                                              \
      .Input("y: T").Input("dy: T").Output("z: T")                               \
      .Attr("T: {bfloat16, half, float, double, complex64, complex128}")         \
      .SetShapeFn(UnchangedShape)                                                \
      .Doc(DOC)

TA_UNARY_GRAD_OP("TanhGrad", "dy * (1 - y * y), where y = tanh(x).");
TA_UNARY_GRAD_OP("SigmoidGrad", "dy * y * (1 - y), where y = sigmoid(x).");
TA_UNARY_GRAD_OP("SqrtGrad", "dy * 0.5 / y, where y = sqrt(x).");
TA_UNARY_GRAD_OP("RsqrtGrad", "dy * -0.5 * y * y * y, where y = rsqrt(x).");
TA_UNARY_GRAD_OP("ReciprocalGrad", "-dy * y * y, where y = 1 / x.");
TA_UNARY_GRAD_OP("InvGrad", "-dy * y * y, where y = 1 / x: TensorFlow 1's name for ReciprocalGrad.");

#undef TA_UNARY_GRAD_OP

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")
    .SetShapeFn(UnchangedShape)
    .Doc("x converted to DstT.");

REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
          "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64, variant}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(AddNShape)
    .Doc("The sum of all inputs, which have one shape.");

// ---- comparisons and logic: bool outputs ----------------------------------------------------

#define TA_COMPARISON_OP(NAME, DOC)                                                              \
  REGISTER_OP(NAME)                                                                             \
      .Input("x: T").Input("y: T").Output("z: bool")                                            \
      .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, " \
            "uint64}")                                                                          \
      .SetShapeFn(BroadcastBinaryOpShape)                                                       \
      .Doc(DOC)

TA_COMPARISON_OP("Greater", "x > y, element-wise with broadcasting.");
TA_COMPARISON_OP("GreaterEqual", "x >= y, element-wise with broadcasting.");
TA_COMPARISON_OP("Less", "x < y, element-wise with broadcasting.");
TA_COMPARISON_OP("LessEqual", "x <= y, element-wise with broadcasting.");

#undef TA_COMPARISON_OP

REGISTER_OP("Equal")
    .Input("x: T").Input("y: T").Output("z: bool")
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetIsCommutative()
    .SetShapeFn(EqualityShape)
    .Doc("x == y, element-wise with broadcasting.");

REGISTER_OP("NotEqual")
    .Input("x: T").Input("y: T").Output("z: bool")
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetIsCommutative()
    .SetShapeFn(EqualityShape)
    .Doc("x != y, element-wise with broadcasting.");

REGISTER_OP("LogicalAnd")
    .Input("x: bool").Input("y: bool").Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x AND y, element-wise with broadcasting.");

REGISTER_OP("LogicalOr")
    .Input("x: bool").Input("y: bool").Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x OR y, element-wise with broadcasting.");

REGISTER_OP("LogicalNot")
    .Input("x: bool").Output("y: bool")
    .SetShapeFn(UnchangedShape)
    .Doc("NOT x.");

REGISTER_OP("Select")
    .Input("condition: bool").Input("t: T").Input("e: T").Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectShape)
    .Doc("t where condition is true, else e; condition is a scalar, a vector over the first "
         "dimension, or of t's shape.");

REGISTER_OP("SelectV2")
    .Input("condition: bool").Input("t: T").Input("e: T").Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectV2Shape)
    .Doc("t where condition is true, else e, the three broadcast together.");

// ---- batched matrices ----------------------------------------------------------------------

namespace {

// [..., n, n] in; `drop_matrix`: the batch dimensions out (determinants), else the same.
Status SquareMatrixShape(InferenceContext* c, bool drop_matrix) {
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  if (!InferenceContext::RankKnown(input)) {
    c->set_output(0, InferenceContext::UnknownShape());
    return Status::OK();
  }
  int64_t n;
  Status s = c->MergeDim(InferenceContext::Dim(input, -1), InferenceContext::Dim(input, -2), &n);
  if (!s.ok()) return tensoract::errors::InvalidArgument("Input matrix must be square: ", input.DebugString());
  if (drop_matrix) {
    PartialTensorShape batch;
    TA_RETURN_IF_ERROR(c->Subshape(input, 0, -2, &batch));
    c->set_output(0, batch);
  } else {
    PartialTensorShape out;
    TA_RETURN_IF_ERROR(c->Subshape(input, 0, -2, &out));
    TA_RETURN_IF_ERROR(c->Concatenate(out, InferenceContext::Matrix(n, n), &out));
    c->set_output(0, out);
  }
  return Status::OK();
}

Status MatrixInverseShape(InferenceContext* c) { return SquareMatrixShape(c, false); }
Status MatrixDeterminantShape(InferenceContext* c) { return SquareMatrixShape(c, true); }

}  // namespace

REGISTER_OP("MatrixInverse")
    .Input("input: T").Output("output: T")
    .Attr("adjoint: bool = false").Attr("T: {double, float, half, complex64, complex128}")
    .SetShapeFn(MatrixInverseShape)
    .Doc("The inverse of each square matrix (of its adjoint when `adjoint`).");

REGISTER_OP("MatrixDeterminant")
    .Input("input: T").Output("output: T")
    .Attr("T: {half, float, double, complex64, complex128}")
    .SetShapeFn(MatrixDeterminantShape)
    .Doc("The determinant of each square matrix.");

// ---- tensoract's fused element-wise region ----------------------------------------------

namespace {

// The shape of input 0 (a full operand), or of a per-channel sum of it: [C], or [1, ..., 1, C]
// with keep_dims. Unknown where there is no full operand (the shapes come from `shapes`).
Status FusedElementwiseShape(InferenceContext* c) {
  int64_t num_full = 0;
  std::string reduce;
  bool keep_dims = false;
  TA_RETURN_IF_ERROR(c->GetAttr("num_full", &num_full));
  TA_RETURN_IF_ERROR(c->GetAttr("reduce", &reduce));
  TA_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  if (num_full == 0) {
    c->set_output(0, InferenceContext::UnknownShape());
    return Status::OK();
  }
  const PartialTensorShape& full = c->input(0);
  if (reduce == "none") {
    c->set_output(0, full);
    return Status::OK();
  }
  const int rank = InferenceContext::Rank(full);
  const int64_t channels = rank > 0 ? InferenceContext::Dim(full, rank - 1) : -1;
  if (!keep_dims) {
    c->set_output(0, InferenceContext::Vector(channels));
  } else if (rank < 0) {
    c->set_output(0, InferenceContext::UnknownShape());
  } else {
    std::vector<int64_t> dims(rank, 1);
    dims.back() = channels;
    c->set_output(0, InferenceContext::MakeShape(dims));
  }
  return Status::OK();
}

}  // namespace

// A region of element-wise nodes over tensors of one shape, with per-channel vectors (the
// last dimension's) and scalars broadcast into them, as one pass a block of rows at a time in
// cache: what TensorFlow's gradient of a batch norm in training writes as ten full-size
// Mul, Sub, BroadcastTo and AddN nodes (graph/optimizer/elementwise_fusion.h). Optionally
// summed per channel over all other dimensions (`reduce`: a Sum or Mean that ends the region).
// The program's instructions read "op a b" (add, sub, mul, div, squared_difference) or
// "neg a"; an operand is f<i> (full input i), v<i> (vector input i: one element per
// channel, or one), c<i> (constants[i]) or r<i> (instruction i's result); the last
// instruction's result is the output. `shapes` are BroadcastTo's target shapes the region
// absorbed: the output has the broadcast shape of them and the full inputs.
// tensoract's own op: only the remapper creates it, after placement.
REGISTER_OP("_FusedElementwise")
    .Input("full: num_full * T")
    .Input("vectors: num_vectors * T")
    .Input("shapes: num_shapes * Tshape")
    .Output("y: T")
    .Attr("T: {float}")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .Attr("num_full: int >= 0")
    .Attr("num_vectors: int >= 0")
    .Attr("num_shapes: int >= 0")
    .Attr("program: list(string)")
    .Attr("constants: list(float) = []")
    .Attr("reduce: {'none', 'sum', 'mean'} = 'none'")
    .Attr("keep_dims: bool = false")
    .SetShapeFn(FusedElementwiseShape)
    .Doc("An element-wise program over full tensors, per-channel vectors and scalars, optionally summed per channel.");
