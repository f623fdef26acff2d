#include "graph/gradients/grad_helpers.h"

#include "graph/builder/eager_node.h"

namespace tensoract {
namespace grad {

void ReduceBroadcast(const Scope& s, const Output& x, const Output& y, const Output& gx, const Output& gy,
                     Output* dx, Output* dy) {
  const PartialTensorShape& xs = x.node->output_shape(x.index);
  const PartialTensorShape& ys = y.node->output_shape(y.index);
  bool same = xs.IsFullyDefined() && ys.IsFullyDefined() && xs.dims() == ys.dims();
  for (int d = 0; same && d < xs.dims(); ++d) same = xs.dim_size(d) == ys.dim_size(d);
  if (same) {
    *dx = gx;
    *dy = gy;
    return;
  }
  Output sx = ops::Shape(s, x), sy = ops::Shape(s, y);
  Node* args = s.AddOp("BroadcastGradientArgs", "BroadcastGradientArgs", {sx, sy},
                       {{"T", ops::TypeAttr(tensorflow::DT_INT32)}});
  if (args == nullptr) return;  // the scope holds the error
  if (gx.node != nullptr) *dx = ops::Reshape(s, ops::Sum(s, gx, Output(args, 0)), sx);
  if (gy.node != nullptr) *dy = ops::Reshape(s, ops::Sum(s, gy, Output(args, 1)), sy);
}

Output InputOf(const Node& op, int i) {
  if (op.eager() != nullptr) {  // an op a gradient tape recorded: its inputs are kept
    const auto& in = op.eager()->inputs;
    return i >= 0 && i < static_cast<int>(in.size()) ? in[i] : Output();
  }
  const Edge* e = op.input_edge(i);
  return e == nullptr ? Output() : Output(e->src, e->src_output);
}

Output OpOutput(const Node& op, int i) { return Output(const_cast<Node*>(&op), i); }

bool Needed(const Node& op, int i) {
  return op.eager() == nullptr || i >= 64 || ((op.eager()->skip_inputs >> i) & 1) == 0;
}

bool KnownValue(const Output& out, tensorflow::TensorProto* value) {
  if (out.node == nullptr) return false;
  if (out.is_eager()) return out.eager->KnownValue(out.index, value);
  if (out.node->type_string() != "Const") return false;
  const tensorflow::TensorProto* v = nullptr;
  if (!GetNodeAttr(out.node->def(), "value", &v).ok()) return false;
  *value = *v;
  return true;
}

ops::Attrs AttrsOf(const Node& op, std::initializer_list<const char*> names) {
  ops::Attrs attrs;
  for (const char* name : names) {
    auto it = op.def().attr().find(name);
    if (it != op.def().attr().end()) attrs[name] = it->second;
  }
  return attrs;
}

bool IsComplex(const Output& x) {
  return x.type() == tensorflow::DT_COMPLEX64 || x.type() == tensorflow::DT_COMPLEX128;
}

Output ScalarLike(const Scope& s, double value, const Output& like) {
  Output c = ops::Const(s, value);
  return like.type() == tensorflow::DT_DOUBLE ? c : ops::Cast(s, c, like.type());
}

Output SumToShapeOf(const Scope& s, const Output& g, const Output& x) {
  Output sx = ops::Shape(s, x);
  ops::BroadcastGradientArgsOutputs args = ops::BroadcastGradientArgs(s, sx, ops::Shape(s, g));
  return ops::Reshape(s, ops::Sum(s, g, args.r0), sx);
}

Output ReducedShape(const Scope& s, const Output& input_shape, const Output& axes) {
  Output rank = ops::Size(s, input_shape);
  Output a = axes.type() == tensorflow::DT_INT32 ? axes : ops::Cast(s, axes, tensorflow::DT_INT32);
  Output normalized = ops::FloorMod(s, ops::Add(s, a, rank), rank);
  // reduced[d] = any(d == normalized): a [rank, len(axes)] comparison, then Any over axes.
  Output dims = ops::ExpandDims(s, ops::Range(s, 0, rank, 1), 1);
  Output reduced = ops::Any(s, ops::Equal(s, dims, ops::Reshape(s, normalized, {1, -1})), 1);
  return ops::SelectV2(s, reduced, ops::OnesLike(s, input_shape), input_shape);
}

}  // namespace grad
}  // namespace tensoract
