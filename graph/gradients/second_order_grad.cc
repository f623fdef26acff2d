// Gradients TensorFlow has and the differential harness's gradient mode found missing here:
// those of the element-wise gradient ops (second derivatives: TanhGrad, SigmoidGrad,
// SqrtGrad, RsqrtGrad, ReciprocalGrad, ReluGrad, Relu6Grad, EluGrad, SoftplusGrad) and of
// BiasAddGrad, as TensorFlow's math_grad.py and nn_grad.py build them (the same ops in the
// same order, so the numbers agree to the rounding); DivNoNan's, MulNoNan's, Xlogy's,
// Xlog1py's and Xdivy's; and Floor, Ceil and Round, whose gradient TensorFlow defines as None.
// Complex inputs are conjugated where math_grad.py conjugates them (ops::ConjIfComplex: no
// node for reals).
#include "graph/builder/math_more_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

using ops::ConjIfComplex;
using ops::TypedOp;

REGISTER_NO_GRADIENT_OP("Floor");
REGISTER_NO_GRADIENT_OP("Ceil");
REGISTER_NO_GRADIENT_OP("Round");
REGISTER_NO_GRADIENT_OP("Rint");

Output Mul(const Scope& s, const Output& a, const Output& b) { return TypedOp(s, "Mul", {a, b}); }

// TanhGrad(y, dy) = dy (1 - y^2).
Status TanhGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output y = ConjIfComplex(s, InputOf(op, 0)), b = ConjIfComplex(s, InputOf(op, 1)), g = dy[0];
  (*dx)[0] = Mul(s, Mul(s, Mul(s, g, ScalarLike(s, -2.0, g)), b), y);
  (*dx)[1] = TypedOp(s, "TanhGrad", {y, g});
  return Status::OK();
}
REGISTER_GRADIENT_OP("TanhGrad", TanhGradGrad);

// SigmoidGrad(y, dy) = dy y (1 - y).
Status SigmoidGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output y = ConjIfComplex(s, InputOf(op, 0)), b = ConjIfComplex(s, InputOf(op, 1)), g = dy[0];
  const Output gb = Mul(s, g, b);
  (*dx)[0] = TypedOp(s, "Sub", {gb, Mul(s, Mul(s, ScalarLike(s, 2.0, g), gb), y)});
  (*dx)[1] = TypedOp(s, "SigmoidGrad", {y, g});
  return Status::OK();
}
REGISTER_GRADIENT_OP("SigmoidGrad", SigmoidGradGrad);

// SqrtGrad(y, dy) = 0.5 dy / conj(y) (its own output is reused).
Status SqrtGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output y = InputOf(op, 0), g = dy[0];
  const Output ga = TypedOp(s, "RealDiv", {g, y});
  (*dx)[0] = Mul(s, TypedOp(s, "Neg", {ConjIfComplex(s, ga)}), OpOutput(op, 0));
  (*dx)[1] = Mul(s, ScalarLike(s, 0.5, g), ga);
  return Status::OK();
}
REGISTER_GRADIENT_OP("SqrtGrad", SqrtGradGrad);

// RsqrtGrad(y, dy) = -0.5 dy conj(y)^3.
Status RsqrtGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output y = ConjIfComplex(s, InputOf(op, 0)), b = InputOf(op, 1), g = dy[0];
  (*dx)[0] = Mul(s, Mul(s, Mul(s, ScalarLike(s, -1.5, g), ConjIfComplex(s, g)), b), TypedOp(s, "Square", {y}));
  (*dx)[1] = TypedOp(s, "RsqrtGrad", {y, g});
  return Status::OK();
}
REGISTER_GRADIENT_OP("RsqrtGrad", RsqrtGradGrad);

// ReciprocalGrad(y, dy) = -dy conj(y)^2 (and InvGrad, its TensorFlow 1 name).
template <const char* kOp>
Status ReciprocalGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output y = ConjIfComplex(s, InputOf(op, 0)), b = InputOf(op, 1), g = dy[0];
  (*dx)[0] = Mul(s, Mul(s, Mul(s, ConjIfComplex(s, g), ScalarLike(s, -2.0, g)), b), y);
  (*dx)[1] = TypedOp(s, kOp, {y, g});
  return Status::OK();
}
constexpr char kReciprocalGradName[] = "ReciprocalGrad";
constexpr char kInvGradName[] = "InvGrad";
REGISTER_GRADIENT_OP("ReciprocalGrad", ReciprocalGradGrad<kReciprocalGradName>);
REGISTER_GRADIENT_OP("InvGrad", ReciprocalGradGrad<kInvGradName>);

// ReluGrad(dy, x) and Relu6Grad(dy, x) are linear in dy, piecewise constant in x.
template <const char* kOp>
Status PiecewiseLinearGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                               std::vector<Output>* dx) {
  const Output x = InputOf(op, 1);
  (*dx)[0] = TypedOp(s, kOp, {dy[0], x});
  (*dx)[1] = ops::ZerosLike(s, x);
  return Status::OK();
}
constexpr char kReluGradName[] = "ReluGrad";
constexpr char kRelu6GradName[] = "Relu6Grad";
REGISTER_GRADIENT_OP("ReluGrad", PiecewiseLinearGradGrad<kReluGradName>);
REGISTER_GRADIENT_OP("Relu6Grad", PiecewiseLinearGradGrad<kRelu6GradName>);

// EluGrad(dy, y) = dy (y + 1) below zero, dy above.
Status EluGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output elu_y = InputOf(op, 1), g = dy[0];
  (*dx)[0] = TypedOp(s, "EluGrad", {g, elu_y});
  const Output negative = TypedOp(s, "Less", {elu_y, ScalarLike(s, 0.0, elu_y)});
  // TypedOp would take T from the bool condition.
  (*dx)[1] = Output(s.AddOp("Select", "Select", {negative, Mul(s, g, InputOf(op, 0)), ops::ZerosLike(s, elu_y)},
                            {{"T", ops::TypeAttr(g.type())}}),
                    0);
  return Status::OK();
}
REGISTER_GRADIENT_OP("EluGrad", EluGradGrad);

// SoftplusGrad(dy, x) = dy sigmoid(x).
Status SoftplusGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output b = InputOf(op, 0), x = InputOf(op, 1), g = dy[0];
  (*dx)[0] = TypedOp(s, "SoftplusGrad", {g, x});
  const Output denominator =
      TypedOp(s, "AddV2", {TypedOp(s, "AddV2", {TypedOp(s, "Exp", {TypedOp(s, "Neg", {x})}), ScalarLike(s, 2.0, x)}),
                           TypedOp(s, "Exp", {x})});
  (*dx)[1] = TypedOp(s, "RealDiv", {Mul(s, g, b), denominator});
  return Status::OK();
}
REGISTER_GRADIENT_OP("SoftplusGrad", SoftplusGradGrad);

// BiasAddGrad sums dy over all but the channel dimension: its gradient tiles the bias-shaped
// gradient back over them.
Status BiasAddGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string format = "NHWC";
  GetNodeAttr(op.def(), "data_format", &format).IgnoreError();
  const Output shape = ops::Shape(s, InputOf(op, 0));
  const Output bias_shape = ops::Shape(s, dy[0]);
  auto slice = [&](int begin, int end, int64_t begin_mask, int64_t end_mask) {
    return ops::StridedSlice(s, shape, {begin}, {end}, {1}, {begin_mask, end_mask});
  };
  Output expanded, multiples;
  if (format == "NCHW") {
    const Output first = slice(0, 1, 1, 0), rest = slice(2, 0, 0, 1);
    expanded = ops::Concat(s, {ops::OnesLike(s, first), bias_shape, ops::OnesLike(s, rest)}, 0);
    multiples = ops::Concat(s, {first, Input({1}), rest}, 0);
  } else {
    const Output outer = slice(0, -1, 1, 0);
    expanded = ops::Concat(s, {ops::OnesLike(s, outer), bias_shape}, 0);
    multiples = ops::Concat(s, {outer, Input({1})}, 0);
  }
  (*dx)[0] = ops::Tile(s, ops::Reshape(s, dy[0], expanded), multiples);
  return Status::OK();
}
REGISTER_GRADIENT_OP("BiasAddGrad", BiasAddGradGrad);

// DivNoNan(x, y) = x / y, 0 where y is 0: each gradient is 0 there too (x and y conjugated).
Status DivNoNanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = InputOf(op, 0), y = InputOf(op, 1), g = dy[0];
  const Output cx = ConjIfComplex(s, x), cy = ConjIfComplex(s, y);
  const Output gx = TypedOp(s, "DivNoNan", {g, cy});
  const Output gy =
      Mul(s, g, TypedOp(s, "DivNoNan", {TypedOp(s, "DivNoNan", {TypedOp(s, "Neg", {cx}), cy}), cy}));
  ReduceBroadcast(s, x, y, gx, gy, &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("DivNoNan", DivNoNanGrad);

// MulNoNan(x, y): mul_no_nan(dy, y) for x, mul_no_nan(x, dy) for y (math_grad.py).
Status MulNoNanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = InputOf(op, 0), y = InputOf(op, 1), g = dy[0];
  ReduceBroadcast(s, x, y, TypedOp(s, "MulNoNan", {g, y}), TypedOp(s, "MulNoNan", {x, g}), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MulNoNan", MulNoNanGrad);

// Xlogy, Xlog1py and Xdivy: 0 where x is 0 for both inputs, as TensorFlow's math_grad.py
// writes them with a mask of x's non-zeros through the op itself.
Output NonZeroMask(const Scope& s, const Output& x) {
  return ops::Cast(s, TypedOp(s, "NotEqual", {x, ScalarLike(s, 0.0, x)}), x.type());
}

Status XlogyGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = InputOf(op, 0), y = InputOf(op, 1), g = dy[0];
  const Output partial_x = TypedOp(s, "Xlogy", {NonZeroMask(s, x), y});
  const Output partial_y = TypedOp(s, "Xdivy", {x, y});
  ReduceBroadcast(s, x, y, Mul(s, partial_x, g), Mul(s, partial_y, g), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Xlogy", XlogyGrad);

Status Xlog1pyGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = InputOf(op, 0), y = InputOf(op, 1), g = dy[0];
  const Output partial_x = TypedOp(s, "Xlog1py", {NonZeroMask(s, x), y});
  const Output partial_y = TypedOp(s, "Xdivy", {x, TypedOp(s, "AddV2", {y, ScalarLike(s, 1.0, y)})});
  ReduceBroadcast(s, x, y, Mul(s, partial_x, g), Mul(s, partial_y, g), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Xlog1py", Xlog1pyGrad);

Status XdivyGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = InputOf(op, 0), y = InputOf(op, 1), g = dy[0];
  const Output partial_x = TypedOp(s, "Xdivy", {NonZeroMask(s, x), y});
  const Output partial_y = TypedOp(s, "Xdivy", {TypedOp(s, "Neg", {x}), TypedOp(s, "Square", {y})});
  ReduceBroadcast(s, x, y, Mul(s, partial_x, g), Mul(s, partial_y, g), &(*dx)[0], &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Xdivy", XdivyGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
