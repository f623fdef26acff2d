// Gradients of the TensorScatter ops and of SparseToDense, as TensorFlow's array_grad.py and
// sparse_grad.py build them. The indices get none (SparseToDense's: zeros). Update: the updates' gradient gathered from dy, the tensor's dy with zeros where
// it was overwritten. Add and Sub: dy, and dy gathered (negated for Sub). Max and Min: dy
// shared among the values that equal the result (the tensor's element and its updates).
#include <string>

#include "graph/builder/tensor_scatter_ops.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/node_def_util.h"

namespace tensoract {
namespace grad {
namespace {

// GatherNd and ScatterNd with the scatter op's bad_indices_policy, as TensorFlow's Max/Min
// gradient passes it on.
Output PolicyGatherNd(const Scope& s, const Output& params, const Output& indices, const std::string& policy) {
  return Output(s.AddOp("GatherNd", "GatherNd", {params, indices},
                        {{"Tparams", ops::TypeAttr(params.type())},
                         {"Tindices", ops::TypeAttr(indices.type())},
                         {"bad_indices_policy", ops::StringAttr(policy)}}),
                0);
}
Output PolicyScatterNd(const Scope& s, const Output& indices, const Output& updates, const Output& shape,
                       const std::string& policy) {
  return Output(s.AddOp("ScatterNd", "ScatterNd", {indices, updates, shape},
                        {{"T", ops::TypeAttr(updates.type())},
                         {"Tindices", ops::TypeAttr(indices.type())},
                         {"bad_indices_policy", ops::StringAttr(policy)}}),
                0);
}

// range(rank(x)): every axis of x, as math_ops.reduce_sum(x) reduces over them.
Output AllAxesOf(const Scope& s, const Output& x) { return ops::Range(s, 0, ops::Rank(s, x), 1); }

Status TensorScatterUpdateGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                               std::vector<Output>* dx) {
  const Output indices = InputOf(op, 1);
  (*dx)[2] = ops::GatherNd(s, dy[0], indices);
  (*dx)[0] = ops::TensorScatterUpdate(s, ops::Identity(s, dy[0]), indices, ops::ZerosLike(s, InputOf(op, 2)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("TensorScatterUpdate", TensorScatterUpdateGrad);

template <bool kNegate>
Status TensorScatterAddSubGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                               std::vector<Output>* dx) {
  const Output gathered = ops::GatherNd(s, dy[0], InputOf(op, 1));
  (*dx)[0] = ops::Identity(s, dy[0]);
  (*dx)[2] = kNegate ? ops::Neg(s, gathered) : gathered;
  return Status::OK();
}
REGISTER_GRADIENT_OP("TensorScatterAdd", TensorScatterAddSubGrad<false>);
REGISTER_GRADIENT_OP("TensorScatterSub", TensorScatterAddSubGrad<true>);

Status TensorScatterMinMaxGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                               std::vector<Output>* dx) {
  std::string policy;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "bad_indices_policy", &policy));
  const Output x = InputOf(op, 0), indices = InputOf(op, 1), y = InputOf(op, 2), out = OpOutput(op, 0);
  const DataType t = dy[0].type();
  const Output x_indicators = ops::Cast(s, ops::Equal(s, x, out), t);
  const Output y_indicators = ops::Cast(s, ops::Equal(s, y, PolicyGatherNd(s, out, indices, policy)), t);
  const Output ys_indicators =
      PolicyScatterNd(s, indices, y_indicators, ops::Shape(s, x, indices.type()), policy);
  const Output indicators = ops::Add(s, x_indicators, ys_indicators);  // all >= 1
  (*dx)[0] = ops::RealDiv(s, ops::Mul(s, dy[0], x_indicators), indicators);
  (*dx)[2] = ops::Mul(s, PolicyGatherNd(s, ops::RealDiv(s, dy[0], indicators), indices, policy), y_indicators);
  return Status::OK();
}
REGISTER_GRADIENT_OP("TensorScatterMax", TensorScatterMinMaxGrad);
REGISTER_GRADIENT_OP("TensorScatterMin", TensorScatterMinMaxGrad);

// The values' gradient gathered at their tuples; the default value's, what dy sums to
// elsewhere (all of dy less the gathered part).
Status SparseToDenseGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output indices = InputOf(op, 0);
  const Output values_grad = ops::GatherNd(s, dy[0], indices);
  (*dx)[0] = ops::ZerosLike(s, indices);
  (*dx)[1] = ops::ZerosLike(s, InputOf(op, 1));
  (*dx)[2] = values_grad;
  (*dx)[3] = ops::Sub(s, ops::Sum(s, dy[0], AllAxesOf(s, dy[0])), ops::Sum(s, values_grad, AllAxesOf(s, values_grad)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("SparseToDense", SparseToDenseGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
