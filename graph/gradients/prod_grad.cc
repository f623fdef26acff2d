// Prod's gradient, as TensorFlow's math_grad.py builds it: each element's gradient is the
// product of the others of its reduction, taken without dividing by it (zeros stay right) as
// the product of an exclusive running product from each end. The reduced axes are moved to
// the front and flattened into one, so one pair of Cumprods covers any axes.
#include "graph/builder/math_more_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

using tensorflow::DT_INT32;

Status ProdGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output x = InputOf(op, 0);
  Output axes = InputOf(op, 1);
  bool keep_dims = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "keep_dims", &keep_dims));
  const Output input_shape = ops::Shape(s, x);
  // dy broadcast to x's shape.
  Output grad = dy[0];
  if (!keep_dims) grad = ops::Reshape(s, grad, ReducedShape(s, input_shape, axes));
  grad = ops::BroadcastTo(s, grad, input_shape);
  // The reduced axes first, then the others: [reduced_num, other_num].
  const Output rank = ops::Rank(s, x);
  if (axes.type() != DT_INT32) axes = ops::Cast(s, axes, DT_INT32);
  const Output reduced = ops::FloorMod(s, ops::Add(s, ops::Reshape(s, axes, Input({-1})), rank), rank);
  const Output other = ops::ListDiff(s, ops::Range(s, 0, rank, 1), reduced).out;
  const Output perm = ops::Concat(s, {reduced, other}, 0);
  const Output reduced_num = ops::Prod(s, ops::GatherV2(s, input_shape, reduced, 0), 0);
  const Output other_num = ops::Prod(s, ops::GatherV2(s, input_shape, other, 0), 0);
  const Output permuted = ops::Transpose(s, x, perm);
  const Output permuted_shape = ops::Shape(s, permuted);
  const Output reshaped = ops::Reshape(s, permuted, ops::Stack(s, {reduced_num, other_num}));
  // The product of the others: everything before times everything after (conjugated when
  // complex: the gradient is in the conjugate direction).
  const Output left = ops::Cumprod(s, reshaped, 0, {/*exclusive=*/true, /*reverse=*/false});
  const Output right = ops::Cumprod(s, reshaped, 0, {/*exclusive=*/true, /*reverse=*/true});
  const Output y =
      ops::Reshape(s, ops::Mul(s, ops::ConjIfComplex(s, left), ops::ConjIfComplex(s, right)), permuted_shape);
  const Output out = ops::Mul(s, grad, ops::Transpose(s, y, ops::InvertPermutation(s, perm)));
  (*dx)[0] = ops::Reshape(s, out, input_shape);
  return Status::OK();  // reduction_indices: no gradient
}
REGISTER_GRADIENT_OP("Prod", ProdGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
