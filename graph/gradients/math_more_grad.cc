// Gradients of the complex number ops (Complex, Real, Imag, Conj), of CheckNumerics and of
// EuclideanNorm, built as TensorFlow's math_grad.py and array_grad.py build them.
// ApproximateEqual has none (its output is bool); Mod, TruncateMod, Bitcast and InTopKV2
// have none in TensorFlow either, so none here.
#include <string>

#include "graph/builder/math_more_ops.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/node_def_util.h"

namespace tensoract {
namespace grad {
namespace {

// The real part's gradient to the real input, the imaginary part's to the imaginary one.
Status ComplexGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ReduceBroadcast(s, InputOf(op, 0), InputOf(op, 1), ops::Real(s, dy[0]), ops::Imag(s, dy[0]), &(*dx)[0],
                  &(*dx)[1]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Complex", ComplexGrad);

// dy + 0i, and 0 + i dy (the zero a scalar, broadcast by Complex).
Status RealGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Complex(s, dy[0], ScalarLike(s, 0.0, dy[0]));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Real", RealGrad);

Status ImagGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Complex(s, ScalarLike(s, 0.0, dy[0]), dy[0]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Imag", ImagGrad);

Status ConjGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Conj(s, dy[0]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Conj", ConjGrad);

REGISTER_NO_GRADIENT_OP("ApproximateEqual");

// The gradient checked as the value was, its message saying so.
template <bool kV2>
Status CheckNumericsGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string message;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "message", &message));
  message = "Not a number (NaN) or infinity (Inf) values detected in gradient. " + message;
  (*dx)[0] = kV2 ? ops::CheckNumericsV2(s, dy[0], message) : ops::CheckNumerics(s, dy[0], message);
  return Status::OK();
}
REGISTER_GRADIENT_OP("CheckNumerics", CheckNumericsGrad<false>);
REGISTER_GRADIENT_OP("CheckNumericsV2", CheckNumericsGrad<true>);

// x / (norm / dy), norm and dy reshaped to keep the reduced dimensions (as 1s) unless the
// op kept them; the axes get none.
Status EuclideanNormGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  bool keep_dims = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "keep_dims", &keep_dims));
  const Output x = InputOf(op, 0);
  Output norm = OpOutput(op, 0), g = dy[0];
  if (!keep_dims) {
    const Output kept = ReducedShape(s, ops::Shape(s, x), InputOf(op, 1));
    norm = ops::Reshape(s, norm, kept);
    g = ops::Reshape(s, g, kept);
  }
  (*dx)[0] = ops::RealDiv(s, x, ops::RealDiv(s, norm, g));
  return Status::OK();
}
REGISTER_GRADIENT_OP("EuclideanNorm", EuclideanNormGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
