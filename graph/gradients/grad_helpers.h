// What gradient functions share beyond the ops:: builder functions: sums over broadcast
// dimensions, the tensor feeding an op's input, and reduced shapes.
#ifndef TENSORACT_GRAPH_GRADIENTS_GRAD_HELPERS_H_
#define TENSORACT_GRAPH_GRADIENTS_GRAD_HELPERS_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "graph/builder/array_ops.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradient_registry.h"

namespace tensoract {
namespace grad {

using ops::Attrs;

// The gradients of a broadcasting binary op's two inputs, given the gradients `gx` and `gy`
// computed at the output's shape: each summed over the dimensions its input was broadcast
// along and reshaped back (TensorFlow's BroadcastGradientArgs). Nothing is added when both
// inputs are statically known to have the output's shape.
void ReduceBroadcast(const Scope& s, const Output& x, const Output& y, const Output& gx, const Output& gy,
                     Output* dx, Output* dy);

// The input of `op` at `i` (the tensor that feeds it).
Output InputOf(const Node& op, int i);
// Output `i` of `op`.
Output OpOutput(const Node& op, int i);

// Whether the gradient of `op`'s input `i` is wanted: always in a graph (pruning drops what
// nobody uses), and in eager code unless the tape said otherwise (EagerNode::skip_inputs).
// For gradient functions whose inputs' gradients cost real work to build.
bool Needed(const Node& op, int i);

// `out`'s value when it is known while building: a Const node's, or a (small) eager
// value's. False otherwise.
bool KnownValue(const Output& out, tensorflow::TensorProto* value);

// The attrs of `names` that `op` has, for the op its gradient builds (MaxPoolGrad takes
// MaxPool's window, LRNGrad LRN's constants).
ops::Attrs AttrsOf(const Node& op, std::initializer_list<const char*> names);

// Whether `x` is complex64 or complex128: where TensorFlow's gradient functions conjugate
// (math_ops.conj, which is the identity for real types; see ops::ConjIfComplex).
bool IsComplex(const Output& x);

// A scalar constant `value` of `like`'s dtype (cast from double unless it is double).
Output ScalarLike(const Scope& s, double value, const Output& like);

// `g`, computed at a broadcast shape, summed over the dimensions `x` was broadcast along
// and reshaped to x's shape (one side of ReduceBroadcast).
Output SumToShapeOf(const Scope& s, const Output& g, const Output& x);

// TensorFlow's reduced_shape: `input_shape` (an int32 vector) with the dimensions listed in
// `axes` (any integer tensor, negative counting from the end) set to 1: the shape a
// reduction's output has with keep_dims. Built from ops, so the axes and the rank may be
// unknown until the graph runs.
Output ReducedShape(const Scope& s, const Output& input_shape, const Output& axes);

}  // namespace grad
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_GRADIENTS_GRAD_HELPERS_H_
