// Gradients of the arithmetic ops and of the ops that pass values through unchanged. For
// complex inputs they conjugate where TensorFlow's math_grad.py does (math_ops.conj, the
// identity for reals: real graphs get no Conj node) and, where its complex form is another
// expression (Square's conj(x) * 2, Log's and Log1p's reciprocals, Pow's mask of x != 0), build
// that one, so the roundings agree.
#include "graph/builder/math_more_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

using ops::ConjIfComplex;
using ops::TypedOp;

Status IdentityGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = dy[0];
  return Status::OK();
}
REGISTER_GRADIENT_OP("Identity", IdentityGrad);

// Each output is its input (an inlined function call's results).
Status IdentityNGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  for (size_t i = 0; i < dx->size() && i < dy.size(); ++i) (*dx)[i] = dy[i];
  return Status::OK();
}
REGISTER_GRADIENT_OP("IdentityN", IdentityNGrad);
REGISTER_GRADIENT_OP("Snapshot", IdentityGrad);
REGISTER_NO_GRADIENT_OP("StopGradient");
REGISTER_NO_GRADIENT_OP("Const");
REGISTER_NO_GRADIENT_OP("Shape");
REGISTER_NO_GRADIENT_OP("Size");
REGISTER_NO_GRADIENT_OP("Rank");
REGISTER_NO_GRADIENT_OP("ZerosLike");
REGISTER_NO_GRADIENT_OP("OnesLike");
REGISTER_NO_GRADIENT_OP("BroadcastGradientArgs");
REGISTER_NO_GRADIENT_OP("Greater");
REGISTER_NO_GRADIENT_OP("GreaterEqual");
REGISTER_NO_GRADIENT_OP("Less");
REGISTER_NO_GRADIENT_OP("LessEqual");
REGISTER_NO_GRADIENT_OP("Equal");
REGISTER_NO_GRADIENT_OP("NotEqual");
REGISTER_NO_GRADIENT_OP("ArgMax");
REGISTER_NO_GRADIENT_OP("ArgMin");

Status AddNGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  for (auto& g : *dx) g = dy[0];
  return Status::OK();
}
REGISTER_GRADIENT_OP("AddN", AddNGrad);

Status AddGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ReduceBroadcast(s, InputOf(op, 0), InputOf(op, 1), dy[0], dy[0], &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Add", AddGrad);
REGISTER_GRADIENT_OP("AddV2", AddGrad);

Status SubGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ReduceBroadcast(s, InputOf(op, 0), InputOf(op, 1), dy[0], TypedOp(s, "Neg", {dy[0]}), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Sub", SubGrad);

// dy * conj(y) and conj(x) * dy.
Status MulGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), y = InputOf(op, 1);
  ReduceBroadcast(s, x, y, TypedOp(s, "Mul", {dy[0], ConjIfComplex(s, y)}),
                  TypedOp(s, "Mul", {ConjIfComplex(s, x), dy[0]}), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Mul", MulGrad);

// d(x/y) = dy/y, -dy*x/y^2 (x and y conjugated).
Status RealDivGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), y = InputOf(op, 1);
  Output cx = ConjIfComplex(s, x), cy = ConjIfComplex(s, y);
  Output gx = TypedOp(s, "RealDiv", {dy[0], cy});
  Output gy =
      TypedOp(s, "Mul", {dy[0], TypedOp(s, "RealDiv", {TypedOp(s, "RealDiv", {TypedOp(s, "Neg", {cx}), cy}), cy})});
  ReduceBroadcast(s, x, y, gx, gy, &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("RealDiv", RealDivGrad);
REGISTER_GRADIENT_OP("Div", RealDivGrad);

Status NegGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = TypedOp(s, "Neg", {dy[0]});
  return Status::OK();
}
REGISTER_GRADIENT_OP("Neg", NegGrad);

// d(x^2) = 2x dy; a complex one dy * (conj(x) * 2), whose product with 2 + 0i is not x + x
// where a part is infinite.
Status SquareGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0);
  if (IsComplex(x)) {
    (*dx)[0] = TypedOp(s, "Mul", {dy[0], TypedOp(s, "Mul", {ops::Conj(s, x), ScalarLike(s, 2.0, x)})});
    return Status::OK();
  }
  (*dx)[0] = TypedOp(s, "Mul", {dy[0], TypedOp(s, "Add", {x, x})});
  return Status::OK();
}
REGISTER_GRADIENT_OP("Square", SquareGrad);

Status ExpGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = TypedOp(s, "Mul", {dy[0], ConjIfComplex(s, OpOutput(op, 0))});
  return Status::OK();
}
REGISTER_GRADIENT_OP("Exp", ExpGrad);

// dy / x; a complex one dy * reciprocal(conj(x)).
Status LogGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = InputOf(op, 0);
  (*dx)[0] = IsComplex(x) ? TypedOp(s, "Mul", {dy[0], ops::Reciprocal(s, ops::Conj(s, x))})
                          : TypedOp(s, "RealDiv", {dy[0], x});
  return Status::OK();
}
REGISTER_GRADIENT_OP("Log", LogGrad);

// Tanh, Sigmoid, Sqrt, Rsqrt and Reciprocal have kernels for their gradients, fed with the
// op's output. A complex Tanh's or Sigmoid's output is conjugated first (kConj); the other
// gradient kernels conjugate it themselves, as TensorFlow's do.
template <const char* kGradOp, bool kConj = false>
Status OutputGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output y = OpOutput(op, 0);
  (*dx)[0] = TypedOp(s, kGradOp, {kConj ? ConjIfComplex(s, y) : y, dy[0]});
  return Status::OK();
}
constexpr char kTanhGrad[] = "TanhGrad";
constexpr char kSigmoidGrad[] = "SigmoidGrad";
constexpr char kSqrtGrad[] = "SqrtGrad";
constexpr char kRsqrtGrad[] = "RsqrtGrad";
REGISTER_GRADIENT_OP("Tanh", (OutputGrad<kTanhGrad, true>));
REGISTER_GRADIENT_OP("Sigmoid", (OutputGrad<kSigmoidGrad, true>));
REGISTER_GRADIENT_OP("Sqrt", OutputGrad<kSqrtGrad>);
REGISTER_GRADIENT_OP("Rsqrt", OutputGrad<kRsqrtGrad>);

Status MatMulGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  bool ta = false, tb = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "transpose_a", &ta));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "transpose_b", &tb));
  Output g = dy[0];
  // d/da and d/db: which operands in which order, and transposed how, for each case; the
  // other operand conjugated (MatMul has no adjoint attrs).
  if (Needed(op, 0)) {
    const Output b = ConjIfComplex(s, InputOf(op, 1));
    (*dx)[0] = !ta ? ops::MatMul(s, g, b, {false, !tb}) : ops::MatMul(s, b, g, {tb, true});
  }
  if (Needed(op, 1)) {
    const Output a = ConjIfComplex(s, InputOf(op, 0));
    (*dx)[1] = !tb ? ops::MatMul(s, a, g, {!ta, false}) : ops::MatMul(s, g, a, {true, ta});
  }
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatMul", MatMulGrad);

Status CastGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  DataType src = tensorflow::DT_INVALID;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "SrcT", &src));
  // TensorFlow's _CastGrad: the floating and complex types (complex to real keeps the real part).
  const bool floating = src == tensorflow::DT_FLOAT || src == tensorflow::DT_DOUBLE || src == tensorflow::DT_HALF ||
                        src == tensorflow::DT_BFLOAT16 || src == tensorflow::DT_COMPLEX64 ||
                        src == tensorflow::DT_COMPLEX128;
  if (floating && dy[0].type() != src) (*dx)[0] = ops::Cast(s, dy[0], src);
  if (floating && dy[0].type() == src) (*dx)[0] = dy[0];
  return Status::OK();  // from an integer type: no gradient, as in TensorFlow
}
REGISTER_GRADIENT_OP("Cast", CastGrad);

// ---- more element-wise ops ---------------------------------------------------------------

REGISTER_NO_GRADIENT_OP("FloorDiv");

// Maximum and Minimum: the gradient goes to x where x won (ties to x, as in TensorFlow).
template <bool kMax>
Status MaximumMinimumGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), y = InputOf(op, 1);
  Output x_wins = kMax ? ops::GreaterEqual(s, x, y) : ops::LessEqual(s, x, y);
  Output zeros = ops::ZerosLike(s, dy[0]);
  ReduceBroadcast(s, x, y, ops::SelectV2(s, x_wins, dy[0], zeros), ops::SelectV2(s, x_wins, zeros, dy[0]), &(*dx)[0],
                  &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Maximum", MaximumMinimumGrad<true>);
REGISTER_GRADIENT_OP("Minimum", MaximumMinimumGrad<false>);

// A complex x^y: dy conj(y) conj(x)^(conj(y)-1) and dy conj(x^y) log(conj(x)), the log taken as 0
// where x is 0 only (a negative real part is fine), in math_grad.py's order.
Status ComplexPowGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = InputOf(op, 0), y = InputOf(op, 1);
  const Output cx = ops::Conj(s, x), cy = ops::Conj(s, y), g = dy[0];
  const Output gx = ops::Mul(s, ops::Mul(s, g, cy), ops::Pow(s, cx, ops::Sub(s, cy, ScalarLike(s, 1.0, y))));
  const Output nonzero = ops::NotEqual(s, cx, ScalarLike(s, 0.0, x));
  const Output log_x = ops::SelectV2(s, nonzero, ops::Log(s, ops::SelectV2(s, nonzero, cx, ops::OnesLike(s, x))),
                                     ops::ZerosLike(s, x));
  const Output gy = ops::Mul(s, ops::Mul(s, g, ops::Conj(s, OpOutput(op, 0))), log_x);
  ReduceBroadcast(s, x, y, gx, gy, &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}

// d(x^y) = y x^(y-1) dx + x^y log(x) dy, with log(x) taken as 0 where x <= 0.
Status PowGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  if (IsComplex(InputOf(op, 0))) return ComplexPowGrad(s, op, dy, dx);
  Output x = InputOf(op, 0), y = InputOf(op, 1), z = OpOutput(op, 0);
  Output gx = ops::Mul(s, dy[0], ops::Mul(s, y, ops::Pow(s, x, ops::Sub(s, y, ops::OnesLike(s, y)))));
  Output zeros = ops::ZerosLike(s, x);
  Output positive = ops::Greater(s, x, zeros);
  Output log_x = ops::SelectV2(s, positive, ops::Log(s, ops::SelectV2(s, positive, x, ops::OnesLike(s, x))), zeros);
  Output gy = ops::Mul(s, dy[0], ops::Mul(s, z, log_x));
  ReduceBroadcast(s, x, y, gx, gy, &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Pow", PowGrad);

Status SquaredDifferenceGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), y = InputOf(op, 1);
  Output d = ops::Sub(s, x, y);
  Output g = ops::Mul(s, dy[0], ops::Add(s, d, d));
  ReduceBroadcast(s, x, y, g, ops::Neg(s, g), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("SquaredDifference", SquaredDifferenceGrad);

// FloorMod: x - floor(x / y) * y, so dx = dy and dy_y = -floor(x / y) dy.
Status FloorModGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), y = InputOf(op, 1);
  ReduceBroadcast(s, x, y, dy[0], ops::Mul(s, dy[0], ops::Neg(s, ops::FloorDiv(s, x, y))), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("FloorMod", FloorModGrad);

Status AbsGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, dy[0], ops::Sign(s, InputOf(op, 0)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Abs", AbsGrad);

Status SignGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::ZerosLike(s, InputOf(op, 0));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Sign", SignGrad);

constexpr char kReciprocalGrad[] = "ReciprocalGrad";
REGISTER_GRADIENT_OP("Reciprocal", OutputGrad<kReciprocalGrad>);
constexpr char kInvGrad[] = "InvGrad";
REGISTER_GRADIENT_OP("Inv", OutputGrad<kInvGrad>);  // TensorFlow 1's Reciprocal

// dy / (1 + x); a complex one dy * reciprocal(1 + conj(x)).
Status Log1pGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0);
  if (IsComplex(x)) {
    (*dx)[0] = ops::Mul(s, dy[0], ops::Reciprocal(s, ops::Add(s, ScalarLike(s, 1.0, x), ops::Conj(s, x))));
    return Status::OK();
  }
  (*dx)[0] = ops::RealDiv(s, dy[0], ops::Add(s, ops::OnesLike(s, x), x));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Log1p", Log1pGrad);

// Select: the gradient goes to t where the condition holds, to e elsewhere.
Status SelectGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output c = InputOf(op, 0);
  Output zeros = ops::ZerosLike(s, dy[0]);
  (*dx)[1] = ops::Select(s, c, dy[0], zeros);
  (*dx)[2] = ops::Select(s, c, zeros, dy[0]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Select", SelectGrad);

Status SelectV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output c = InputOf(op, 0);
  Output zeros = ops::ZerosLike(s, dy[0]);
  (*dx)[1] = SumToShapeOf(s, ops::SelectV2(s, c, dy[0], zeros), InputOf(op, 1));
  (*dx)[2] = SumToShapeOf(s, ops::SelectV2(s, c, zeros, dy[0]), InputOf(op, 2));
  return Status::OK();
}
REGISTER_GRADIENT_OP("SelectV2", SelectV2Grad);

// Max and Min: dy shared equally among the elements equal to the extreme.
Status MinOrMaxGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), axes = InputOf(op, 1);
  Output kept = ReducedShape(s, ops::Shape(s, x), axes);
  Output y = ops::Reshape(s, OpOutput(op, 0), kept);
  Output g = ops::Reshape(s, dy[0], kept);
  Output indicators = ops::Cast(s, ops::Equal(s, y, x), dy[0].type());
  Output count = ops::Reshape(s, ops::Sum(s, indicators, axes), kept);
  (*dx)[0] = ops::Mul(s, ops::RealDiv(s, indicators, count), g);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Max", MinOrMaxGrad);
REGISTER_GRADIENT_OP("Min", MinOrMaxGrad);

// ---- matrices ------------------------------------------------------------------------------

// BatchMatMulV2: MatMul's four cases, then each side summed over the batch dimensions it
// was broadcast along.
Status BatchMatMulV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  bool adj_x = false, adj_y = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "adj_x", &adj_x));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "adj_y", &adj_y));
  Output x = InputOf(op, 0), y = InputOf(op, 1), g = dy[0];
  Output gx, gy;
  if (Needed(op, 0)) gx = !adj_x ? ops::BatchMatMulV2(s, g, y, {false, !adj_y}) : ops::BatchMatMulV2(s, y, g, {adj_y, true});
  if (Needed(op, 1)) gy = !adj_y ? ops::BatchMatMulV2(s, x, g, {!adj_x, false}) : ops::BatchMatMulV2(s, g, x, {true, adj_x});
  const PartialTensorShape& xs = x.node->output_shape(x.index);
  const PartialTensorShape& ys = y.node->output_shape(y.index);
  if (xs.dims() == 2 && ys.dims() == 2) {  // no batch dimensions: nothing was broadcast
    (*dx)[0] = gx;
    (*dx)[1] = gy;
    return Status::OK();
  }
  Output sx = ops::Shape(s, x), sy = ops::Shape(s, y);
  Output bx = ops::StridedSlice(s, sx, {0}, {-2}, {1}), by = ops::StridedSlice(s, sy, {0}, {-2}, {1});
  ops::BroadcastGradientArgsOutputs r = ops::BroadcastGradientArgs(s, bx, by);
  if (gx.node != nullptr) (*dx)[0] = ops::Reshape(s, ops::Sum(s, gx, r.r0), sx);
  if (gy.node != nullptr) (*dx)[1] = ops::Reshape(s, ops::Sum(s, gy, r.r1), sy);
  return Status::OK();
}
REGISTER_GRADIENT_OP("BatchMatMulV2", BatchMatMulV2Grad);

// With Y = A^-1, dY = -Y dA Y, so dA = -Y^T g Y^T; with `adjoint` (Y = A^-T) it is
// -Y g^T Y.
Status MatrixInverseGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  bool adjoint = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "adjoint", &adjoint));
  Output inv = OpOutput(op, 0);
  Output inner = ops::BatchMatMulV2(s, dy[0], inv, {adjoint, !adjoint});
  (*dx)[0] = ops::Neg(s, ops::BatchMatMulV2(s, inv, inner, {!adjoint, false}));
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixInverse", MatrixInverseGrad);

// d det(A) = det(A) A^-T.
Status MatrixDeterminantGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output a = InputOf(op, 0), det = OpOutput(op, 0);
  Output scale = ops::ExpandDims(s, ops::ExpandDims(s, ops::Mul(s, dy[0], det), -1), -1);
  (*dx)[0] = ops::Mul(s, scale, ops::MatrixInverse(s, a, /*adjoint=*/true));
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixDeterminant", MatrixDeterminantGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
