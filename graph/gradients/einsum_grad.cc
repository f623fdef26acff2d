// The gradient of Einsum, as TensorFlow's linalg_grad.py builds it: more Einsums. An
// operand's gradient is the output gradient contracted with the other operand back to the
// operand's labels; labels summed away inside the operand (in neither the output nor the
// other operand) are restored by broadcasting, and the ellipsis' dimensions an operand was
// broadcast along are summed (BroadcastGradientArgs).
#include <set>
#include <string>

#include "graph/builder/math_more_ops.h"
#include "graph/builder/segment_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

using tensorflow::DT_INT32;

const char kEllipsis[] = "...";

// The axis `label` names in `subs`: from the front before an ellipsis, negative after it.
int AxisOfLabel(const std::string& subs, char label) {
  const size_t dots = subs.find(kEllipsis);
  const std::string before = subs.substr(0, dots);
  const size_t i = before.find(label);
  if (i != std::string::npos) return static_cast<int>(i);
  if (dots == std::string::npos) return -1;  // not reached: the label is in subs
  const std::string after = subs.substr(dots + 3);
  return static_cast<int>(after.find(label)) - static_cast<int>(after.size());
}

// shape[axis] (axis may be negative) as an int32 scalar.
Output DimAt(const Scope& s, const Output& shape, int axis) {
  ops::StridedSliceAttrs a;
  a.shrink_axis_mask = 1;
  if (axis == -1) a.end_mask = 1;
  return ops::StridedSlice(s, shape, {axis}, {axis == -1 ? 0 : axis + 1}, {1}, a);
}

std::string Without(const std::string& subs, const std::set<char>& labels) {
  std::string out;
  for (char c : subs) {
    if (!labels.count(c)) out += c;
  }
  return out;
}

// The gradient of the one-operand Einsum input_subs -> output_subs that sums `reduced` away.
Output GradReduced(const Scope& s, const Output& g, const std::string& output_subs, const std::string& input_subs,
                   const Output& input_shape, const std::set<char>& reduced) {
  const std::string reduced_subs(reduced.begin(), reduced.end());
  std::vector<int> axes;
  std::vector<Input> dims;
  for (char c : reduced_subs) {
    axes.push_back(AxisOfLabel(input_subs, c));
    dims.push_back(DimAt(s, input_shape, axes.back()));
  }
  // TensorFlow counts an ellipsis' periods as repeated labels, as here.
  const std::set<char> in_set(input_subs.begin(), input_subs.end()), out_set(output_subs.begin(), output_subs.end());
  const bool repeated = in_set.size() + out_set.size() < input_subs.size() + output_subs.size();
  if (!repeated && Without(input_subs, reduced) == output_subs) {
    std::vector<int32_t> a(axes.begin(), axes.end());
    tensorflow::TensorProto p;
    p.set_dtype(DT_INT32);
    p.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(a.size()));
    for (int32_t v : a) p.add_int_val(v);
    Output shape = ReducedShape(s, input_shape, ops::Const(s, Input(p)));
    return ops::BroadcastTo(s, ops::Reshape(s, g, shape), input_shape);
  }
  Output g_shape = ops::Shape(s, g);
  Output full = ops::Concat(s, {ops::Stack(s, dims), g_shape}, 0);
  Output ones = ops::Fill(s, ops::Const(s, {static_cast<int32_t>(reduced.size())}), 1);
  Output shape = ops::Concat(s, {ones, g_shape}, 0);
  Output broadcast = ops::BroadcastTo(s, ops::Reshape(s, g, shape), full);
  return ops::Einsum(s, {broadcast}, reduced_subs + output_subs + "->" + input_subs);
}

// The gradient with respect to one operand of a two-operand Einsum (before un-broadcasting).
Output GradWrt(const Scope& s, const Output& g, const Output& other, const Output& input_shape,
               const std::string& input_subs, const std::string& other_subs, const std::string& output_subs) {
  std::set<char> reduced;
  const std::string kept = output_subs + other_subs + ".";
  for (char c : input_subs) {
    if (kept.find(c) == std::string::npos) reduced.insert(c);
  }
  const std::string left = Without(input_subs, reduced);
  Output grad = ops::Einsum(s, {g, other}, output_subs + "," + other_subs + "->" + left);
  if (reduced.empty()) return grad;
  return GradReduced(s, grad, left, input_subs, input_shape, reduced);
}

// shape[start:end] of an operand's ellipsis (empty without one).
Output BroadcastSubshape(const Scope& s, const Output& shape, const std::string& subs, int* start) {
  const size_t dots = subs.find(kEllipsis);
  *start = dots == std::string::npos ? 0 : static_cast<int>(dots);
  ops::StridedSliceAttrs a;
  int end = 0;
  if (dots != std::string::npos) {
    const int remaining = static_cast<int>(subs.size() - (dots + 3));
    if (remaining > 0) end = -remaining;
    else a.end_mask = 1;
  }
  return ops::StridedSlice(s, shape, {*start}, {end}, {1}, a);
}

Status EinsumGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string equation;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "equation", &equation));
  const size_t arrow = equation.find("->");
  if (arrow == std::string::npos) return errors::InvalidArgument("Einsum equation without '->': ", equation);
  std::string input_subs = equation.substr(0, arrow);
  const std::string output_subs = equation.substr(arrow + 2);
  if (op.num_inputs() == 1) {
    Output x = InputOf(op, 0);
    std::set<char> reduced;
    const std::string kept = output_subs + kEllipsis;
    for (char c : input_subs) {
      if (kept.find(c) == std::string::npos) reduced.insert(c);
    }
    if (reduced.empty()) {
      (*dx)[0] = ops::Einsum(s, {dy[0]}, output_subs + "->" + input_subs);
    } else {
      (*dx)[0] = GradReduced(s, dy[0], output_subs, input_subs, ops::Shape(s, x), reduced);
    }
    return Status::OK();
  }
  const size_t comma = input_subs.find(',');
  std::string x_subs = input_subs.substr(0, comma), y_subs = input_subs.substr(comma + 1);
  const bool out_ellipsis = output_subs.find(kEllipsis) != std::string::npos;
  if (out_ellipsis) {
    if (x_subs.find(kEllipsis) == std::string::npos) x_subs += kEllipsis;
    if (y_subs.find(kEllipsis) == std::string::npos) y_subs += kEllipsis;
  }
  // A complex dy: the operands conjugated, as TensorFlow's (not in the one-operand case above).
  Output x = ops::ConjIfComplex(s, InputOf(op, 0)), y = ops::ConjIfComplex(s, InputOf(op, 1));
  Output x_shape = ops::Shape(s, x), y_shape = ops::Shape(s, y);
  Output gx = GradWrt(s, dy[0], y, x_shape, x_subs, y_subs, output_subs);
  Output gy = GradWrt(s, dy[0], x, y_shape, y_subs, x_subs, output_subs);
  if (!out_ellipsis) {
    (*dx)[0] = gx;
    (*dx)[1] = gy;
    return Status::OK();
  }
  int bx = 0, by = 0;
  Output sx = BroadcastSubshape(s, x_shape, x_subs, &bx), sy = BroadcastSubshape(s, y_shape, y_subs, &by);
  ops::BroadcastGradientArgsOutputs r = ops::BroadcastGradientArgs(s, sx, sy);
  (*dx)[0] = ops::Reshape(s, ops::Sum(s, gx, ops::Add(s, r.r0, bx)), x_shape);
  (*dx)[1] = ops::Reshape(s, ops::Sum(s, gy, ops::Add(s, r.r1, by)), y_shape);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Einsum", EinsumGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
